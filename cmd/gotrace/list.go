package main

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/gotrace/gotrace"
	"github.com/gotrace/gotrace/provider"
)

// listPid is the process of -p for -l (usdt probes of a process).
var listPid int

// listProbes implements -l and -lv: it prints the probes matching the
// pattern in args (all kernel probes without one) the way bpftrace does,
// through each provider's List hook.
func listProbes(stdout, stderr io.Writer, args []string, verbose bool) int {
	pattern := "*"
	switch len(args) {
	case 0:
	case 1:
		pattern = args[0]
	default:
		fmt.Fprintf(stderr, "gotrace: -l takes one pattern, got %q\n", args)
		return 1
	}
	var provs []*provider.Provider
	for _, p := range provider.All() {
		if p.ListAll {
			provs = append(provs, p)
		}
	}
	rest := "*"
	if prov, r, ok := strings.Cut(pattern, ":"); ok {
		if def := provider.Lookup(prov); def != nil {
			if def.List == nil {
				fmt.Fprintf(stderr, "gotrace: %s probes cannot be listed\n", def.Name)
				return 1
			}
			provs, rest = []*provider.Provider{def}, r
		} else if strings.ContainsAny(prov, "*?[") {
			var matched []*provider.Provider
			for _, p := range provs {
				if ok, _ := path.Match(prov, p.Name); ok {
					matched = append(matched, p)
				}
			}
			provs, rest = matched, r
		} else {
			fmt.Fprintf(stderr, "gotrace: unknown probe type %q in %q\n", prov, pattern)
			return 1
		}
	} else if pattern != "*" {
		// A bare pattern matches function and event names of every type.
		rest = pattern
	}
	env := provider.WithPid(gotrace.NewKernelEnv(), listPid)
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	status := 0
	for _, p := range provs {
		if err := p.List(w, env, rest, verbose); err != nil {
			w.Flush()
			fmt.Fprintf(stderr, "gotrace: -l %s: %v\n", p.Name, err)
			status = 1
		}
	}
	return status
}
