package lang

import (
	"fmt"
	"strings"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/provider"
)

// Builtin is a builtin variable such as pid or comm.
type Builtin struct {
	Name string
	// typ returns the variable's type in the current probe, or an error
	// message when the probe type does not provide it.
	typ func(c *checker) (*types.Type, string)
}

func fixed(t *types.Type) func(*checker) (*types.Type, string) {
	return func(*checker) (*types.Type, string) { return t, "" }
}

// builtins is the table of builtin variables.
func builtins() map[string]*Builtin {
	list := []*Builtin{
		{Name: "pid", typ: fixed(types.Uint32)},
		{Name: "cpid", typ: func(c *checker) (*types.Type, string) {
			if c.opts.Cpid == 0 {
				return nil, "cpid cannot be used without a child command (-c)"
			}
			return types.Uint32, ""
		}},
		{Name: "tid", typ: fixed(types.Uint32)},
		{Name: "uid", typ: fixed(types.Uint32)},
		{Name: "gid", typ: fixed(types.Uint32)},
		{Name: "nsecs", typ: fixed(types.Uint64)},
		{Name: "elapsed", typ: fixed(types.Uint64)},
		{Name: "cpu", typ: fixed(types.Uint32)},
		{Name: "cgroup", typ: fixed(types.Uint64)},
		{Name: "rand", typ: fixed(types.Uint32)},
		{Name: "comm", typ: fixed(types.NewString(16))},
		{Name: "probe", typ: func(c *checker) (*types.Type, string) {
			return types.NewString(len(c.probe.Points[0].Name) + 1), ""
		}},
		{Name: "args", typ: func(c *checker) (*types.Type, string) {
			if c.info.ArgsType == nil {
				if c.info.ArgsErr != "" {
					return nil, c.info.ArgsErr
				}
				if len(c.probe.Points) > 1 {
					return nil, "args is not available when a probe has several attach points of this type"
				}
				return nil, fmt.Sprintf("args is not available in %s probes", c.probe.Provider())
			}
			return c.info.ArgsType, ""
		}},
		{Name: "jiffies", typ: fixed(types.Uint64)},
		{Name: "ctx", typ: func(c *checker) (*types.Type, string) {
			if c.probe.Def().Ctx == provider.CtxNone {
				return nil, fmt.Sprintf("ctx is not available in %s probes", c.probe.Provider())
			}
			return &types.Type{Kind: types.Pointer, Size: 8, Elem: types.VoidT, AS: types.Kernel, Name: "ctx"}, ""
		}},
		{Name: "username", typ: fixed(&types.Type{Kind: types.Username, Size: 8})},
		{Name: "probetype", typ: func(c *checker) (*types.Type, string) {
			return types.NewString(len(c.probe.Def().ProbeType) + 1), ""
		}},
		{Name: "ustack", typ: fixed(ustackType(MaxStackFrames))},
		{Name: "kstack", typ: func(c *checker) (*types.Type, string) {
			return &types.Type{Kind: types.Stack, Size: 8, Name: "kstack", Len: MaxStackFrames}, ""
		}},
		{Name: "ppid", typ: func(c *checker) (*types.Type, string) {
			if _, err := c.taskLayout(); err != nil {
				return nil, fmt.Sprintf("ppid needs kernel BTF: %v", err)
			}
			return types.Uint32, ""
		}},
		{Name: "pcomm", typ: func(c *checker) (*types.Type, string) {
			if _, err := c.taskLayout(); err != nil {
				return nil, fmt.Sprintf("pcomm needs kernel BTF: %v", err)
			}
			return types.NewString(16), ""
		}},
		{Name: "numaid", typ: fixed(types.Uint32)},
		{Name: "ncpus", typ: func(c *checker) (*types.Type, string) {
			return types.Uint64, ""
		}},
		{Name: "curtask", typ: func(c *checker) (*types.Type, string) {
			spec, err := c.env.BTF()
			if err != nil || spec == nil {
				return types.Uint64, ""
			}
			var ts *btf.Struct
			if err := spec.TypeByName("task_struct", &ts); err != nil {
				return types.Uint64, ""
			}
			return &types.Type{Kind: types.Pointer, Size: 8, Elem: btfToType(ts, types.Kernel), AS: types.Kernel}, ""
		}},
		{Name: "func", typ: func(c *checker) (*types.Type, string) {
			if !c.probe.Def().Func {
				return nil, fmt.Sprintf("func is not available in %s probes", c.probe.Provider())
			}
			if len(c.probe.Points) == 1 {
				return types.NewString(len(c.probe.Points[0].Func) + 1), ""
			}
			return &types.Type{Kind: types.Ksym, Size: 8}, ""
		}},
		{Name: "retval", typ: func(c *checker) (*types.Type, string) {
			pt := c.probe.Points[0]
			from := c.probe.Def().Retval
			switch from {
			case provider.RetvalProto, provider.RetvalAfterArgs:
			case provider.RetvalUser:
				return types.Uint64, ""
			default:
				return nil, fmt.Sprintf("retval is not available in %s probes", pt.Provider)
			}
			if len(c.probe.Points) == 1 && pt.Proto != nil {
				if t := btfToType(pt.Proto.Return, types.Kernel); t != nil && (t.IsInt() || t.Kind == types.Pointer) {
					return t, ""
				}
			}
			if from == provider.RetvalAfterArgs && len(c.probe.Points) > 1 {
				return nil, fmt.Sprintf("retval in %s needs one function per probe (its position depends on the prototype)", pt.Provider)
			}
			return types.Int64, ""
		}},
	}
	m := map[string]*Builtin{}
	for _, b := range list {
		m[b.Name] = b
	}
	for i := 0; i < 6; i++ {
		m[fmt.Sprintf("arg%d", i)] = &Builtin{Name: fmt.Sprintf("arg%d", i), typ: argN}
	}
	return m
}

