package lang

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/format"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
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
			switch c.probe.Provider() {
			case "begin", "end":
				return nil, fmt.Sprintf("ctx is not available in %s probes", c.probe.Provider())
			}
			return &types.Type{Kind: types.Pointer, Size: 8, Elem: types.VoidT, AS: types.Kernel, Name: "ctx"}, ""
		}},
		{Name: "username", typ: fixed(&types.Type{Kind: types.Username, Size: 8})},
		{Name: "probetype", typ: func(c *checker) (*types.Type, string) {
			return types.NewString(len(probeType(c.probe.Provider())) + 1), ""
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
			switch c.probe.Provider() {
			case "kprobe", "kretprobe", "fentry", "fexit", "uprobe", "uretprobe":
			default:
				return nil, fmt.Sprintf("func is not available in %s probes", c.probe.Provider())
			}
			if len(c.probe.Points) == 1 {
				return types.NewString(len(c.probe.Points[0].Func) + 1), ""
			}
			return &types.Type{Kind: types.Ksym, Size: 8}, ""
		}},
		{Name: "retval", typ: func(c *checker) (*types.Type, string) {
			pt := c.probe.Points[0]
			switch pt.Provider {
			case "kretprobe", "fexit":
			case "uretprobe":
				return types.Uint64, ""
			default:
				return nil, fmt.Sprintf("retval is not available in %s probes", pt.Provider)
			}
			if len(c.probe.Points) == 1 && pt.Proto != nil {
				if t := btfToType(pt.Proto.Return, types.Kernel); t != nil && (t.IsInt() || t.Kind == types.Pointer) {
					return t, ""
				}
			}
			if pt.Provider == "fexit" && len(c.probe.Points) > 1 {
				return nil, "retval in fexit needs one function per probe (its position depends on the prototype)"
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
	switch p := c.probe.Provider(); p {
	case "kprobe", "rawtracepoint", "uprobe":
	default:
		return nil, fmt.Sprintf("argN is only available in kprobe, uprobe and rawtracepoint probes (use args.NAME in %s probes)", p)
	}
	return types.Uint64, ""
}

func (c *checker) ident(e *ast.Ident) *types.Type {
	b := c.builtinTab[e.Name]
	if b == nil {
		c.errorf(e.Pos(), "unknown identifier %q", e.Name)
		return nil
	}
	t, msg := b.typ(c)
	if t == nil {
		c.errorf(e.Pos(), "%s", msg)
		return nil
	}
	c.info.Idents[e] = b
	switch {
	case e.Name == "probe":
		c.info.Consts[e] = Const{IsStr: true, Str: c.probe.Points[0].Name}
	case e.Name == "func" && t.Kind == types.String:
		c.info.Consts[e] = Const{IsStr: true, Str: c.probe.Points[0].Func}
	case e.Name == "probetype":
		c.info.Consts[e] = Const{IsStr: true, Str: probeType(c.probe.Provider())}
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
	case strings.HasSuffix(ct, "*"):
		base := strings.TrimSpace(strings.TrimRight(ct, "* "))
		elem := types.Uint8
		switch {
		case base == "char" || base == "const char":
			elem = types.Int8
		case base == "void":
			elem = types.VoidT
		case strings.HasPrefix(base, "struct ") || strings.HasPrefix(base, "union "):
			// Typed through BTF when the kernel has it.
			if spec, err := c.env.BTF(); err == nil && spec != nil {
				if bt, err := lookupKernelType(spec, base); err == nil {
					if t := btfToType(bt, as); t != nil {
						elem = t
					}
				}
			}
		}
		return &types.Type{Kind: types.Pointer, Size: 8, Elem: elem, AS: as, Name: base}
	}
	size := f.Size
	if size != 1 && size != 2 && size != 4 && size != 8 {
		size = 8
	}
	return types.NewInt(size, f.Signed)
}

// Func is a builtin function.
type Func struct {
	Name string
	agg  bool // an aggregation: only valid as `@m = f(...)`
	// check validates the call and returns its result type (nil on error).
	check func(c *checker, call *ast.Call) *types.Type
}

func funcs() map[string]*Func {
	list := []*Func{
		{Name: "printf", check: checkPrintf},
		{Name: "str", check: checkStr},
		{Name: "exit", check: checkExit},
		{Name: "print", check: checkMapFunc},
		{Name: "clear", check: checkMapFunc},
		{Name: "zero", check: checkMapFunc},
		{Name: "delete", check: checkDelete},
		{Name: "has_key", check: checkHasKey},
		{Name: "time", check: checkTime},
		{Name: "reg", check: checkReg},
		{Name: "errorf", check: checkPrintf},
		{Name: "warnf", check: checkPrintf},
		{Name: "system", check: unsafeFunc(checkPrintf)},
		{Name: "cat", check: checkPrintf},
		{Name: "signal", check: unsafeFunc(checkSignal)},
		{Name: "strlen", check: checkStrlen},
		{Name: "strncmp", check: checkStrncmp},
		{Name: "bswap", check: checkBswap},
		{Name: "ksym", check: checkAddrFunc(types.Ksym)},
		{Name: "strftime", check: checkStrftime},
		{Name: "getopt", check: checkGetopt},
		{Name: "kstack", check: checkKstack},
		{Name: "strerror", check: intFunc(types.Errno)},
		{Name: "syscall_name", check: intFunc(types.SyscallName)},
		{Name: "ntop", check: checkNtop},
		{Name: "kaddr", check: checkKaddr},
		{Name: "join", check: checkJoin},
		{Name: "signal_name", check: intFunc(types.SignalName)},
		{Name: "len", check: checkLen},
		{Name: "find", check: checkFind},
		{Name: "memcmp", check: checkMemcmp},
		{Name: "strcontains", check: checkStrPair(types.BoolT)},
		{Name: "strstr", check: checkStrPair(types.Int64)},
		{Name: "cgroupid", check: checkCgroupid},
		{Name: "override", check: unsafeFunc(checkOverride)},
		{Name: "path", check: checkPath},
		{Name: "uaddr", check: checkUaddr},
		{Name: "usym", check: checkUsym},
		{Name: "ustack", check: checkUstack},
		{Name: "buf", check: checkBuf},
		{Name: "pton", check: checkPton},
		{Name: "macaddr", check: checkMacaddr},
		{Name: "str_concat", check: checkStrConcat},
		{Name: "tseries", agg: true, check: checkTseries},
		{Name: "cgroup_path", check: checkCgroupPath},
		{Name: "kptr", check: checkAddrFunc(types.Pointer)},
		{Name: "uptr", check: checkAddrFunc(types.Pointer)},
		{Name: "count", agg: true, check: aggCheck(types.Count, 0)},
		{Name: "sum", agg: true, check: aggCheck(types.Sum, 1)},
		{Name: "avg", agg: true, check: aggCheck(types.Avg, 1)},
		{Name: "min", agg: true, check: aggCheck(types.Min, 1)},
		{Name: "max", agg: true, check: aggCheck(types.Max, 1)},
		{Name: "stats", agg: true, check: aggCheck(types.Stats, 1)},
		{Name: "hist", agg: true, check: checkHist},
		{Name: "lhist", agg: true, check: checkLhist},
	}
	m := map[string]*Func{}
	for _, f := range list {
		m[f.Name] = f
	}
	return m
}

func (c *checker) call(e *ast.Call) *types.Type {
	f := c.funcTab[e.Name]
	if f == nil {
		if _, ok := c.builtinTab[e.Name]; ok && len(e.Args) == 0 {
			// bpftrace: pid() is the same as pid.
			id := &ast.Ident{Span: e.Span, Name: e.Name}
			t := c.ident(id)
			if t != nil {
				c.info.Types[id] = t
				c.info.Calls[e] = &Func{Name: e.Name}
				if cv, ok := c.info.Consts[id]; ok && !cv.IsStr {
					c.info.Consts[e] = cv // cpid(), ncpus(): constants too
				}
			}
			return t
		}
		c.errorf(e.Pos(), "unknown function %s()", e.Name)
		return nil
	}
	c.info.Calls[e] = f
	return f.check(c, e)
}

func (c *checker) wantArgs(e *ast.Call, lo, hi int) bool {
	n := len(e.Args)
	if n >= lo && (hi < 0 || n <= hi) {
		return true
	}
	switch {
	case lo == hi:
		c.errorf(e.Pos(), "%s() takes %d argument%s, got %d", e.Name, lo, plural(lo), n)
	case hi < 0:
		c.errorf(e.Pos(), "%s() takes at least %d argument%s, got %d", e.Name, lo, plural(lo), n)
	default:
		c.errorf(e.Pos(), "%s() takes %d to %d arguments, got %d", e.Name, lo, hi, n)
	}
	return false
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// intArg checks that argument i is an integer expression.
func (c *checker) intArg(e *ast.Call, i int) *types.Type {
	t := c.expr(e.Args[i])
	if t == nil {
		return nil
	}
	if !t.IsInt() {
		c.errorf(e.Args[i].Pos(), "%s() argument %d must be an integer, not %s", e.Name, i+1, t)
		return nil
	}
	return t
}

// constInt checks that argument i is an integer known at compile time.
func (c *checker) constInt(e *ast.Call, i int) (int64, bool) {
	if c.intArg(e, i) == nil {
		return 0, false
	}
	cv, ok := c.info.Consts[e.Args[i]]
	if !ok || cv.IsStr {
		c.errorf(e.Args[i].Pos(), "%s() argument %d must be a constant integer", e.Name, i+1)
		return 0, false
	}
	return int64(cv.Int), true
}

func aggCheck(k types.Kind, nargs int) func(*checker, *ast.Call) *types.Type {
	return func(c *checker, e *ast.Call) *types.Type {
		if !c.wantArgs(e, nargs, nargs) {
			return nil
		}
		t := &types.Type{Kind: k, Size: types.AggValueSize(k), Signed: true}
		if nargs == 1 {
			at := c.intArg(e, 0)
			if at == nil {
				return nil
			}
			if k == types.Sum {
				t.Signed = storageType(at).Signed || at.Kind == types.Bool
			}
		} else {
			t.Signed = false
		}
		return t
	}
}

func checkHist(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 2) || c.intArg(e, 0) == nil {
		return nil
	}
	t := &types.Type{Kind: types.Hist, Size: 8}
	if len(e.Args) == 2 {
		bits, ok := c.constInt(e, 1)
		if !ok {
			return nil
		}
		if bits < 0 || bits > 5 {
			c.errorf(e.Args[1].Pos(), "hist() bits must be between 0 and 5, got %d", bits)
			return nil
		}
		t.Bits = int(bits)
	}
	return t
}

func checkLhist(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 4, 4) || c.intArg(e, 0) == nil {
		return nil
	}
	lo, ok1 := c.constInt(e, 1)
	hi, ok2 := c.constInt(e, 2)
	step, ok3 := c.constInt(e, 3)
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	switch {
	case lo < 0:
		c.errorf(e.Args[1].Pos(), "lhist() min must be non-negative, got %d", lo)
	case hi <= lo:
		c.errorf(e.Args[2].Pos(), "lhist() max must be greater than min")
	case step <= 0:
		c.errorf(e.Args[3].Pos(), "lhist() step must be positive")
	case (hi-lo)/step > 1000:
		c.errorf(e.Args[3].Pos(), "lhist() has too many buckets: (max-min)/step must be at most 1000")
	default:
		return &types.Type{Kind: types.Lhist, Size: 8, LMin: lo, LMax: hi, LStep: step}
	}
	return nil
}

func checkStr(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 2) {
		return nil
	}
	t := c.expr(e.Args[0])
	if t == nil {
		return nil
	}
	size := c.opts.MaxStrlen
	if len(e.Args) == 2 {
		n, ok := c.constIntOrExpr(e, 1)
		if !ok {
			return nil
		}
		if n > 0 && int(n)+1 < size {
			size = int(n) + 1
		}
	}
	switch {
	case t.Kind == types.String:
		if size > t.Size {
			size = t.Size
		}
		return types.NewString(size)
	case t.Kind == types.Pointer, t.IsInt():
		return types.NewString(size)
	}
	c.errorf(e.Args[0].Pos(), "str() needs a pointer or a string, not %s", t)
	return nil
}

