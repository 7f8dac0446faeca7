package ast

import "github.com/gotrace/gotrace/lang/srcpos"

// Node is implemented by every syntax tree node.
type Node interface {
	GetSpan() srcpos.Span
	Pos() srcpos.Pos
}

// File is a parsed script.
type File struct {
	srcpos.Span
	Name     string     // file name used in positions ("stdin" for one-liners)
	Src      string     // the full source text, for the source lines of errors
	Shebang  string     // "#!..." line, without the newline, if present
	Preamble []*CDef    // C definitions and preprocessor lines before the probes
	Config   *Config    // config = { ... } block, if present
	Imports  []*Import  // import "..."; declarations, before the probes
	Macros   []*Macro   // macro definitions
	MapDecls []*MapDecl // let @m = hash(n); declarations at top level
	Probes   []*Probe   // probes in source order
}

// CDef is a C definition or preprocessor line at the top of a script
// (struct/union/enum definitions, #include, #define), kept as raw text.
type CDef struct {
	srcpos.Span
	Text string
}

// Import is a top-level `import "path";`: in bpftrace 0.26, a script, a C
// header, a directory of them, a BPF C source or a package of its standard
// library (stdlib/task).
type Import struct {
	srcpos.Span
	Path string
}

// Config is a top-level `config = { key = value; ... }` block.
type Config struct {
	srcpos.Span
	Entries []*ConfigEntry
}

// ConfigEntry is one `key = value` of a config block.
type ConfigEntry struct {
	srcpos.Span
	Key   string
	Value Expr // *IntLit, *StrLit, *BoolLit or *Ident
}

// Macro is `macro name(params) { body }`.
type Macro struct {
	srcpos.Span
	Name   string
	Params []*MacroParam
	Body   *Block
}

// MacroParam is one macro parameter: `$x`, `@m` or a bare identifier.
type MacroParam struct {
	srcpos.Span
	Name string // including the sigil, e.g. "$x", "@m", "x"
}

// MapDecl is `let @name = kind(size);` at top level.
type MapDecl struct {
	srcpos.Span
	Name string // including the '@'
	Kind string // hash, lruhash, percpuhash, percpulruhash, percpuarray
	Args []Expr
}

// Probe is one probe: attach points, an optional predicate and a body.
type Probe struct {
	srcpos.Span
	Attach []*AttachPoint
	Pred   Expr // nil when absent
	Body   *Block
}

// AttachPoint is one attach point as written, e.g. "tracepoint:syscalls:sys_enter_openat".
// The checker splits Raw into provider and targets; the parser keeps it verbatim
// (with surrounding whitespace removed).
type AttachPoint struct {
	srcpos.Span
	Raw string
	// Name is the name a script gives the attach point before it
	// (name=kprobe:f, bpftrace 0.27), "" for none; Raw is without it.
	Name string
}

// Block is `{ stmts }`.
type Block struct {
	srcpos.Span
	Stmts []Stmt
}

// Stmt is a statement node.
type Stmt interface {
	Node
	stmt()
}

// ExprStmt is an expression used as a statement, usually a call.
type ExprStmt struct {
	srcpos.Span
	X Expr
}

// AssignStmt is `lhs op rhs`, where Op is "=" or a compound operator such as "+=".
// Lhs is a *Var, *MapRef, *Discard, or (issue 3) a field/index of a variable.
type AssignStmt struct {
	srcpos.Span
	Op  string
	Lhs Expr
	Rhs Expr
	// OpPos is where the operator starts (x += y: at +=); warnings about
	// the value x op y are placed from it to the end of y.
	OpPos srcpos.Pos
}

// IncDecStmt is `x++`, `x--`, `++x` or `--x` used as a statement.
type IncDecStmt struct {
	srcpos.Span
	Op     string // "++" or "--"
	Prefix bool
	X      Expr
}

// LetStmt is `let $x[: type] [= expr];`.
type LetStmt struct {
	srcpos.Span
	Var  *Var
	Type *TypeExpr // nil when absent
	Init Expr      // nil when absent
}

