package cmacro

import (
	"strings"

	"github.com/gotrace/gotrace/internal/sysnum"
)

// syscallMacro is the value of __NR_name, the x86-64 syscall number.
func syscallMacro(macro string) (int64, bool) {
	name, ok := strings.CutPrefix(macro, "__NR_")
	if !ok {
		return 0, false
	}
	return sysnum.Number(name)
}
