package check

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
)

// taskLayout looks up the task_struct members ppid and pcomm read.
func (c *checker) taskLayout() (builtin.TaskLayout, error) {
	spec, err := c.env.BTF()
	if err != nil || spec == nil {
		return builtin.TaskLayout{}, fmt.Errorf("no BTF: %v", err)
	}
	var ts *btf.Struct
	if err := spec.TypeByName("task_struct", &ts); err != nil {
		return builtin.TaskLayout{}, err
	}
	var l builtin.TaskLayout
	for _, m := range []struct {
		name string
		off  *int
	}{{"real_parent", &l.RealParent}, {"tgid", &l.Tgid}, {"group_leader", &l.GroupLeader}, {"comm", &l.Comm}} {
		f, _, err := findMember(ts, m.name)
		if err != nil {
			return builtin.TaskLayout{}, fmt.Errorf("task_struct.%s: %w", m.name, err)
		}
		*m.off = f.Offset
	}
	c.prog.Task = l
	return l, nil
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
		c.errorf(e.Args[0], "getopt() needs the parameter name as a string literal")
		return nil
	}
	c.expr(lit)
	if c.prog.Getopts == nil {
		c.prog.Getopts = map[string]string{}
	}
	if _, ok := c.prog.Getopts[lit.Value]; !ok {
		c.prog.Getopts[lit.Value] = ""
	}
	val, given := c.opts.NamedParams[lit.Value]
	if len(e.Args) == 1 {
		b := false
		if given {
			var ok bool
			if b, ok = parseOptBool(val); !ok {
				c.errorf(srcpos.Pos{}, "program command line option --%s expects a boolean (e.g. 'true') (value: %s)", lit.Value, val)
				return nil
			}
		}
		c.info.Consts[e] = builtin.Const{Int: map[bool]uint64{false: 0, true: 1}[b]}
		return types.BoolT
	}
	def := e.Args[1]
	t := c.expr(def)
	if t == nil {
		return nil
	}
	dv, ok := c.info.Consts[def]
	if !ok {
		c.errorf(def, "getopt() default must be a constant")
		return nil
	}
	if t.IsInt() && t.Kind != types.Bool {
		// As bpftrace: a non-negative integer default makes the parameter
		// a uint64, a negative one an int64.
		t = types.Uint64
		if int64(dv.Int) < 0 {
			t = types.Int64
		}
	}
	if len(e.Args) == 3 {
		c.expr(e.Args[2])
		if d, ok := e.Args[2].(*ast.StrLit); ok {
			c.prog.Getopts[lit.Value] = d.Value
		}
	}
	switch {
	case !given:
		c.info.Consts[e] = dv
	case dv.IsStr:
		c.info.Consts[e] = builtin.Const{IsStr: true, Str: val}
		return types.NewString(len(val) + 1)
	case t.Kind == types.Bool:
		b, ok := parseOptBool(val)
		if !ok {
			c.errorf(srcpos.Pos{}, "program command line option --%s expects a boolean (e.g. 'true') (value: %s)", lit.Value, val)
			return nil
		}
		c.info.Consts[e] = builtin.Const{Int: map[bool]uint64{false: 0, true: 1}[b]}
	default:
		// Decimal, 0x hex, 0b binary, 0 octal, with _ separators;
		// unsigned values up to 2^64-1.
		n, err := strconv.ParseInt(val, 0, 64)
		if err != nil {
			u, uerr := strconv.ParseUint(val, 0, 64)
			if uerr != nil {
				msg := "invalid integer"
				if errors.Is(err, strconv.ErrRange) {
					msg = "value is out of range"
				}
				c.errorf(srcpos.Pos{}, "program command line option --%s %s (value: %s)", lit.Value, msg, val)
				return nil
			}
			n = int64(u)
		}
		c.info.Consts[e] = builtin.Const{Int: uint64(n)}
	}
	return t
}

// parseOptBool reads a boolean named parameter as bpftrace does: 1, true,
// on, yes and 0, false, off, no, in any case.
func parseOptBool(s string) (value, ok bool) {
	switch strings.ToLower(s) {
	case "1", "true", "on", "yes":
		return true, true
	case "0", "false", "off", "no":
		return false, true
	}
	return false, false
}

