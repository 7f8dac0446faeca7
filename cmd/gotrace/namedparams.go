package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// checkNamedParams reports the named parameters (--name[=value] after the
// program) that the program does not read with getopt(), the way bpftrace
// does: an error naming them, and a hint listing the parameters the
// program has. --help lists those with their descriptions. It returns
// false when the run must stop.
func checkNamedParams(w io.Writer, params []string, getopts map[string]string) bool {
	var unexpected []string
	help := false
	for _, p := range params {
		if len(p) <= 2 || !strings.HasPrefix(p, "--") {
			continue
		}
		name, _, _ := strings.Cut(p[2:], "=")
		if _, ok := getopts[name]; ok {
			continue
		}
		if name == "help" {
			help = true
			continue
		}
		unexpected = append(unexpected, "--"+name)
	}
	if len(unexpected) == 0 && !help {
		return true
	}
	if len(unexpected) > 0 {
		fmt.Fprintf(w, "ERROR: unexpected program command line options: %s\n", strings.Join(unexpected, ", "))
	}
	if len(getopts) == 0 {
		fmt.Fprintln(w, "HINT: no custom program options defined.")
		return false
	}
	names := make([]string, 0, len(getopts))
	for n := range getopts {
		names = append(names, n)
	}
	slices.Sort(names)
	if !help {
		fmt.Fprintf(w, "HINT: expected program options: --%s\n", strings.Join(names, ": --"))
		return false
	}
	fmt.Fprintln(w, "HINT: expected program options:")
	for _, n := range names {
		if d := getopts[n]; d != "" {
			fmt.Fprintf(w, "--%s: %s\n", n, d)
		} else {
			fmt.Fprintf(w, "--%s\n", n)
		}
	}
	return false
}
