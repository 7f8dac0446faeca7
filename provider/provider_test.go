package provider

import (
	"testing"
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