// constIntOrExpr accepts an integer argument; it returns its value when
// constant and -1 otherwise.
func (c *checker) constIntOrExpr(e *ast.Call, i int) (int64, bool) {
	if c.intArg(e, i) == nil {
		return 0, false
	}
	if cv, ok := c.info.Consts[e.Args[i]]; ok && !cv.IsStr {
		return int64(cv.Int), true
	}
	return -1, true
}

func checkExit(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 0, 1) {
		return nil
	}
	if len(e.Args) == 1 && c.intArg(e, 0) == nil {
		return nil
	}
	return types.VoidT
}

func checkTime(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 0, 1) {
		return nil
	}
	if len(e.Args) == 1 {
		if _, ok := e.Args[0].(*ast.StrLit); !ok {
			c.errorf(e.Args[0].Pos(), "time() format must be a string literal")
			return nil
		}
		c.expr(e.Args[0])
	}
	return types.VoidT
}

// mapArg checks that argument i names a whole map (no keys) and returns it.
func (c *checker) mapArg(e *ast.Call, i int) *MapType {
	m, ok := e.Args[i].(*ast.MapRef)
	if !ok || m.Keys != nil {
		c.errorf(e.Args[i].GetSpan().Start, "%s() expects a map such as @name", e.Name)
		return nil
	}
	mt := c.prog.Maps[m.Name]
	if mt == nil || mt.Value == nil {
		if !c.quiet {
			c.errorf(m.Pos(), "undefined map %s", m.Name)
		}
		return nil
	}
	c.info.Types[m] = mt.Value
	return mt
}