// IfStmt is `if (cond) { ... } else ...`; Else is nil, a *Block or an *IfStmt.
type IfStmt struct {
	srcpos.Span
	Cond Expr
	Then *Block
	Else Stmt
}

// ForRangeStmt is `for ($i : lo..hi) { ... }`.
type ForRangeStmt struct {
	srcpos.Span
	Var  *Var
	Lo   Expr
	Hi   Expr
	Body *Block
}

// ForMapStmt is `for ($kv : @map) { ... }`.
type ForMapStmt struct {
	srcpos.Span
	Var  *Var
	Map  *MapRef
	Body *Block
}

// WhileStmt is `while (cond) { ... }`.
type WhileStmt struct {
	srcpos.Span
	Cond Expr
	Body *Block
}

// UnrollStmt is `unroll(n) { ... }`.
type UnrollStmt struct {
	srcpos.Span
	Count Expr
	Body  *Block
}

// BranchStmt is `break` or `continue`.
type BranchStmt struct {
	srcpos.Span
	Tok string // "break" or "continue"
}

// ReturnStmt is `return [expr]`.
type ReturnStmt struct {
	srcpos.Span
	X Expr // nil when absent
}

// BlockStmt is a nested `{ ... }` block used as a statement.
type BlockStmt struct {
	srcpos.Span
	Body *Block
}

func (*ExprStmt) stmt()     {}
func (*AssignStmt) stmt()   {}
func (*IncDecStmt) stmt()   {}
func (*LetStmt) stmt()      {}
func (*IfStmt) stmt()       {}
func (*ForRangeStmt) stmt() {}
func (*ForMapStmt) stmt()   {}
func (*WhileStmt) stmt()    {}
func (*UnrollStmt) stmt()   {}
func (*BranchStmt) stmt()   {}
func (*ReturnStmt) stmt()   {}
func (*BlockStmt) stmt()    {}

// Expr is an expression node.
type Expr interface {
	Node
	expr()
}

// IntLit is an integer literal. Text is as written ("0x10", "1_000", "10ms").
// Value is the number without its duration suffix; the checker scales Suffix.
type IntLit struct {
	srcpos.Span
	Text   string
	Value  uint64
	Suffix string // duration suffix ("ns", "us", "ms", "s", "m", "h", "d") or ""
}

// StrLit is a string literal with escapes already decoded.
type StrLit struct {
	srcpos.Span
	Value string
}

// BoolLit is `true` or `false`.
type BoolLit struct {
	srcpos.Span
	Value bool
}

// Ident is a bare identifier: a builtin variable (pid, comm, args, ...),
// an enum constant, a type name inside sizeof, or a macro parameter.
type Ident struct {
	srcpos.Span
	Name string
}

// Var is a scratch variable `$name`.
type Var struct {
	srcpos.Span
	Name string // including the '$'
}

// PosParam is a positional parameter `$1`...`$N` (N>0) or `$#` (Index == -1).
type PosParam struct {
	srcpos.Span
	Index int
}

// MapRef is `@name` or `@name[k1, k2, ...]`. Name includes the '@' ("@" for the
// anonymous map). Keys is nil when no brackets were written.
type MapRef struct {
	srcpos.Span
	Name string
	Keys []Expr
}

// Discard is `_`, the left-hand side of `_ = expr`.
type Discard struct {
	srcpos.Span
}

// Call is `name(args...)`: a builtin function or a macro call.
type Call struct {
	srcpos.Span
	Name string
	Args []Expr
}

// Binary is `x op y`. Op is one of:
// || && | ^ & == != < <= > >= << >> + - * / %
type Binary struct {
	srcpos.Span
	Op string
	X  Expr
	Y  Expr
}

// Unary is `op x` for Op in ! ~ - * & (dereference and address-of), or
// `x++`/`x--`/`++x`/`--x` used inside an expression (Op "++"/"--", Postfix set).
type Unary struct {
	srcpos.Span
	Op      string
	X       Expr
	Postfix bool
}

