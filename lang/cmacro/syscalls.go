package cmacro

import (
	"strings"
	"sync"
)

// SyscallName returns the name of x86-64 syscall number nr.
func SyscallName(nr int64) (string, bool) {
	if nr >= 0 && nr < int64(len(syscallNamesAMD64)) && syscallNamesAMD64[nr] != "" {
		return syscallNamesAMD64[nr], true
	}
	return "", false
}

// syscallNumbers maps syscall names to numbers.
var syscallNumbers = sync.OnceValue(func() map[string]int64 {
	m := make(map[string]int64, len(syscallNamesAMD64))
	for nr, name := range syscallNamesAMD64 {
		if name != "" {
			m[name] = int64(nr)
		}
	}
	return m
})

// syscallMacro is the value of __NR_name, the x86-64 syscall number.
func syscallMacro(macro string) (int64, bool) {
	name, ok := strings.CutPrefix(macro, "__NR_")
	if !ok {
		return 0, false
	}
	nr, ok := syscallNumbers()[name]
	return nr, ok
}