func checkMapFunc(c *checker, e *ast.Call) *types.Type {
	if e.Name == "print" {
		if !c.wantArgs(e, 1, 3) {
			return nil
		}
		if len(e.Args) > 1 {
			if m, ok := e.Args[0].(*ast.MapRef); !ok || m.Keys != nil {
				c.errorf(e.Args[1].Pos(), "print() takes top and div arguments only for a map")
				return nil
			}
			for i := 1; i < len(e.Args); i++ {
				if v, ok := c.constInt(e, i); !ok {
					return nil
				} else if v < 0 {
					c.errorf(e.Args[i].Pos(), "print() top and div must not be negative")
					return nil
				}
			}
		}
		if m, ok := e.Args[0].(*ast.MapRef); !ok || m.Keys != nil {
			// print(value): prints one value.
			t := c.expr(e.Args[0])
			if t == nil {
				return nil
			}
			if t.Kind == types.Void {
				c.errorf(e.Args[0].Pos(), "print() needs a value")
				return nil
			}
			return types.VoidT
		}
	} else if !c.wantArgs(e, 1, 1) {
		return nil
	}
	if c.mapArg(e, 0) == nil {
		return nil
	}
	return types.VoidT
}

func checkDelete(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 2) {
		return nil
	}
	m, ok := e.Args[0].(*ast.MapRef)
	if !ok {
		c.errorf(e.Args[0].GetSpan().Start, "delete() expects a map element such as @name[key]")
		return nil
	}
	if len(e.Args) == 2 {
		if m.Keys != nil {
			c.errorf(e.Args[0].Pos(), "delete(@m, key) takes the map without a key")
			return nil
		}
		keyed := &ast.MapRef{Span: m.Span, Name: m.Name, Keys: []ast.Expr{e.Args[1]}}
		if t, ok := e.Args[1].(*ast.Tuple); ok {
			keyed.Keys = t.Elems
		}
		c.info.Types[m] = types.VoidT
		return c.deleteKey(keyed)
	}
	return c.deleteKey(m)
}

func (c *checker) deleteKey(m *ast.MapRef) *types.Type {
	if mt := c.mapUse(m, nil, false); mt == nil {
		return nil
	} else if len(mt.Keys) > 0 && m.Keys == nil {
		c.errorf(m.Pos(), "delete() of map %s needs a key", m.Name)
		return nil
	}
	c.info.Types[m] = types.VoidT
	return types.BoolT // whether an element was deleted
}

