package provider

// iterProvider is iter:OBJECT[:PIN], not supported yet.
var iterProvider = &Provider{Name: "iter", Aliases: []string{"it"}, Needs: "BPF iterators"}
