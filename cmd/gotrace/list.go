package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/gotrace/gotrace"
	"github.com/gotrace/gotrace/provider"
)

// listProbes implements -l and -lv for one pattern, the way bpftrace 0.26
// does: "" is "*:*" and a pattern without ':' is "*:PATTERN"; a wildcard
// probe type lists the kernel kinds it matches (provider.ListAll), in
// name order, and the user-space kinds (provider.ListUser) only when the
// search is scoped to a process (pid) or an existing file. Each kind
// lists through its provider's List hook; errors of kinds a wildcard
// selected are not reported (they simply have no match).
func listProbes(stdout, stderr io.Writer, pattern string, verbose bool, pid int, traceable string) int {
	switch {
	case pattern == "":
		pattern = "*:*"
	case !strings.Contains(pattern, ":"):
		pattern = "*:" + pattern
	}
	kind, rest, _ := strings.Cut(pattern, ":")
	parts := strings.Split(pattern, ":")
	var provs []*provider.Provider
	explicit := !provider.HasGlob(kind) && kind != ""
	if explicit {
		def := provider.Lookup(kind)
		if def == nil {
			fmt.Fprintf(stderr, "gotrace: unknown probe type %q in %q\n", kind, pattern)
			return 1
		}
		if def.List == nil {
			fmt.Fprintf(stderr, "gotrace: %s probes cannot be listed\n", def.Name)
			return 1
		}
		provs = []*provider.Provider{def}
	} else {
		if kind == "" {
			kind = "*"
		}
		scoped := pid != 0 || len(parts) > 1 && parts[1] != "" && !provider.HasGlob(parts[1]) && exists(parts[1])
		for _, p := range provider.All() {
			if p.List != nil && (p.ListAll || p.ListUser && scoped) && globMatch(kind, p.Name) {
				provs = append(provs, p)
			}
		}
		sort.Slice(provs, func(i, j int) bool { return provs[i].Name < provs[j].Name })
	}
	env := provider.WithListTarget(gotrace.NewKernelEnv(), provider.Target{Pid: pid, TraceableFunctions: traceable})
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	status := 0
	for _, p := range provs {
		if err := p.List(w, env, rest, verbose); err != nil && explicit {
			w.Flush()
			fmt.Fprintf(stderr, "gotrace: -l %s: %v\n", p.Name, err)
			status = 1
		}
	}
	return status
}

// globMatch matches a probe type against a wildcard pattern.
func globMatch(pattern, name string) bool {
	return provider.MatchGlob(pattern, name)
}

// exists reports whether a file exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