func checkHasKey(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 2, 2) || c.mapWithKey(e) == nil {
		return nil
	}
	return types.BoolT
}

// mapWithKey checks f(@m, key, ...): a whole map and a key for it (a tuple
// for a multi-key map). It returns the map's type.
func (c *checker) mapWithKey(e *ast.Call) *MapType {
	m, ok := e.Args[0].(*ast.MapRef)
	if !ok || m.Keys != nil {
		c.errorf(e.Args[0].GetSpan().Start, "%s() expects a map such as @name", e.Name)
		return nil
	}
	keyed := &ast.MapRef{Span: m.Span, Name: m.Name, Keys: []ast.Expr{e.Args[1]}}
	if t, ok := e.Args[1].(*ast.Tuple); ok {
		keyed.Keys = t.Elems
	}
	mt := c.mapUse(keyed, nil, false)
	if mt != nil {
		c.info.Types[m] = types.VoidT
	}
	return mt
}

func checkPrintf(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, -1) {
		return nil
	}
	lit, ok := e.Args[0].(*ast.StrLit)
	if !ok {
		c.errorf(e.Args[0].GetSpan().Start, "%s() format must be a string literal", e.Name)
		return nil
	}
	c.expr(lit)
	f, ok := c.printfFormat(e.Name, lit)
	if !ok {
		return nil
	}
	verbs := f.Specs
	args := e.Args[1:]
	if len(verbs) != len(args) {
		c.errorf(e.Pos(), "%s(): the format has %d conversion%s but %d argument%s were given", e.Name, len(verbs), plural(len(verbs)), len(args), plural(len(args)))
		return nil
	}
	ok = true
	for i, a := range args {
		t := c.expr(a)
		if t == nil {
			ok = false
			continue
		}
		kind, _ := verbs[i].Arg()
		switch {
		case t.Kind == types.Void, t.IsAggregation():
			c.errorf(a.Pos(), "%s() argument %d has no printable value (%s)", e.Name, i+1, t)
			ok = false
		case kind == format.Any:
			// %s prints anything.
		case kind == format.Buffer:
			// buffers: buf() results, byte arrays and strings
			if t.Kind != types.String && !(t.Kind == types.Array && t.Elem != nil && t.Elem.Size == 1) {
				c.errorf(a.Pos(), "%s() %s needs a buffer, not %s", e.Name, f.Texts[i], t)
				ok = false
			}
		case !t.IsInt() && t.Kind != types.Pointer && t.Kind != types.Bool:
			c.errorf(a.Pos(), "%s() %s needs an integer, not %s", e.Name, f.Texts[i], t)
			ok = false
		}
	}
	if !ok {
		return nil
	}
	return types.VoidT
}

// Registers names reg() accepts, as members of x86-64 struct pt_regs.
var regNames = map[string]bool{
	"r15": true, "r14": true, "r13": true, "r12": true, "bp": true, "bx": true,
	"r11": true, "r10": true, "r9": true, "r8": true, "ax": true, "cx": true,
	"dx": true, "si": true, "di": true, "orig_ax": true, "ip": true, "cs": true,
	"flags": true, "sp": true, "ss": true,
}

func checkReg(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 1) {
		return nil
	}
	if p := c.probe.Provider(); p != "kprobe" && p != "kretprobe" && p != "uprobe" && p != "uretprobe" {
		c.errorf(e.Pos(), "reg() is only available in kprobe, kretprobe, uprobe and uretprobe probes")
		return nil
	}
	lit, ok := e.Args[0].(*ast.StrLit)
	if !ok || !regNames[lit.Value] {
		c.errorf(e.Args[0].Pos(), "reg() needs a register name such as \"di\" or \"ip\"")
		return nil
	}
	c.expr(lit)
	return types.Uint64
}

// unsafeFunc refuses a function with side effects unless --unsafe was given.
func unsafeFunc(check func(*checker, *ast.Call) *types.Type) func(*checker, *ast.Call) *types.Type {
	return func(c *checker, e *ast.Call) *types.Type {
		if !c.opts.Unsafe {
			c.errorf(e.Pos(), "%s() is unsafe: it changes the traced system; run with --unsafe to allow it", e.Name)
			return nil
		}
		return check(c, e)
	}
}

// signalNumbers are the signals signal() accepts by name.
var signalNumbers = map[string]int{
	"SIGHUP": 1, "SIGINT": 2, "SIGQUIT": 3, "SIGILL": 4, "SIGTRAP": 5, "SIGABRT": 6,
	"SIGBUS": 7, "SIGFPE": 8, "SIGKILL": 9, "SIGUSR1": 10, "SIGSEGV": 11, "SIGUSR2": 12,
	"SIGPIPE": 13, "SIGALRM": 14, "SIGTERM": 15, "SIGCHLD": 17, "SIGCONT": 18,
	"SIGSTOP": 19, "SIGTSTP": 20, "SIGTTIN": 21, "SIGTTOU": 22, "SIGURG": 23,
	"SIGXCPU": 24, "SIGXFSZ": 25, "SIGVTALRM": 26, "SIGPROF": 27, "SIGWINCH": 28,
	"SIGIO": 29, "SIGPWR": 30, "SIGSYS": 31,
}

