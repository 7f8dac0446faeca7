package bisect

import (
	"errors"
	"slices"
	"testing"
)

type closer struct{ closed *int }

func (c closer) Close() error { *c.closed++; return nil }

// TestRefused finds the refused items of a set the kernel has just
// refused, keeps the others in order, closes every trial link and does
// not try the whole set again.
func TestRefused(t *testing.T) {
	refuse := map[int]bool{3: true, 7: true, 8: true}
	opened, closed, whole := 0, 0, 0
	try := func(items []int) (closer, error) {
		if len(items) == 9 {
			whole++
		}
		for _, i := range items {
			if refuse[i] {
				return closer{}, errors.New("refused")
			}
		}
		opened++
		return closer{&closed}, nil
	}
	var bad []int
	good := Refused([]int{1, 2, 3, 4, 5, 6, 7, 8, 9}, try, &bad)
	if want := []int{1, 2, 4, 5, 6, 9}; !slices.Equal(good, want) {
		t.Errorf("good %v, want %v", good, want)
	}
	if want := []int{3, 7, 8}; !slices.Equal(bad, want) {
		t.Errorf("bad %v, want %v", bad, want)
	}
	if whole != 0 {
		t.Errorf("the whole set was tried %d more times", whole)
	}
	if opened != closed {
		t.Errorf("%d trial links opened, %d closed", opened, closed)
	}
}
