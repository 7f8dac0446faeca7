package check

import (
	"fmt"
	"strings"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/provider"
	"github.com/gotrace/gotrace/tracefs"
)

func (c *checker) ident(e *ast.Ident) *types.Type {
	b := builtin.LookupVar(e.Name)
	if b == nil {
		c.errorf(e, "unknown identifier %q", e.Name)
		return nil
	}
	var t *types.Type
	if b.Check != nil {
		if t = b.Check(c, e); t == nil {
			return nil
		}
	} else {
		var msg string
		if t, msg = b.Type(c); t == nil {
			c.errorf(e, "%s", msg)
			return nil
		}
		if msg != "" {
			c.warnf(e, "%s", msg)
		}
	}
	c.info.Idents[e] = b
	if b.Const != nil {
		if cv, ok := b.Const(c, t); ok {
			c.info.Consts[e] = cv
		}
	}
	return t
}

// canonicalBuiltins renames the builtins that the probes spell
// __builtin_NAME (bpftrace's standard library does) to NAME, so that every
// later step, which looks builtins up by name, sees one spelling.
func canonicalBuiltins(file *ast.File) {
	for _, p := range file.Probes {
		ast.Inspect(p, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Ident:
				n.Name = builtin.Canonical(n.Name)
			case *ast.Call:
				n.Name = builtin.Canonical(n.Name)
			}
			return true
		})
	}
}

// aggregationBlocks rewrites `@m = { stmts; agg(...) }`, an aggregation as
// the value of a block expression, into the block statement
// `{ stmts; @m = agg(...); }`, which bpftrace's aggregation assignment
// means: the statements run in the block's scope, then the aggregation
// updates the map.
func aggregationBlocks(file *ast.File) {
	for _, p := range file.Probes {
		ast.Inspect(p, func(n ast.Node) bool {
			b, ok := n.(*ast.Block)
			if !ok {
				return true
			}
			for i, s := range b.Stmts {
				as, ok := s.(*ast.AssignStmt)
				if !ok || as.Op != "=" {
					continue
				}
				if _, ok := as.Lhs.(*ast.MapRef); !ok {
					continue
				}
				be, ok := ast.Unparen(as.Rhs).(*ast.BlockExpr)
				if !ok || !aggregationValue(be) {
					continue
				}
				stmts := be.Body.Stmts
				last := stmts[len(stmts)-1].(*ast.ExprStmt)
				body := append(append([]ast.Stmt{}, stmts[:len(stmts)-1]...),
					&ast.AssignStmt{Span: as.Span, Op: "=", Lhs: as.Lhs, Rhs: last.X})
				b.Stmts[i] = &ast.BlockStmt{Span: as.Span, Body: &ast.Block{Span: be.Body.Span, Stmts: body}}
			}
			return true
		})
	}
}

// aggregationValue reports whether the value of the block expression e
// (its last statement, through nested blocks) is an aggregation call.
func aggregationValue(e *ast.BlockExpr) bool {
	stmts := e.Body.Stmts
	if len(stmts) == 0 {
		return false
	}
	last, ok := stmts[len(stmts)-1].(*ast.ExprStmt)
	if !ok {
		return false
	}
	switch x := ast.Unparen(last.X).(type) {
	case *ast.Call:
		f := builtin.LookupFunc(x.Name)
		return f != nil && f.Agg
	case *ast.BlockExpr:
		return aggregationValue(x)
	}
	return false
}

// ArgsType types the args builtin of the probe being checked.
func (c *checker) ArgsType() (*types.Type, string) {
	if def := c.probe.Def(); c.info.ArgsType == nil && c.info.ArgsErr == "" && (len(c.probe.Points) == 1 || c.probe.Shaped) {
		if def.ArgsType != nil {
			c.info.ArgsType, c.info.ArgsErr = def.ArgsType(c, c.probe.Points[0])
		} else {
			c.info.ArgsErr = def.ArgsErr
		}
	}
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
}

// CurtaskType types curtask: a task_struct pointer when BTF has one, or
// the script defines struct task_struct (which then replaces the
// kernel's, as in bpftrace).
func (c *checker) CurtaskType() *types.Type {
	if ts, ok := c.ctypes["struct task_struct"]; ok {
		return &types.Type{Kind: types.Pointer, Size: 8, Elem: btfToType(ts, types.Kernel), AS: types.Kernel}
	}
	spec, err := c.env.BTF()
	if err != nil || spec == nil {
		return types.Uint64
	}
	var ts *btf.Struct
	if err := spec.TypeByName("task_struct", &ts); err != nil {
		return types.Uint64
	}
	return &types.Type{Kind: types.Pointer, Size: 8, Elem: btfToType(ts, types.Kernel), AS: types.Kernel}
}

// CtxType types ctx as a pointer to the kernel struct the provider names
// (provider.CtxStruct), or returns nil.
func (c *checker) CtxType() *types.Type {
	def := c.probe.Def()
	if def.CtxStruct == nil || len(c.probe.Points) == 0 {
		return nil
	}
	spec, err := c.env.BTF()
	if err != nil || spec == nil {
		return nil
	}
	var s *btf.Struct
	if err := spec.TypeByName(def.CtxStruct(c.probe.Points[0]), &s); err != nil {
		return nil
	}
	return &types.Type{Kind: types.Pointer, Size: 8, Elem: btfToType(s, types.Kernel), AS: types.Kernel}
}

// RetvalType types retval in the probe being checked.
func (c *checker) RetvalType() (*types.Type, string) {
	def := c.probe.Def()
	if def.RetvalType == nil {
		return nil, fmt.Sprintf("retval is not available in %s probes", c.probe.Provider())
	}
	return def.RetvalType(c, c.probe.Points)
}

// KernelType implements provider.Typer.
func (c *checker) KernelType(t btf.Type) *types.Type { return btfToType(t, types.Kernel) }

// TracepointArgs implements provider.ArgsBuilder.
func (c *checker) TracepointArgs(pt *provider.Point) (*types.Type, string) {
	return c.tracepointArgs(pt), ""
}

// ProtoArgs implements provider.ArgsBuilder.
func (c *checker) ProtoArgs(pt *provider.Point) (*types.Type, string) { return c.kfuncArgs(pt, false) }

// RegisterArgs implements provider.ArgsBuilder.
func (c *checker) RegisterArgs(pt *provider.Point) (*types.Type, string) {
	return c.kfuncArgs(pt, true)
}

// DWARFArgs implements provider.ArgsBuilder.
func (c *checker) DWARFArgs(pt *provider.Point) (*types.Type, string) { return c.dwarfArgs(pt) }

// tracepointArgs builds the record type of a tracepoint's args.
func (c *checker) tracepointArgs(pt *provider.Point) *types.Type {
	key := pt.Category + ":" + pt.Event
	if c.formats == nil {
		c.formats = map[string]*tracefs.Format{}
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
	rec := &types.Type{Kind: types.Record, Args: true}
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

func (c *checker) tracepointFieldType(f tracefs.Field, as types.AddrSpace) *types.Type {
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
	if name, ok := strings.CutPrefix(ct, "enum "); ok && size == f.Size {
		// an enum field prints its enumerator, when BTF has the enum
		if spec, err := c.env.BTF(); err == nil && spec != nil {
			var en *btf.Enum
			if spec.TypeByName(strings.TrimSpace(name), &en) == nil {
				t = types.NewEnum(en, size)
				t.Signed = f.Signed
			}
		}
	}
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
	elem := c.cIntType(base)
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
	return types.WithAS(t, as)
}
