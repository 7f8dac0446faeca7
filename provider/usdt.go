package provider

// usdtProvider is usdt:BINARY:[NAMESPACE:]PROBE, not supported yet.
var usdtProvider = &Provider{Name: "usdt", Aliases: []string{"U"}, Needs: "USDT probes"}
