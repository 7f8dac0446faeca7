package lang

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

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
		c.errorf(e, "unknown function %s()", e.Name)
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
		c.errorf(e, "%s() takes %d argument%s, got %d", e.Name, lo, plural(lo), n)
	case hi < 0:
		c.errorf(e, "%s() takes at least %d argument%s, got %d", e.Name, lo, plural(lo), n)
	default:
		c.errorf(e, "%s() takes %d to %d arguments, got %d", e.Name, lo, hi, n)
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
		c.errorf(e.Args[i], "%s() argument %d must be an integer, not %s", e.Name, i+1, t)
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
		c.errorf(e.Args[i], "%s() argument %d must be a constant integer", e.Name, i+1)
		return 0, false
	}
	return int64(cv.Int), true
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

// unsafeFunc refuses a function with side effects unless --unsafe was given.
func unsafeFunc(check func(*checker, *ast.Call) *types.Type) func(*checker, *ast.Call) *types.Type {
	return func(c *checker, e *ast.Call) *types.Type {
		if !c.opts.Unsafe {
			c.errorf(e, "%s() is unsafe: it changes the traced system; run with --unsafe to allow it", e.Name)
			return nil
		}
		return check(c, e)
	}
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

// notYet refuses a function gotrace does not implement yet.
func notYet(what string) func(*checker, *ast.Call) *types.Type {
	return func(c *checker, e *ast.Call) *types.Type {
		c.errorf(e, "%s is not supported yet", what)
		return nil
	}
}
