package tracefs_test

import (
	"github.com/gotrace/gotrace/lang"
	"github.com/gotrace/gotrace/tracefs"
)

// Env is the checker's view of the machine.
var (
	_ lang.Env            = (*tracefs.Env)(nil)
	_ lang.FunctionLister = (*tracefs.Env)(nil)
)
