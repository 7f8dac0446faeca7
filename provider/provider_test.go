package provider

import (
	"errors"
	"strings"
	"testing"

	"github.com/cilium/ebpf/btf"
)

// TestHooks fails when a supported provider lacks a hook every stage
// needs, or an unsupported one lacks its refusal.
func TestHooks(t *testing.T) {
	for _, p := range All() {
		if p.Name == "" {
			t.Errorf("provider without a name: %+v", p)
		}
		if !p.Supported() {
			if p.Expand != nil || p.Compile != nil || p.Attach != nil {
				t.Errorf("%s: unsupported (needs %s) but has hooks", p.Name, p.Needs)
			}
			if p.Refusal() == nil {
				t.Errorf("%s: no refusal", p.Name)
			}
			continue
		}
		if p.Expand == nil {
			t.Errorf("%s: no Expand hook", p.Name)
		}
		if p.Compile == nil {
			t.Errorf("%s: no Compile hook", p.Name)
		}
		if p.Attach == nil {
			t.Errorf("%s: no Attach hook", p.Name)
		}
		if p.UserArgs == nil {
			t.Errorf("%s: no UserArgs hook", p.Name)
		}
		if p.ProbeType == "" {
			t.Errorf("%s: no ProbeType", p.Name)
		}
		if p.List == nil && p.Phase == Attached {
			t.Errorf("%s: no List hook", p.Name)
		}
		if p.ListAll && p.List == nil {
			t.Errorf("%s: ListAll without a List hook", p.Name)
		}
	}
}

// TestNamesUnique checks that every name and alias selects one provider.
func TestNamesUnique(t *testing.T) {
	seen := map[string]string{}
	for _, p := range All() {
		for _, n := range append([]string{p.Name}, p.Aliases...) {
			if other, dup := seen[n]; dup {
				t.Errorf("%q names both %s and %s", n, other, p.Name)
			}
			seen[n] = p.Name
			if got := Lookup(n); got != p {
				t.Errorf("Lookup(%q) = %v, want %s", n, got, p.Name)
			}
		}
	}
	if Lookup("nosuch") != nil {
		t.Errorf("Lookup(nosuch) found a provider")
	}
}

// noKernel is an ExpandEnv with no tracepoints and no BTF.
type noKernel struct{}

func (noKernel) Tracepoints(string) ([]string, error) { return nil, nil }
func (noKernel) BTF() (*btf.Spec, error)              { return nil, errors.New("no BTF") }

// TestExpandOddParts: every provider's Expand answers an attach point of
// any shape with points or an error, never a panic ("u{}" gave uprobe no
// parts at all, and it indexed them; FuzzCheck found it).
func TestExpandOddParts(t *testing.T) {
	shapes := [][]string{nil, {}, {""}, {"", ""}, {"", "", ""}, {"", "", "", ""}, {"x"}, {"x", ""}, {"", "x"}, {"*"}, {"*", "*", "*"}}
	for _, p := range All() {
		if p.Expand == nil {
			continue
		}
		for _, parts := range shapes {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s: Expand(%q) panics: %v", p.Name, parts, r)
					}
				}()
				p.Expand(noKernel{}, p.Name+":"+strings.Join(parts, ":"), parts)
			}()
		}
	}
}
