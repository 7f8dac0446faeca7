package bisect

import (
	"io"
	"slices"
)

// Refused returns the items of items, which try has just refused
// together, that try accepts together, appending the ones it refuses to
// bad. The whole set is not tried again; every trial link is closed.
func Refused[T any, L io.Closer](items []T, try func([]T) (L, error), bad *[]T) []T {
	if len(items) == 1 {
		*bad = append(*bad, items[0])
		return nil
	}
	mid := len(items) / 2
	left := accepted(items[:mid], try, bad)
	right := accepted(items[mid:], try, bad)
	return append(slices.Clip(left), right...)
}

// accepted tries items together, and bisects them when try refuses them.
func accepted[T any, L io.Closer](items []T, try func([]T) (L, error), bad *[]T) []T {
	l, err := try(items)
	if err == nil {
		_ = l.Close()
		return items
	}
	return Refused(items, try, bad)
}
