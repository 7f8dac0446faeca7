package provider_test

import (
	"strings"
	"testing"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/internal/testbtf"
	"github.com/gotrace/gotrace/provider"
)

// btfEnv is an ExpandEnv with the pinned kernel BTF and no tracepoints.
type btfEnv struct{ spec *btf.Spec }

func (e btfEnv) Tracepoints(string) ([]string, error) { return nil, nil }
func (e btfEnv) BTF() (*btf.Spec, error)              { return e.spec, nil }

// TestExpandBTFWildcards expands wildcards through the BTF name index and
// checks that each match got the prototype decoded from its own type, as
// when every type was decoded.
func TestExpandBTFWildcards(t *testing.T) {
	spec := testbtf.Spec(t)
	env := btfEnv{spec}
	for _, tc := range []struct {
		provider, raw string
		parts         []string
		want          string // a point that must be among the matches
		args          int    // its prototype's parameter count
	}{
		{"fentry", "fentry:vfs_rea*", []string{"vfs_rea*"}, "fentry:vfs_read", 4},
		{"kprobe", "kprobe:vfs_read", []string{"vfs_read"}, "kprobe:vfs_read", 4},
		// cilium/ebpf's name index drops a "___" flavour suffix: these are
		// found through the raw name index.
		{"fentry", "fentry:___d_drop", []string{"___d_drop"}, "fentry:___d_drop", 1},
		{"kprobe", "kprobe:____fput", []string{"____fput"}, "kprobe:____fput", 1},
		{"rawtracepoint", "rawtracepoint:sched_sw*", []string{"sched_sw*"}, "rawtracepoint:sched_switch", 4},
		{"rawtracepoint", "rawtracepoint:sched_switch", []string{"sched_switch"}, "rawtracepoint:sched_switch", 4},
	} {
		pts, err := provider.Lookup(tc.provider).Expand(env, tc.raw, tc.parts)
		if err != nil {
			t.Errorf("%s: %v", tc.raw, err)
			continue
		}
		var names []string
		found := false
		for i, p := range pts {
			names = append(names, p.Name)
			if i > 0 && pts[i-1].Name >= p.Name {
				t.Errorf("%s: matches not sorted: %s before %s", tc.raw, pts[i-1].Name, p.Name)
			}
			if p.Name != tc.want {
				continue
			}
			found = true
			if p.FuncProto() == nil || len(p.FuncProto().Params) != tc.args {
				t.Errorf("%s: %s has prototype %v, want %d parameters", tc.raw, p.Name, p.FuncProto(), tc.args)
			}
		}
		if !found {
			t.Errorf("%s: %s not among %s", tc.raw, tc.want, strings.Join(names, " "))
		}
	}
	for _, raw := range []string{"fentry:no_such_function_*", "rawtracepoint:no_such_event"} {
		kind, rest, _ := strings.Cut(raw, ":")
		if _, err := provider.Lookup(kind).Expand(env, raw, []string{rest}); err == nil {
			t.Errorf("%s: no error", raw)
		}
	}
}

// TestLazyProto: a point's prototype is decoded from its BTF ID when it is
// first asked for, and a point set without one has none.
func TestLazyProto(t *testing.T) {
	var pt provider.Point
	if pt.FuncProto() != nil {
		t.Fatal("a new point has a prototype")
	}
	proto := &btf.FuncProto{Params: []btf.FuncParam{{Name: "a"}}}
	pt.SetProto(proto)
	if pt.FuncProto() != proto {
		t.Errorf("SetProto: got %v", pt.FuncProto())
	}
	pt.SetProto(nil)
	if pt.FuncProto() != nil {
		t.Errorf("SetProto(nil): got %v", pt.FuncProto())
	}
}
