package sysnum

import "sync"

// Name returns the name of x86-64 syscall number nr.
func Name(nr int64) (string, bool) {
	if nr >= 0 && nr < int64(len(namesAMD64)) && namesAMD64[nr] != "" {
		return namesAMD64[nr], true
	}
	return "", false
}

// numbers maps syscall names to numbers.
var numbers = sync.OnceValue(func() map[string]int64 {
	m := make(map[string]int64, len(namesAMD64))
	for nr, name := range namesAMD64 {
		if name != "" {
			m[name] = int64(nr)
		}
	}
	return m
})

// Number returns the x86-64 syscall number of name.
func Number(name string) (int64, bool) {
	nr, ok := numbers()[name]
	return nr, ok
}