func checkSignal(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 1) {
		return nil
	}
	if lit, ok := e.Args[0].(*ast.StrLit); ok {
		name := lit.Value
		if !strings.HasPrefix(name, "SIG") {
			name = "SIG" + name
		}
		n, ok := signalNumbers[name]
		if !ok {
			c.errorf(lit.Pos(), "unknown signal %q", lit.Value)
			return nil
		}
		c.expr(lit)
		c.info.Consts[lit] = Const{Int: uint64(n)}
		return types.VoidT
	}
	if c.intArg(e, 0) == nil {
		return nil
	}
	return types.VoidT
}

func checkStrlen(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 1) {
		return nil
	}
	if t := c.expr(e.Args[0]); t == nil {
		return nil
	} else if t.Kind != types.String {
		c.errorf(e.Args[0].Pos(), "strlen() needs a string, not %s", t)
		return nil
	}
	return types.Uint64
}

func checkStrncmp(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 3, 3) {
		return nil
	}
	for i := 0; i < 2; i++ {
		if t := c.expr(e.Args[i]); t == nil {
			return nil
		} else if t.Kind != types.String {
			c.errorf(e.Args[i].Pos(), "strncmp() needs strings, not %s", t)
			return nil
		}
	}
	if n, ok := c.constInt(e, 2); !ok {
		return nil
	} else if n < 0 {
		c.errorf(e.Args[2].Pos(), "strncmp() length must not be negative")
		return nil
	}
	return types.Int64
}

func checkBswap(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 1) {
		return nil
	}
	t := c.intArg(e, 0)
	if t == nil {
		return nil
	}
	size := t.Size
	if t.Kind == types.Bool {
		size = 1
	}
	return types.NewInt(size, false)
}

// checkAddrFunc types ksym(addr), kptr(p) and uptr(p).
func checkAddrFunc(k types.Kind) func(*checker, *ast.Call) *types.Type {
	return func(c *checker, e *ast.Call) *types.Type {
		if !c.wantArgs(e, 1, 1) {
			return nil
		}
		t := c.expr(e.Args[0])
		if t == nil {
			return nil
		}
		if !t.IsInt() && t.Kind != types.Pointer {
			c.errorf(e.Args[0].Pos(), "%s() needs an address, not %s", e.Name, t)
			return nil
		}
		if k == types.Ksym {
			return &types.Type{Kind: types.Ksym, Size: 8}
		}
		as := types.Kernel
		if e.Name == "uptr" {
			as = types.User
		}
		if t.Kind == types.Pointer {
			cp := *t
			cp.AS = as
			return &cp
		}
		return &types.Type{Kind: types.Pointer, Size: 8, Elem: types.Uint8, AS: as}
	}
}

// taskLayout looks up the task_struct members ppid and pcomm read.
func (c *checker) taskLayout() (TaskLayout, error) {
	spec, err := c.env.BTF()
	if err != nil || spec == nil {
		return TaskLayout{}, fmt.Errorf("no BTF: %v", err)
	}
	var ts *btf.Struct
	if err := spec.TypeByName("task_struct", &ts); err != nil {
		return TaskLayout{}, err
	}
	var l TaskLayout
	for _, m := range []struct {
		name string
		off  *int
	}{{"real_parent", &l.RealParent}, {"tgid", &l.Tgid}, {"group_leader", &l.GroupLeader}, {"comm", &l.Comm}} {
		f, _, err := findMember(ts, m.name)
		if err != nil {
			return TaskLayout{}, fmt.Errorf("task_struct.%s: %w", m.name, err)
		}
		*m.off = f.Offset
	}
	c.prog.Task = l
	return l, nil
}

// checkStrftime types strftime(fmt, nsecs): a timestamp rendered in user
// space with the format.
func checkStrftime(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 2, 2) {
		return nil
	}
	lit, ok := e.Args[0].(*ast.StrLit)
	if !ok {
		c.errorf(e.Args[0].GetSpan().Start, "strftime() format must be a string literal")
		return nil
	}
	c.expr(lit)
	if c.intArg(e, 1) == nil {
		return nil
	}
	return &types.Type{Kind: types.Timestamp, Size: 8, Name: lit.Value}
}

// checkGetopt resolves getopt("name"[, default[, description]]) to a
// constant from the named parameters (--name=value after the script).
// Without a default the parameter is a boolean flag.
func checkGetopt(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 3) {
		return nil
	}
	lit, ok := e.Args[0].(*ast.StrLit)
	if !ok {
		c.errorf(e.Args[0].GetSpan().Start, "getopt() needs the parameter name as a string literal")
		return nil
	}
	c.expr(lit)
	val, given := c.opts.NamedParams[lit.Value]
	if len(e.Args) == 1 {
		b := given && val != "false" && val != "0"
		c.info.Consts[e] = Const{Int: map[bool]uint64{false: 0, true: 1}[b]}
		return types.BoolT
	}
	def := e.Args[1]
	t := c.expr(def)
	if t == nil {
		return nil
	}
	dv, ok := c.info.Consts[def]
	if !ok {
		c.errorf(def.Pos(), "getopt() default must be a constant")
		return nil
	}
	if len(e.Args) == 3 {
		c.expr(e.Args[2])
	}
	switch {
	case !given:
		c.info.Consts[e] = dv
	case dv.IsStr:
		c.info.Consts[e] = Const{IsStr: true, Str: val}
		return types.NewString(len(val) + 1)
	case t.Kind == types.Bool:
		c.info.Consts[e] = Const{Int: map[bool]uint64{false: 0, true: 1}[val != "false" && val != "0"]}
	default:
		n, err := strconv.ParseInt(val, 0, 64)
		if err != nil {
			c.errorf(e.Pos(), "getopt(%q): --%s=%s is not an integer", lit.Value, lit.Value, val)
			return nil
		}
		c.info.Consts[e] = Const{Int: uint64(n)}
	}
	return t
}

