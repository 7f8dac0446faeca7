package lang

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/gotrace/gotrace/lang/ast"
)

// elfFunctions lists the function symbols of an ELF file.
func (c *checker) elfFunctions(file string) (map[string]bool, error) {
	h, err := c.hostFiles()
	if err != nil {
		return nil, err
	}
	syms, err := h.ELFSymbols(file)
	if err != nil {
		return nil, err
	}
	funcs := map[string]bool{}
	for _, s := range syms {
		if s.Func {
			funcs[s.Name] = true
		}
	}
	return funcs, nil
}

// expandUprobe expands uprobe:BINARY:FUNC[+OFF], uprobe:BINARY:0xADDR and
// wildcards over the binary's function symbols (uretprobe likewise).
func expandUprobe(c *checker, ap *ast.AttachPoint, parts []string) ([]*AttachPoint, error) {
	kind := lookupProvider(splitAttach(ap.Raw)[0]).name
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return nil, fmt.Errorf("%s must be %s:BINARY:FUNCTION, got %q", kind, kind, ap.Raw)
	}
	h, err := c.hostFiles()
	if err != nil {
		return nil, err
	}
	bin, err := h.ResolveBinary(parts[0])
	if err != nil {
		return nil, err
	}
	fn := parts[1]
	if strings.HasPrefix(fn, "0x") {
		if _, err := strconv.ParseUint(fn, 0, 64); err != nil {
			return nil, fmt.Errorf("invalid address %q", fn)
		}
		return []*AttachPoint{{Name: kind + ":" + bin + ":" + fn, Module: bin, Func: fn}}, nil
	}
	var offset uint64
	if i := strings.IndexByte(fn, '+'); i >= 0 {
		v, err := strconv.ParseUint(fn[i+1:], 0, 64)
		if err != nil {
			return nil, fmt.Errorf("invalid uprobe offset %q", fn[i+1:])
		}
		fn, offset = fn[:i], v
	}
	funcs, err := c.elfFunctions(bin)
	if err != nil {
		return nil, err
	}
	var names []string
	if hasGlob(fn) {
		for name := range funcs {
			if ok, _ := path.Match(fn, name); ok {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		if len(names) == 0 {
			return nil, fmt.Errorf("No matches for %s %s:%s.", kind, bin, fn)
		}
	} else {
		if !funcs[fn] {
			return nil, fmt.Errorf("No matches for %s %s:%s.", kind, bin, fn)
		}
		names = []string{fn}
	}
	var out []*AttachPoint
	for _, n := range names {
		pt := &AttachPoint{Name: kind + ":" + bin + ":" + n, Module: bin, Func: n, Offset: offset}
		if offset != 0 {
			pt.Name += fmt.Sprintf("+%d", offset)
		}
		out = append(out, pt)
	}
	return out, nil
}

// elfSymbol returns the address of a symbol (function or object) of an
// ELF file.
func (c *checker) elfSymbol(file, name string) (uint64, error) {
	h, err := c.hostFiles()
	if err != nil {
		return 0, err
	}
	syms, err := h.ELFSymbols(file)
	if err != nil {
		return 0, err
	}
	for _, s := range syms {
		if s.Name == name {
			return s.Value, nil
		}
	}
	return 0, fmt.Errorf("no symbol %s in %s", name, file)
}