// Ternary is `cond ? then : else`.
type Ternary struct {
	srcpos.Span
	Cond Expr
	Then Expr
	Else Expr
}

// Field is `x.name` or `x->name` (Arrow set). Name may be a number for tuple
// fields (`$t.0`).
type Field struct {
	srcpos.Span
	X     Expr
	Name  string
	Arrow bool
}

// Index is `x[i]`.
type Index struct {
	srcpos.Span
	X     Expr
	Index Expr
}

// Cast is `(type)x`.
type Cast struct {
	srcpos.Span
	Type *TypeExpr
	X    Expr
}

// Tuple is `(a, b, ...)` with at least two elements, or a record
// `(name=a, other=b)` when Names is non-nil.
type Tuple struct {
	srcpos.Span
	Elems []Expr
	Names []string // nil for tuples; one per element for records
}

// Paren is `(x)`. It is kept so that spans and dumps match the source.
type Paren struct {
	srcpos.Span
	X Expr
}

// BlockExpr is a block used as a value: `{ let $b = 1; $b }`. The value is
// the last statement, which must be an expression.
type BlockExpr struct {
	srcpos.Span
	Body *Block
}

// SizeofExpr is `sizeof(type)` or `sizeof(expr)`; exactly one of Type, X is set.
type SizeofExpr struct {
	srcpos.Span
	Type *TypeExpr
	X    Expr
}

// TypeArg is a type where an expression stands: `typeof(T)` or
// `typeof(expr)` as a macro's argument (bpftrace 0.27), for the macro to
// use its bare parameter as that type (sizeof(t), (t)x, let $v: t), with
// Type.Typeof set; or a type written as typeinfo()'s operand.
type TypeArg struct {
	srcpos.Span
	Type *TypeExpr
}

// OffsetofExpr is `offsetof(type, field[.field...])`.
type OffsetofExpr struct {
	srcpos.Span
	Type  *TypeExpr
	X     Expr // when the first operand is an expression instead of a type
	Field []string
}

func (*IntLit) expr()       {}
func (*StrLit) expr()       {}
func (*BoolLit) expr()      {}
func (*Ident) expr()        {}
func (*Var) expr()          {}
func (*PosParam) expr()     {}
func (*MapRef) expr()       {}
func (*Discard) expr()      {}
func (*Call) expr()         {}
func (*Binary) expr()       {}
func (*Unary) expr()        {}
func (*Ternary) expr()      {}
func (*Field) expr()        {}
func (*Index) expr()        {}
func (*Cast) expr()         {}
func (*Tuple) expr()        {}
func (*Paren) expr()        {}
func (*SizeofExpr) expr()   {}
func (*BlockExpr) expr()    {}
func (*OffsetofExpr) expr() {}
func (*TypeArg) expr()      {}

// TypeExpr is a type as written in a cast, sizeof, or let:
// `uint32`, `int8[8]`, `struct task_struct *`, `char **`, `bool`, `string`.
type TypeExpr struct {
	srcpos.Span
	Name     string // base name: "uint32", "struct task_struct", "union x", "enum y", "char", "unsigned long"
	Pointers int    // number of '*'
	ArrayLen int    // N in `[N]`, or 0 when not an array
	IsArray  bool   // true when `[N]` (or `[]`) was written
	// Typeof marks `typeof(T)` and `typeof(expr)`: Of is the expression
	// whose type is meant (Name is then ""), nil when a type was written.
	Typeof bool
	Of     Expr
}

// Unparen strips one level of parentheses: those of `if (c)`, `while (c)`
// and `unroll (n)`, which the grammar parses as any expression so that the
// parenthesis-free form of current bpftrace (`if $x > 1 { }`) also works
// (`if (a) + 1 { }` keeps its Binary), and those around an argument the
// checker wants as a literal.
func Unparen(x Expr) Expr {
	if p, ok := x.(*Paren); ok {
		return p.X
	}
	return x
}
