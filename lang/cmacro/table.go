package cmacro

import "sort"

// Macro is one integer-valued macro of the table.
type Macro struct {
	Name  string
	Value int64
}

// Lookup returns the value of a kernel or UAPI macro of the table, such as
// AF_INET (2) or TASK_RUNNING (0).
func Lookup(name string) (int64, bool) {
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