// MaxStackFrames is the deepest stack kstack records (the kernel's
// PERF_MAX_STACK_DEPTH).
const MaxStackFrames = 127

// checkKstack types kstack([mode,] [limit]): a kernel stack printed with
// at most limit frames, in the mode's format (bpftrace, perf or raw).
func checkKstack(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 0, 2) {
		return nil
	}
	limit := int64(MaxStackFrames)
	mode := ""
	args := e.Args
	if len(args) > 0 {
		if id, ok := args[0].(*ast.Ident); ok && (id.Name == "bpftrace" || id.Name == "perf" || id.Name == "raw") {
			mode, args = id.Name, args[1:]
		}
	}
	if len(args) == 2 || (len(args) == 1 && len(e.Args) == 2 && mode == "") {
		c.errorf(e.Pos(), "%s() takes an optional mode (bpftrace, perf, raw) and an optional limit", e.Name)
		return nil
	}
	if len(args) == 1 {
		i := len(e.Args) - 1
		v, ok := c.constInt(e, i)
		if !ok {
			return nil
		}
		if v < 1 || v > MaxStackFrames {
			c.errorf(e.Args[i].Pos(), "%s() limit must be between 1 and %d", e.Name, MaxStackFrames)
			return nil
		}
		limit = v
	}
	return &types.Type{Kind: types.Stack, Size: 8, Name: "kstack", Len: int(limit), StackMode: mode}
}

// intFunc types a function of one integer whose value user space renders
// (strerror, syscall_name).
func intFunc(k types.Kind) func(*checker, *ast.Call) *types.Type {
	return func(c *checker, e *ast.Call) *types.Type {
		if !c.wantArgs(e, 1, 1) || c.intArg(e, 0) == nil {
			return nil
		}
		return &types.Type{Kind: k, Size: 8}
	}
}

// checkNtop types ntop([af,] addr): addr is an IPv4 address as an integer
// (network byte order, as loaded) or a 4- or 16-byte array.
func checkNtop(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 2) {
		return nil
	}
	if len(e.Args) == 2 && c.intArg(e, 0) == nil {
		return nil
	}
	addr := e.Args[len(e.Args)-1]
	t := c.expr(addr)
	if t == nil {
		return nil
	}
	switch {
	case t.IsInt():
	case (t.Kind == types.Array || t.Kind == types.String) && (t.Size == 4 || t.Size == 16):
	default:
		c.errorf(addr.Pos(), "ntop() needs an IPv4 address as an integer or a 4- or 16-byte array, not %s", t)
		return nil
	}
	return &types.Type{Kind: types.Inet, Size: 24}
}

// checkKaddr resolves kaddr("symbol") to the symbol's address at compile
// time.
func checkKaddr(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 1) {
		return nil
	}
	lit, ok := e.Args[0].(*ast.StrLit)
	if !ok {
		c.errorf(e.Args[0].GetSpan().Start, "kaddr() needs a symbol name as a string literal")
		return nil
	}
	c.expr(lit)
	sr, ok := c.env.(SymbolResolver)
	if !ok {
		c.errorf(e.Pos(), "kaddr() needs the kernel's symbols (/proc/kallsyms)")
		return nil
	}
	addr, err := sr.KernelSymbol(lit.Value)
	if err != nil {
		c.errorf(lit.Pos(), "kaddr(%q): %v", lit.Value, err)
		return nil
	}
	c.info.Consts[e] = Const{Int: addr}
	return types.Uint64
}

// probeType is the probetype builtin: the provider, "special" for BEGIN/END.
func probeType(provider string) string {
	if provider == "begin" || provider == "end" {
		return "special"
	}
	return provider
}

// MaxJoinArgs is how many array elements join() reads, as in bpftrace.
const MaxJoinArgs = 16

func checkJoin(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 2) {
		return nil
	}
	t := c.expr(e.Args[0])
	if t == nil {
		return nil
	}
	if t.Kind != types.Pointer && !t.IsInt() {
		c.errorf(e.Args[0].Pos(), "join() needs an array of strings (char **), not %s", t)
		return nil
	}
	if len(e.Args) == 2 {
		if _, ok := e.Args[1].(*ast.StrLit); !ok {
			c.errorf(e.Args[1].GetSpan().Start, "join() separator must be a string literal")
			return nil
		}
		c.expr(e.Args[1])
	}
	return types.VoidT
}

func checkLen(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 1) {
		return nil
	}
	if c.mapArg(e, 0) == nil {
		return nil
	}
	return types.Int64
}

// checkFind types find(@m, key, $var): like has_key, and copies the value
// into $var when found.
func checkFind(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 3, 3) {
		return nil
	}
	mt := c.mapWithKey(e)
	if mt == nil {
		return nil
	}
	if mt.Value == nil || mt.Value.IsAggregation() || mt.Keys == nil {
		c.errorf(e.Args[0].Pos(), "find() needs a keyed map of plain values")
		return nil
	}
	v, ok := e.Args[2].(*ast.Var)
	if !ok {
		c.errorf(e.Args[2].GetSpan().Start, "find() stores the value in a scratch variable such as $v")
		return nil
	}
	c.assignVar(v, mt.Value, "=", v.Pos())
	return types.BoolT
}

