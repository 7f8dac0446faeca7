package cmacro

import (
	"sort"
	"strings"
)

// Macro is one integer-valued macro of the table.
type Macro struct {
	Name  string
	Value int64
}

// Lookup returns the value of a kernel or UAPI macro of the table, such as
// AF_INET (2) or TASK_RUNNING (0), or of a syscall number (__NR_read).
func Lookup(name string) (int64, bool) {
	if v, ok := syscallMacro(name); ok {
		return v, true
	}
	i := sort.Search(len(table), func(i int) bool { return table[i].Name >= name })
	if i < len(table) && table[i].Name == name {
		return table[i].Value, true
	}
	return 0, false
}

// All returns the table, sorted by name.
func All() []Macro {
	return append([]Macro(nil), table[:]...)
}

// SystemHeader reports whether name, as in #include <name>, is a header of
// the system include directories gotrace stands in for: a file of Debian's
// linux-libc-dev or libc6-dev, or one under a top-level directory of those
// or of the kernel's include tree (so kernel-internal headers such as
// net/sock.h count).
func SystemHeader(name string) bool {
	key := name
	if dir, _, ok := strings.Cut(name, "/"); ok {
		key = dir + "/"
	}
	i := sort.SearchStrings(systemHeaders[:], key)
	return i < len(systemHeaders) && systemHeaders[i] == key
}