// checkCgroupid resolves cgroupid("/sys/fs/cgroup/...") at compile time:
// the cgroup v2 id is the inode number of the cgroup's directory.
func checkCgroupid(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 1) {
		return nil
	}
	lit, ok := e.Args[0].(*ast.StrLit)
	if !ok {
		c.errorf(e.Args[0], "cgroupid() needs a path as a string literal")
		return nil
	}
	c.expr(lit)
	h, err := c.hostFiles()
	var ino uint64
	if err == nil {
		ino, err = h.Inode(lit.Value)
	}
	if err != nil {
		c.errorf(lit, "cgroupid(%q): %v", lit.Value, err)
		return nil
	}
	c.info.Consts[e] = builtin.Const{Int: ino}
	return types.Uint64
}

// checkPath types path(struct path *[, size]) through bpf_d_path, which the
// kernel allows only in some fentry/fexit functions.
func checkPath(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 2) {
		return nil
	}
	if !c.probe.Def().DPath {
		c.errorf(e, "path() is only available in fentry and fexit probes (bpf_d_path, Linux 5.10+)")
		return nil
	}
	t := c.expr(e.Args[0])
	if t == nil {
		return nil
	}
	switch {
	case t.Kind == types.Pointer:
	case t.Kind == types.Struct && t.Name == "struct path" && c.kernelAddressable(e.Args[0]):
		// a struct path in kernel memory (args.file.f_path): its address,
		// as bpftrace takes it
	case t.Kind == types.Struct && t.Name == "struct path":
		c.errorf(e.Args[0], "path() needs a struct path in kernel memory (a member reached through a pointer, such as args.file.f_path) or a pointer to one")
		return nil
	default:
		c.errorf(e.Args[0], "path() needs a struct path pointer, not %s", t)
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

// kernelAddressable reports whether the checked struct value e lives in
// kernel memory at an address code generation can compute without a read:
// a member of a struct reached through a pointer (p->m, args.file.f_path),
// *p, or an element of a kernel array.
func (c *checker) kernelAddressable(e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.Field:
		xt := c.info.TypeOf(x.X)
		if xt == nil {
			return false
		}
		if xt.Kind == types.Pointer {
			return xt.AS != types.User
		}
		return xt.Kind == types.Struct && xt.BTF != nil && c.kernelAddressable(x.X)
	case *ast.Unary:
		xt := c.info.TypeOf(x.X)
		return x.Op == "*" && xt != nil && xt.Kind == types.Pointer && xt.AS != types.User
	case *ast.Index:
		xt := c.info.TypeOf(x.X)
		if xt == nil {
			return false
		}
		if xt.Kind == types.Pointer {
			return xt.AS != types.User
		}
		return xt.Kind == types.Array && c.kernelAddressable(x.X)
	}
	return false
}

// returnLayout looks up, once, the members dw_ustack follows to the
// uretprobe return instances of the task (builtin.ReturnLayout); without
// them in the kernel's BTF the layout stays not OK.
func (c *checker) returnLayout() {
	if c.prog.Returns.OK || c.returnsLooked {
		return
	}
	c.returnsLooked = true
	spec, err := c.env.BTF()
	if err != nil || spec == nil {
		return
	}
	var l builtin.ReturnLayout
	for _, m := range []struct {
		typ, name string
		off       *int
	}{
		{"task_struct", "utask", &l.Utask},
		{"uprobe_task", "return_instances", &l.ReturnInstances},
		{"return_instance", "stack", &l.Stack},
		{"return_instance", "orig_ret_vaddr", &l.OrigRetVaddr},
		{"return_instance", "next", &l.Next},
	} {
		var st *btf.Struct
		if spec.TypeByName(m.typ, &st) != nil {
			return
		}
		f, _, err := findMember(st, m.name)
		if err != nil {
			return
		}
		*m.off = f.Offset
	}
	l.OK = true
	c.prog.Returns = l
}
