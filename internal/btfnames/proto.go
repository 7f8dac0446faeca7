package btfnames

import (
	"fmt"

	"github.com/cilium/ebpf/btf"
)

// maxTrampolineArgs is the most arguments a BPF trampoline passes
// (MAX_BPF_FUNC_ARGS).
const maxTrampolineArgs = 12

// trampolineDenied are the functions the kernel never lets a trampoline
// attach to, whatever their prototype, because trampolines call them
// (the verifier's btf_id_deny set, its members depending on the kernel's
// configuration; a name this kernel does not deny is refused the same way
// by the kernel that has it).
var trampolineDenied = map[string]bool{
	"___migrate_enable":      true,
	"migrate_disable":        true,
	"migrate_enable":         true,
	"rcu_read_unlock_strict": true,
	"preempt_count_add":      true,
	"preempt_count_sub":      true,
	"__rcu_read_lock":        true,
	"__rcu_read_unlock":      true,
}

// TrampolineRefusals returns, for each function of ids that a BPF
// trampoline (fentry, fexit) cannot take, why: it returns a struct or
// union, takes one of more than 16 bytes by value, takes variable
// arguments or more than 12 (the kernel's checks of a trampoline's target
// prototype, btf_distill_func_proto), or it is one of the functions the
// kernel denies trampolines altogether. A link over many functions fails
// as a whole on one of them. The records are read from the raw blob in
// place.
func (ix *Index) TrampolineRefusals(ids []btf.TypeID) (map[btf.TypeID]string, error) {
	if ix.raw == nil {
		return nil, fmt.Errorf("btfnames: index without its blob")
	}
	b, err := parseBlob(ix.raw)
	if err != nil {
		return nil, err
	}
	r := &reader{blob: b, starts: make([]int, 1, 1<<17)}
	r.starts[0] = -1
	out := map[btf.TypeID]string{}
	for _, id := range ids {
		why, err := r.trampolineRefusal(int(id))
		if err != nil {
			return nil, err
		}
		if why != "" {
			out[id] = why
		}
	}
	return out, nil
}

// trampolineRefusal returns why a trampoline cannot take function id, or "".
func (r *reader) trampolineRefusal(id int) (string, error) {
	kind, _, _, off, err := r.record(id)
	if err != nil {
		return "", err
	}
	if kind != kindFunc {
		return "", fmt.Errorf("type %d is not a function (kind %d)", id, kind)
	}
	if r.deniedName(off) {
		return "is denied to trampolines by the kernel", nil
	}
	kind, vlen, _, off, err := r.record(int(r.bo.Uint32(r.types[off+8:])))
	if err != nil {
		return "", err
	}
	if kind != kindProto {
		return "", fmt.Errorf("function %d has no prototype (kind %d)", id, kind)
	}
	if k, _, err := r.aggregate(int(r.bo.Uint32(r.types[off+8:]))); err != nil {
		return "", err
	} else if k != 0 {
		return "returns a struct or union", nil
	}
	if vlen > maxTrampolineArgs {
		return fmt.Sprintf("has %d arguments", vlen), nil
	}
	for i := range vlen {
		p := off + 12 + 8*i
		t := int(r.bo.Uint32(r.types[p+4:]))
		if t == 0 {
			return "takes variable arguments", nil
		}
		k, size, err := r.aggregate(t)
		if err != nil {
			return "", err
		}
		if k != 0 && size > 16 {
			return "takes a struct or union of more than 16 bytes by value", nil
		}
	}
	return "", nil
}

// aggregate follows typedefs and qualifiers from id and returns the kind
// and size of the struct or union it names, or kind 0 for any other type
// (void included).
func (r *reader) aggregate(id int) (kind, size int, err error) {
	for range 64 {
		if id == 0 {
			return 0, 0, nil
		}
		k, _, _, off, err := r.record(id)
		if err != nil {
			return 0, 0, err
		}
		switch k {
		case kindStruct, kindUnion:
			return k, int(r.bo.Uint32(r.types[off+8:])), nil
		case kindTypedef, kindVolatile, kindConst, kindRestrict, kindTypeTag:
			id = int(r.bo.Uint32(r.types[off+8:]))
		default:
			return 0, 0, nil
		}
	}
	return 0, 0, fmt.Errorf("%w: type %d: qualifier loop", ErrFormat, id)
}

// deniedName reports whether the record at off is named as a function of
// trampolineDenied, without copying the string section.
func (r *reader) deniedName(off int) bool {
	nameOff := r.bo.Uint32(r.types[off:])
	for name := range trampolineDenied {
		if r.nameIs(nameOff, name) {
			return true
		}
	}
	return false
}