// argN types the kprobe register arguments arg0...arg5.
func argN(c *checker) (*types.Type, string) {
	if !c.probe.Def().ArgN {
		return nil, fmt.Sprintf("argN is only available in kprobe, uprobe and rawtracepoint probes (use args.NAME in %s probes)", c.probe.Provider())
	}
	return types.Uint64, ""
}

func (c *checker) ident(e *ast.Ident) *types.Type {
	b := c.builtinTab[e.Name]
	if b == nil {
		c.errorf(e, "unknown identifier %q", e.Name)
		return nil
	}
	t, msg := b.typ(c)
	if t == nil {
		c.errorf(e, "%s", msg)
		return nil
	}
	c.info.Idents[e] = b
	switch {
	case e.Name == "probe":
		c.info.Consts[e] = Const{IsStr: true, Str: c.probe.Points[0].Name}
	case e.Name == "func" && t.Kind == types.String:
		c.info.Consts[e] = Const{IsStr: true, Str: c.probe.Points[0].Func}
	case e.Name == "probetype":
		c.info.Consts[e] = Const{IsStr: true, Str: c.probe.Def().ProbeType}
	case e.Name == "ncpus":
		c.info.Consts[e] = Const{Int: uint64(max(c.opts.NCPUs, 1))}
	case e.Name == "cpid":
		c.info.Consts[e] = Const{Int: uint64(c.opts.Cpid)}
	}
	return t
}

// tracepointArgs builds the record type of a tracepoint's args.
func (c *checker) tracepointArgs(pt *AttachPoint) *types.Type {
	key := pt.Category + ":" + pt.Event
	if c.formats == nil {
		c.formats = map[string]*TracepointFormat{}
	}
	f, ok := c.formats[key]
	if !ok {
		var err error
		f, err = c.env.TracepointFormat(pt.Category, pt.Event)
		if err != nil {
			c.errorf(pt.Pos, "reading the format of tracepoint %s: %v", key, err)
			return nil
		}
		c.formats[key] = f
	}
	pt.Format = f
	as := types.Kernel
	if pt.Category == "syscalls" {
		as = types.User
	}
	rec := &types.Type{Kind: types.Record, Name: "args"}
	for _, fl := range f.Fields {
		rec.Fields = append(rec.Fields, types.Field{Name: fl.Name, Type: c.tracepointFieldType(fl, as), Offset: fl.Offset})
	}
	return rec
}

// Field type names used to mark how a tracepoint field is stored.
const (
	// DataLocString marks a __data_loc string field: a uint32 holding the
	// string's offset (low 16 bits) from the start of the record.
	DataLocString = "__data_loc"
	// InlineString marks a char array stored inside the record.
	InlineString = "inline"
)

func (c *checker) tracepointFieldType(f TracepointField, as types.AddrSpace) *types.Type {
	ct := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(f.CType, "const "), "volatile "))
	switch {
	case f.DataLoc:
		return &types.Type{Kind: types.String, Size: c.opts.MaxStrlen, Name: DataLocString}
	case f.ArrayLen > 0 && (ct == "char" || ct == "unsigned char" || ct == "u8"):
		return &types.Type{Kind: types.String, Size: f.ArrayLen, Name: InlineString}
	case f.ArrayLen > 0:
		es := f.Size / f.ArrayLen
		if es != 1 && es != 2 && es != 4 && es != 8 {
			es = 1
		}
		return &types.Type{Kind: types.Array, Size: f.Size, Len: f.ArrayLen, Elem: types.NewInt(es, f.Signed)}
	case strings.Contains(ct, "*"):
		return c.tracepointPointer(ct, as)
	}
	size := f.Size
	if size != 1 && size != 2 && size != 4 && size != 8 {
		size = 8
	}
	// An address kept in an integer field points into the record's
	// address space: (T *)args.addr reads user memory in a syscall.
	t := types.NewInt(size, f.Signed)
	t.AS = as
	return t
}

// tracepointPointer types a pointer field of a tracepoint record from its C
// declaration ("const char *const *", "struct sockaddr *", "loff_t *"):
// every level of pointer reads from as; what it points to is a C integer,
// a kernel type found in BTF, or bytes (uint8) when unknown.
func (c *checker) tracepointPointer(ct string, as types.AddrSpace) *types.Type {
	levels := strings.Count(ct, "*")
	var words []string
	for _, w := range strings.Fields(strings.ReplaceAll(ct, "*", " ")) {
		switch w {
		case "const", "volatile", "__user", "restrict", "__restrict":
			continue
		}
		words = append(words, w)
	}
	base := strings.Join(words, " ")
	elem := cIntType(base)
	switch {
	case elem != nil:
	case base == "void":
		elem = types.VoidT
	default:
		elem = types.Uint8
		if spec, err := c.env.BTF(); err == nil && spec != nil {
			if bt, err := lookupKernelType(spec, base); err == nil {
				if t := btfToType(bt, as); t != nil && t.Kind != types.Void {
					elem = t
				}
			}
		}
	}
	t := elem
	for i := 0; i < levels; i++ {
		t = &types.Type{Kind: types.Pointer, Size: 8, Elem: t, AS: as}
	}
	t.Name = base
	return withAS(t, as)
}
