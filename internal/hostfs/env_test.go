package hostfs

import (
	"github.com/gotrace/gotrace/lang/preamble"
)

// Files is the checker's ScriptFiles on the local file system; the
// package itself does not import lang.
var _ preamble.ScriptFiles = Files{}