func checkMemcmp(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 3, 3) {
		return nil
	}
	for i := 0; i < 2; i++ {
		t := c.expr(e.Args[i])
		if t == nil {
			return nil
		}
		if !t.IsBuffer() {
			c.errorf(e.Args[i].Pos(), "memcmp() compares strings, arrays or tuples, not %s", t)
			return nil
		}
	}
	if n, ok := c.constInt(e, 2); !ok {
		return nil
	} else if n < 0 || int(n) > min(c.info.Types[e.Args[0]].Size, c.info.Types[e.Args[1]].Size) {
		c.errorf(e.Args[2].Pos(), "memcmp() count must be between 0 and the size of both operands")
		return nil
	}
	return types.Int64
}

// checkStrPair types strcontains(haystack, needle) and strstr.
func checkStrPair(result *types.Type) func(*checker, *ast.Call) *types.Type {
	return func(c *checker, e *ast.Call) *types.Type {
		if !c.wantArgs(e, 2, 2) {
			return nil
		}
		for i := 0; i < 2; i++ {
			t := c.expr(e.Args[i])
			if t == nil {
				return nil
			}
			if t.Kind != types.String {
				c.errorf(e.Args[i].Pos(), "%s() needs strings, not %s", e.Name, t)
				return nil
			}
		}
		return result
	}
}

// checkCgroupid resolves cgroupid("/sys/fs/cgroup/...") at compile time:
// the cgroup v2 id is the inode number of the cgroup's directory.
func checkCgroupid(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 1) {
		return nil
	}
	lit, ok := e.Args[0].(*ast.StrLit)
	if !ok {
		c.errorf(e.Args[0].GetSpan().Start, "cgroupid() needs a path as a string literal")
		return nil
	}
	c.expr(lit)
	ino, err := inodeOf(lit.Value)
	if err != nil {
		c.errorf(lit.Pos(), "cgroupid(%q): %v", lit.Value, err)
		return nil
	}
	c.info.Consts[e] = Const{Int: ino}
	return types.Uint64
}

func checkOverride(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 1) || c.intArg(e, 0) == nil {
		return nil
	}
	if p := c.probe.Provider(); p != "kprobe" {
		c.errorf(e.Pos(), "override() is only available in kprobe probes (it needs bpf_override_return and CONFIG_BPF_KPROBE_OVERRIDE)")
		return nil
	}
	return types.VoidT
}

// checkPath types path(struct path *[, size]) through bpf_d_path, which the
// kernel allows only in some fentry/fexit functions.
func checkPath(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 2) {
		return nil
	}
	if p := c.probe.Provider(); p != "fentry" && p != "fexit" {
		c.errorf(e.Pos(), "path() is only available in fentry and fexit probes (bpf_d_path, Linux 5.10+)")
		return nil
	}
	t := c.expr(e.Args[0])
	if t == nil {
		return nil
	}
	if t.Kind != types.Pointer {
		c.errorf(e.Args[0].Pos(), "path() needs a struct path pointer, not %s", t)
		return nil
	}
	size := c.opts.MaxStrlen
	if len(e.Args) == 2 {
		n, ok := c.constInt(e, 1)
		if !ok {
			return nil
		}
		if n > 0 && int(n) < size {
			size = int(n)
		}
	}
	return types.NewString(size)
}

// ustackType is the type of ustack: {stack id, pid}.
func ustackType(limit int) *types.Type {
	return &types.Type{Kind: types.Stack, Size: 16, Name: "ustack", Len: limit}
}

// checkUstack types ustack(limit).
func checkUstack(c *checker, e *ast.Call) *types.Type {
	t := checkKstack(c, e)
	if t == nil {
		return nil
	}
	ut := ustackType(t.Len)
	ut.StackMode = t.StackMode
	return ut
}

// checkUsym types usym(addr): an address of the current process, printed
// as its function name.
func checkUsym(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 1) {
		return nil
	}
	t := c.expr(e.Args[0])
	if t == nil {
		return nil
	}
	if !t.IsInt() && t.Kind != types.Pointer {
		c.errorf(e.Args[0].Pos(), "usym() needs an address, not %s", t)
		return nil
	}
	return &types.Type{Kind: types.Usym, Size: 16}
}

// checkUaddr resolves uaddr("symbol") in a uprobe's binary at compile
// time: the symbol's address in the ELF file (exact for non-PIE binaries).
func checkUaddr(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 1) {
		return nil
	}
	pt := c.probe.Points[0]
	if pt.Provider != "uprobe" && pt.Provider != "uretprobe" {
		c.errorf(e.Pos(), "uaddr() is only available in uprobe and uretprobe probes")
		return nil
	}
	lit, ok := e.Args[0].(*ast.StrLit)
	if !ok {
		c.errorf(e.Args[0].GetSpan().Start, "uaddr() needs a symbol name as a string literal")
		return nil
	}
	c.expr(lit)
	addr, err := elfSymbol(pt.Module, lit.Value)
	if err != nil {
		c.errorf(lit.Pos(), "uaddr(%q): %v", lit.Value, err)
		return nil
	}
	c.info.Consts[e] = Const{Int: addr}
	return &types.Type{Kind: types.Pointer, Size: 8, Elem: types.Uint64, AS: types.User}
}

// notYet refuses a function gotrace does not implement yet.
func notYet(what string) func(*checker, *ast.Call) *types.Type {
	return func(c *checker, e *ast.Call) *types.Type {
		c.errorf(e.Pos(), "%s is not supported yet", what)
		return nil
	}
}

