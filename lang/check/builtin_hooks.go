package check

import (
	"errors"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/provider"
)

// The checker is the builtin.Checker of the definitions in package
// builtin: the primitives below, and the checks of builtins written here.

var _ builtin.Checker = (*checker)(nil)

func (c *checker) Errorf(at srcpos.Spanned, format string, args ...any) {
	c.errorf(at, format, args...)
}
func (c *checker) Warnf(at srcpos.Spanned, format string, args ...any) {
	c.warnf(at, format, args...)
}
func (c *checker) Expr(e ast.Expr) *types.Type                   { return c.expr(e) }
func (c *checker) OwnType(e ast.Expr, t *types.Type) *types.Type { return c.ownType(e, t) }
func (c *checker) SetConst(e ast.Expr, v builtin.Const)          { c.info.Consts[e] = v }
func (c *checker) WantArgs(e *ast.Call, lo, hi int) bool         { return c.wantArgs(e, lo, hi) }
func (c *checker) IntArg(e *ast.Call, i int) *types.Type         { return c.intArg(e, i) }
func (c *checker) ConstInt(e *ast.Call, i int) (int64, bool)     { return c.constInt(e, i) }
func (c *checker) Provider() *provider.Provider                  { return c.probe.Def() }
func (c *checker) Points() []*provider.Point                     { return c.probe.Points }
func (c *checker) FuncsGrouped() bool                            { return c.probe.Grouped }
func (c *checker) Cpid() int                                     { return c.opts.Cpid }
func (c *checker) DwarfPids() []int                              { return c.prog.DwarfPids }
func (c *checker) UseReturnLayout()                              { c.returnLayout() }
func (c *checker) NCPUs() int                                    { return c.opts.NCPUs }
func (c *checker) MaxStrlen() int                                { return c.opts.MaxStrlen }
func (c *checker) TypeOf(e ast.Expr) *types.Type                 { return c.info.Types[e] }
func (c *checker) Unstable(at srcpos.Spanned, feature, option, def string) bool {
	return c.unstableFeature(at, feature, option, def)
}
func (c *checker) StackMode() string { return c.prog.Config.StackMode }

func (c *checker) TypeOperand(x ast.Expr) *types.Type {
	if ta, ok := x.(*ast.TypeArg); ok {
		t := c.resolveType(ta.Type)
		if t != nil {
			c.info.Types[x] = t
		}
		return t
	}
	t := c.expr(x)
	if t == nil {
		return nil
	}
	return c.ownType(x, t)
}

func (c *checker) ConstRecord(key string, at srcpos.Spanned, names []string, values []ast.Expr) *types.Type {
	tup := &ast.Tuple{Span: at.GetSpan(), Names: names, Elems: values}
	t := c.expr(tup)
	if t != nil {
		c.info.Records[key] = tup
	}
	return t
}

func (c *checker) BTF() (*btf.Spec, error) { return c.env.BTF() }

// Kfunc looks the kfunc name up in kernel BTF and records its ID for code
// generation (Program.Kfuncs).
func (c *checker) Kfunc(name string) error {
	spec, err := c.env.BTF()
	if err != nil {
		return err
	}
	if spec == nil {
		return errors.New("no kernel BTF")
	}
	var fn *btf.Func
	if err := spec.TypeByName(name, &fn); err != nil {
		return err
	}
	id, err := spec.TypeID(fn)
	if err != nil {
		return err
	}
	if c.prog.Kfuncs == nil {
		c.prog.Kfuncs = map[string]btf.TypeID{}
	}
	c.prog.Kfuncs[name] = id
	return nil
}

func (c *checker) Config() *types.Type { return c.configRecord() }

func (c *checker) ConstOf(e ast.Expr) (builtin.Const, bool) {
	cv, ok := c.info.Consts[e]
	return cv, ok
}

func (c *checker) TaskLayoutErr() error {
	_, err := c.taskLayout()
	return err
}

func (c *checker) CheckPrintf(e *ast.Call) *types.Type { return checkPrintf(c, e) }

func (c *checker) CheckStr(e *ast.Call) *types.Type { return checkStr(c, e) }

func (c *checker) CheckMapFunc(e *ast.Call) *types.Type { return checkMapFunc(c, e) }

func (c *checker) CheckPrint(e *ast.Call) *types.Type { return checkPrint(c, e) }

func (c *checker) CheckDelete(e *ast.Call) *types.Type { return checkDelete(c, e) }

func (c *checker) CheckHasKey(e *ast.Call) *types.Type { return checkHasKey(c, e) }

func (c *checker) CheckGetopt(e *ast.Call) *types.Type { return checkGetopt(c, e) }

func (c *checker) CheckKaddr(e *ast.Call) *types.Type { return checkKaddr(c, e) }

func (c *checker) CheckLen(e *ast.Call) *types.Type { return checkLen(c, e) }

func (c *checker) CheckFind(e *ast.Call) *types.Type { return checkFind(c, e) }

func (c *checker) CheckCgroupid(e *ast.Call) *types.Type { return checkCgroupid(c, e) }

func (c *checker) CheckPath(e *ast.Call) *types.Type { return checkPath(c, e) }

func (c *checker) CheckUaddr(e *ast.Call) *types.Type { return checkUaddr(c, e) }

// Imported reports whether the script imports the standard library file
// or package path (preamble.Preamble.Imported).
func (c *checker) Imported(path string) bool { return c.pre.Imported(path) }
