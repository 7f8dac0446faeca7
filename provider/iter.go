package provider

import (
	"fmt"
	"io"
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

// listIters lists iter:OBJECT for every iterator of the kernel: a
// function bpf_iter_OBJECT (DEFINE_BPF_ITER_FUNC) with a context struct
// bpf_iter__OBJECT in BTF.
func listIters(w io.Writer, env ListEnv, pattern string, _ bool) error {
	if env == nil {
		return nil
	}
	spec, err := env.BTF()
	if err != nil {
		return fmt.Errorf("iterators are declared in the kernel's BTF: %w", err)
	}
	ix, err := kernelFuncs(spec)
	if err != nil {
		return err
	}
	for _, f := range ix.Funcs() {
		name, ok := strings.CutPrefix(f.Name, "bpf_iter_")
		if !ok || strings.HasPrefix(name, "_") || !matchGlob(pattern, name) {
			continue
		}
		if _, err := iterContext(spec, name); err == nil {
			fmt.Fprintf(w, "iter:%s\n", name)
		}
	}
	return nil
}

// iterContext returns the context struct of iterator name, bpf_iter__NAME.
func iterContext(spec *btf.Spec, name string) (*btf.Struct, error) {
	var s *btf.Struct
	if err := spec.TypeByName(iterStructPrefix+name, &s); err != nil {
		return nil, fmt.Errorf("no iterator %s (struct %s%s is not in the kernel's BTF)", name, iterStructPrefix, name)
	}
	return s, nil
}
