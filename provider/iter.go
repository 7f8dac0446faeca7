package provider

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/cilium/ebpf/btf"
)

// iterProvider is iter:OBJECT[:PIN], not supported yet; -l lists the
// iterators the kernel's BTF declares (struct bpf_iter__OBJECT).
var iterProvider = &Provider{
	Name: "iter", Aliases: []string{"it"}, Needs: "BPF iterators",
	List:    listIters,
	ListAll: true,
}

// iterStructPrefix names the context struct of an iterator program.
const iterStructPrefix = "bpf_iter__"

// listIters lists iter:OBJECT for every struct bpf_iter__OBJECT in BTF.
func listIters(w io.Writer, env ListEnv, pattern string, _ bool) error {
	if env == nil {
		return nil
	}
	spec, err := env.BTF()
	if err != nil {
		return fmt.Errorf("iterators are declared in the kernel's BTF: %w", err)
	}
	var names []string
	for t := range spec.All() {
		s, ok := t.(*btf.Struct)
		if !ok || !strings.HasPrefix(s.Name, iterStructPrefix) || strings.Contains(strings.TrimPrefix(s.Name, iterStructPrefix), "__") {
			continue
		}
		if name := strings.TrimPrefix(s.Name, iterStructPrefix); matchGlob(pattern, name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for i, n := range names {
		if i == 0 || names[i-1] != n {
			fmt.Fprintf(w, "iter:%s\n", n)
		}
	}
	return nil
}
