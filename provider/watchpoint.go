package provider

// watchpointProvider is watchpoint:ADDRESS:LENGTH:MODE, not supported yet.
var watchpointProvider = &Provider{Name: "watchpoint", Aliases: []string{"w"}, Needs: "hardware breakpoints"}

// asyncWatchpointProvider is asyncwatchpoint:ADDRESS:LENGTH:MODE, not
// supported yet.
var asyncWatchpointProvider = &Provider{Name: "asyncwatchpoint", Aliases: []string{"aw"}, Needs: "hardware breakpoints"}
