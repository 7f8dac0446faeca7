package ast

// Inspect traverses the tree rooted at n in depth-first order, calling f for
// each node; when f returns false the node's children are skipped.
func Inspect(n Node, f func(Node) bool) {
	if n == nil || isNilNode(n) || !f(n) {
		return
	}
	walk := func(c Node) { Inspect(c, f) }
	switch n := n.(type) {
	case *File:
		for _, p := range n.Probes {
			walk(p)
		}
		for _, m := range n.Macros {
			walk(m)
		}
	case *Macro:
		walk(n.Body)
	case *Probe:
		for _, a := range n.Attach {
			walk(a)
		}
		if n.Pred != nil {
			walk(n.Pred)
		}
		walk(n.Body)
	case *Block:
		for _, s := range n.Stmts {
			walk(s)
		}
	case *ExprStmt:
		walk(n.X)
	case *AssignStmt:
		walk(n.Lhs)
		walk(n.Rhs)
	case *IncDecStmt:
		walk(n.X)
	case *LetStmt:
		walk(n.Var)
		if n.Init != nil {
			walk(n.Init)
		}
	case *IfStmt:
		walk(n.Cond)
		walk(n.Then)
		if n.Else != nil {
			walk(n.Else)
		}
	case *ForRangeStmt:
		walk(n.Var)
		walk(n.Lo)
		walk(n.Hi)
		walk(n.Body)
	case *ForMapStmt:
		walk(n.Var)
		walk(n.Map)
		walk(n.Body)
	case *WhileStmt:
		walk(n.Cond)
		walk(n.Body)
	case *UnrollStmt:
		walk(n.Count)
		walk(n.Body)
	case *ReturnStmt:
		if n.X != nil {
			walk(n.X)
		}
	case *BlockStmt:
		walk(n.Body)
	case *MapRef:
		for _, k := range n.Keys {
			walk(k)
		}
	case *Call:
		for _, a := range n.Args {
			walk(a)
		}
	case *Binary:
		walk(n.X)
		walk(n.Y)
	case *Unary:
		walk(n.X)
	case *Ternary:
		walk(n.Cond)
		walk(n.Then)
		walk(n.Else)
	case *Field:
		walk(n.X)
	case *Index:
		walk(n.X)
		walk(n.Index)
	case *Cast:
		walk(n.X)
	case *Tuple:
		for _, e := range n.Elems {
			walk(e)
		}
	case *Paren:
		walk(n.X)
	case *BlockExpr:
		walk(n.Body)
	case *SizeofExpr:
		if n.X != nil {
			walk(n.X)
		}
	case *OffsetofExpr:
		if n.X != nil {
			walk(n.X)
		}
	case *TypeArg:
		if n.Type != nil && n.Type.Of != nil {
			walk(n.Type.Of)
		}
	}
}

// isNilNode reports whether n is a typed nil pointer.
func isNilNode(n Node) bool {
	switch n := n.(type) {
	case *Block:
		return n == nil
	case *Probe:
		return n == nil
	}
	return false
}
