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

// TestListingName checks the names -l with a program prints: BEGIN and END
// left out, timers and perf events without their period, trampolines with
// their module, the others as expanded.
func TestListingName(t *testing.T) {
	for _, c := range []struct {
		pt   Point
		want string
	}{
		{Point{Provider: "begin", Name: "begin"}, ""},
		{Point{Provider: "end", Name: "end"}, ""},
		{Point{Provider: "interval", Name: "interval:s:1"}, "interval:s:"},
		{Point{Provider: "profile", Name: "profile:hz:99"}, "profile:hz:"},
		{Point{Provider: "software", Name: "software:cpu-clock:1000"}, "software:cpu-clock:"},
		{Point{Provider: "hardware", Name: "hardware:cache-misses:100"}, "hardware:cache-misses:"},
		{Point{Provider: "fentry", Name: "fentry:vfs_read", Func: "vfs_read"}, "fentry:vmlinux:vfs_read"},
		{Point{Provider: "fexit", Name: "fexit:ext4:ext4_sync_fs", Module: "ext4", Func: "ext4_sync_fs"}, "fexit:ext4:ext4_sync_fs"},
		{Point{Provider: "tracepoint", Name: "tracepoint:sched:sched_switch"}, "tracepoint:sched:sched_switch"},
	} {
		got, listed := Lookup(c.pt.Provider).ListingName(&c.pt)
		if got != c.want || listed != (c.want != "") {
			t.Errorf("%s: listed as %q (%v), want %q", c.pt.Name, got, listed, c.want)
		}
	}
}
