package main

import (
	"fmt"
	"regexp"

	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/provider"
	"github.com/gotrace/gotrace/runtime"
)

// errNoProbes is bpftrace's error for a program left without probes.
var errNoProbes = runtime.ErrNoProbes

// filterProbes keeps the probes of prog whose name matches the regular
// expression filter (--probe-filter, searched anywhere in the name), and
// BEGIN and END, which always run. The programs of the dropped probes are
// not loaded.
func filterProbes(prog *object.Program, filter string) error {
	re, err := regexp.Compile(filter)
	if err != nil {
		return fmt.Errorf("Invalid --probe-filter regex '%s': %w", filter, err)
	}
	var kept []*object.Probe
	used := map[string]bool{}
	dispatched := false
	for _, p := range prog.Probes {
		if !p.Dispatcher && (!provider.Lookup(p.Provider).Attaches() || re.MatchString(p.Name)) {
			kept = append(kept, p)
			used[p.Program] = true
			dispatched = dispatched || p.Dispatch != ""
		}
	}
	// The syscall dispatchers run the kept syscall blocks.
	for _, p := range prog.Probes {
		if p.Dispatcher && dispatched {
			kept = append(kept, p)
			used[p.Program] = true
		}
	}
	if len(kept) == 0 {
		return errNoProbes
	}
	for _, p := range prog.Probes {
		if !used[p.Program] {
			delete(prog.Collection.Programs, p.Program)
		}
	}
	prog.Probes = kept
	return nil
}
