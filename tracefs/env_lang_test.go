package tracefs_test

import (
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/provider"
	"github.com/gotrace/gotrace/tracefs"
)

// Env is the checker's view of the machine.
var (
	_ check.Env               = (*tracefs.Env)(nil)
	_ provider.FunctionLister = (*tracefs.Env)(nil)
)
