package debuginfo

import (
	"debug/dwarf"
	"errors"
	"fmt"

	"github.com/cilium/ebpf/btf"
)

// ErrNoFunc is returned (wrapped) by Func for a function the DWARF does not
// describe.
var ErrNoFunc = errors.New("function not found in the DWARF")

// Func is a function described by DWARF.
type Func struct {
	Name   string
	Params []Param
	// Return is the return type (btf.Void for none) and ReturnC its C
	// spelling.
	Return  btf.Type
	ReturnC string
}

// Param is one formal parameter.
type Param struct {
	Name string // "" for an unnamed parameter
	// Type is the parameter's type as BTF; C is its C spelling the way
	// bpftrace lists it ("int*", "struct Foo*", "const char*").
	Type btf.Type
	C    string
}

// Decl returns the parameter as bpftrace's -lv lists it: "int* n".
func (p Param) Decl() string {
	if p.Name == "" {
		return p.C
	}
	return p.C + " " + p.Name
}

// Func returns the function called name. The error wraps ErrNoFunc when
// the DWARF has no such function.
func (f *File) Func(name string) (*Func, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ix, err := f.ensureIndex()
	if err != nil {
		return nil, err
	}
	fr, ok := ix.funcs[name]
	if !ok {
		return nil, fmt.Errorf("%s in %s: %w", name, f.Path, ErrNoFunc)
	}
	d := fr.d
	e := entryAt(d, fr.off)
	if e == nil {
		return nil, fmt.Errorf("%s in %s: %w", name, f.Path, ErrNoFunc)
	}
	fn := &Func{Name: name, Return: &btf.Void{}, ReturnC: "void"}
	if toff, ok := entryType(d, e); ok {
		dt, err := d.Type(toff)
		if err != nil {
			return nil, fmt.Errorf("the return type of %s in %s: %w", name, f.Path, err)
		}
		fn.Return, fn.ReturnC = f.toBTF(dt), cName(dt)
	}
	params, err := f.params(d, e)
	if err != nil {
		return nil, fmt.Errorf("the parameters of %s in %s: %w", name, f.Path, err)
	}
	if len(params) == 0 {
		// a concrete instance may leave its parameters to its origin
		if o := origin(d, e); o != nil && o.Children {
			if params, err = f.params(d, o); err != nil {
				return nil, fmt.Errorf("the parameters of %s in %s: %w", name, f.Path, err)
			}
		}
	}
	fn.Params = params
	return fn, nil
}

// params reads the formal parameters among the children of e.
func (f *File) params(d *dwarf.Data, e *dwarf.Entry) ([]Param, error) {
	if !e.Children {
		return nil, nil
	}
	r := d.Reader()
	r.Seek(e.Offset)
	if _, err := r.Next(); err != nil {
		return nil, err
	}
	var out []Param
	for {
		c, err := r.Next()
		if err != nil {
			return nil, err
		}
		if c == nil || c.Tag == 0 {
			break
		}
		if c.Children {
			r.SkipChildren()
		}
		if c.Tag != dwarf.TagFormalParameter {
			continue
		}
		p := Param{Name: entryName(d, c), Type: &btf.Void{}, C: "<unknown type>"}
		if toff, ok := entryType(d, c); ok {
			dt, err := d.Type(toff)
			if err != nil {
				return nil, err
			}
			p.Type, p.C = f.toBTF(dt), cName(dt)
		}
		out = append(out, p)
	}
	return out, nil
}

// Type returns the named type: "struct Foo", "union U", "enum E" or a
// typedef name, or nil when the DWARF has none.
func (f *File) Type(name string) (btf.Type, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ix, err := f.ensureIndex()
	if err != nil {
		return nil, err
	}
	tr, ok := ix.types[name]
	if !ok {
		return nil, nil
	}
	dt, err := tr.d.Type(tr.off)
	if err != nil {
		return nil, fmt.Errorf("type %s in %s: %w", name, f.Path, err)
	}
	return f.toBTF(dt), nil
}
