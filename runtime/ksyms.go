package runtime

import (
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/gotrace/gotrace/output"
	"github.com/gotrace/gotrace/tracefs"
)

// Ksyms resolves kernel addresses to symbol names through /proc/kallsyms,
// read once, on the first lookup. It is safe for concurrent use. Addresses
// read as 0 in kallsyms when kptr_restrict hides them from the caller (not
// root, or kernel.kptr_restrict=2): lookups then fail and values print as
// hex addresses.
type Ksyms struct {
	path string
	once sync.Once
	syms []ksym // sorted by address
	err  error
}

type ksym struct {
	addr uint64
	name string
}

// NewKsyms returns a symbolizer reading /proc/kallsyms.
func NewKsyms() *Ksyms { return &Ksyms{path: "/proc/kallsyms"} }

func (k *Ksyms) load() error {
	k.once.Do(func() {
		f, err := os.Open(k.path)
		if err != nil {
			k.err = fmt.Errorf("kernel symbols: %w", err)
			return
		}
		defer f.Close()
		k.syms, k.err = parseKallsyms(f)
	})
	return k.err
}

// parseKallsyms reads "ADDR TYPE NAME [MODULE]" lines, keeping text
// symbols, sorted by address.
func parseKallsyms(r io.Reader) ([]ksym, error) {
	var syms []ksym
	err := tracefs.ReadKallsyms(r, func(sym tracefs.Kallsym) bool {
		switch sym.Type {
		case 't', 'T', 'w', 'W':
			if addr := sym.Addr(); addr != 0 {
				syms = append(syms, ksym{addr, string(sym.Name)})
			}
		}
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("kernel symbols: %w", err)
	}
	slices.SortStableFunc(syms, func(a, b ksym) int {
		switch {
		case a.addr < b.addr:
			return -1
		case a.addr > b.addr:
			return 1
		}
		return 0
	})
	return syms, nil
}

// Lookup returns the symbol containing addr (the last symbol at or below
// it) and the offset of addr in it; ok is false when kallsyms is unreadable
// or addr is below every symbol.
func (k *Ksyms) Lookup(addr uint64) (name string, off uint64, ok bool) {
	if k.load() != nil || len(k.syms) == 0 {
		return "", 0, false
	}
	i, found := slices.BinarySearchFunc(k.syms, addr, func(s ksym, a uint64) int {
		switch {
		case s.addr < a:
			return -1
		case s.addr > a:
			return 1
		}
		return 0
	})
	if !found {
		if i == 0 {
			return "", 0, false
		}
		i--
	}
	return k.syms[i].name, addr - k.syms[i].addr, true
}

// Name renders addr the way bpftrace prints ksym() and func: the symbol
// name, or the address in hex when it cannot be resolved.
func (k *Ksyms) Name(addr uint64) string {
	if name, _, ok := k.Lookup(addr); ok {
		return name
	}
	return fmt.Sprintf("0x%x", addr)
}

// withKsyms returns f with its Ksym hook set to a kallsyms symbolizer when
// it has none; f itself is not modified.
func withKsyms(f *output.Formatter) *output.Formatter {
	if f == nil {
		f = output.NewFormatter()
	}
	if f.Ksym != nil {
		return f
	}
	c := *f
	c.Ksym = NewKsyms().Name
	return &c
}