// bufferType is the type of buf(): bytes printed with %r.
func bufferType(n int) *types.Type {
	return &types.Type{Kind: types.Array, Size: n, Len: n, Elem: types.Uint8, Name: "buffer"}
}

// checkBuf types buf(data[, length]): length bytes read from data (a
// pointer, an array or a string), at most max_strlen; the length must be
// a constant, or is the array's size.
func checkBuf(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 2) {
		return nil
	}
	t := c.expr(e.Args[0])
	if t == nil {
		return nil
	}
	n := 0
	switch {
	case len(e.Args) == 2:
		v, ok := c.constInt(e, 1)
		if !ok {
			return nil
		}
		n = int(v)
	case t.Kind == types.Array || t.Kind == types.String:
		n = t.Size
	default:
		c.errorf(e.Pos(), "buf() of %s needs a length", t)
		return nil
	}
	if t.Kind != types.Pointer && !t.IsInt() && t.Kind != types.Array && t.Kind != types.String {
		c.errorf(e.Args[0].Pos(), "buf() reads from a pointer or an array, not %s", t)
		return nil
	}
	if n <= 0 || n > c.opts.MaxStrlen {
		c.errorf(e.Pos(), "buf() length must be between 1 and max_strlen (%d)", c.opts.MaxStrlen)
		return nil
	}
	return bufferType(n)
}

// checkPton parses an IP address literal at compile time into its bytes
// (network byte order).
func checkPton(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 1) {
		return nil
	}
	lit, ok := e.Args[0].(*ast.StrLit)
	if !ok {
		c.errorf(e.Args[0].GetSpan().Start, "pton() needs an address as a string literal")
		return nil
	}
	c.expr(lit)
	addr, err := netip.ParseAddr(lit.Value)
	if err != nil {
		c.errorf(lit.Pos(), "pton(%q): not an IPv4 or IPv6 address", lit.Value)
		return nil
	}
	b := addr.AsSlice()
	c.info.Consts[e] = Const{IsStr: true, Str: string(b)}
	return &types.Type{Kind: types.Array, Size: len(b), Len: len(b), Elem: types.Uint8}
}

// checkMacaddr types macaddr(addr): six bytes printed as a MAC address.
func checkMacaddr(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 1) {
		return nil
	}
	t := c.expr(e.Args[0])
	if t == nil {
		return nil
	}
	if !(t.Kind == types.Pointer || t.IsInt() || (t.Kind == types.Array || t.Kind == types.String) && t.Size >= 6) {
		c.errorf(e.Args[0].Pos(), "macaddr() needs a pointer to or an array of 6 bytes, not %s", t)
		return nil
	}
	return &types.Type{Kind: types.MacAddr, Size: 8}
}

// checkStrConcat types str_concat(a, b): a string as large as both.
func checkStrConcat(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 2, 2) {
		return nil
	}
	size := 0
	for i := 0; i < 2; i++ {
		t := c.expr(e.Args[i])
		if t == nil {
			return nil
		}
		if t.Kind != types.String {
			c.errorf(e.Args[i].Pos(), "str_concat() needs strings, not %s", t)
			return nil
		}
		size += t.Size
	}
	return types.NewString(size)
}

// checkCgroupPath types cgroup_path(id[, filter]): the id is resolved to
// paths in user space when printed; filter is a wildcard over hierarchy
// names ("unified" for cgroup v2).
func checkCgroupPath(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 2) || c.intArg(e, 0) == nil {
		return nil
	}
	t := &types.Type{Kind: types.CgroupPath, Size: 8, Name: "*"}
	if len(e.Args) == 2 {
		lit, ok := e.Args[1].(*ast.StrLit)
		if !ok {
			c.errorf(e.Args[1].GetSpan().Start, "cgroup_path() filter must be a string literal")
			return nil
		}
		c.expr(lit)
		t.Name = lit.Value
	}
	return t
}

// MaxTseriesIntervals bounds tseries()'s number of intervals.
const MaxTseriesIntervals = 1000

// checkTseries types tseries(n, interval, num_intervals[, agg]).
func checkTseries(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 3, 4) {
		return nil
	}
	nt := c.intArg(e, 0)
	interval, ok1 := c.constInt(e, 1)
	n, ok2 := c.constInt(e, 2)
	if nt == nil || !ok1 || !ok2 {
		return nil
	}
	if interval <= 0 {
		c.errorf(e.Args[1].Pos(), "tseries() interval must be positive")
		return nil
	}
	if n <= 0 || n > MaxTseriesIntervals {
		c.errorf(e.Args[2].Pos(), "tseries() number of intervals must be between 1 and %d", MaxTseriesIntervals)
		return nil
	}
	agg := ""
	if len(e.Args) == 4 {
		lit, ok := e.Args[3].(*ast.StrLit)
		if !ok || (lit.Value != "avg" && lit.Value != "max" && lit.Value != "min" && lit.Value != "sum") {
			c.errorf(e.Args[3].GetSpan().Start, "tseries() aggregation must be \"avg\", \"max\", \"min\" or \"sum\"")
			return nil
		}
		c.expr(lit)
		agg = lit.Value
	}
	return &types.Type{Kind: types.Tseries, Size: 24, Signed: storageType(nt).Signed || nt.Kind == types.Bool, LStep: interval, Len: int(n), Name: agg}
}
