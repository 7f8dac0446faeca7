package bisect

import (
	"io"
	"slices"
)

// Refused returns the items of items that try accepts together, appending
// the ones it refuses to bad. Every trial link is closed.
func Refused[T any, L io.Closer](items []T, try func([]T) (L, error), bad *[]T) []T {
	l, err := try(items)
	if err == nil {
		_ = l.Close()
		return items
	}
	if len(items) == 1 {
		*bad = append(*bad, items[0])
		return nil
	}
	mid := len(items) / 2
	left := Refused(items[:mid], try, bad)
	right := Refused(items[mid:], try, bad)
	return append(slices.Clip(left), right...)
}
