package gotrace_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotrace/gotrace"
)

// attachments counts this process's perf events and BPF links, the file
// descriptors attaching a probe creates.
func attachments(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err != nil {
			continue
		}
		if strings.Contains(target, "[perf_event]") || strings.Contains(target, "bpf_link") {
			n++
		}
	}
	return n
}

// TestBeginExitAttachesNothing checks that a script whose BEGIN probe calls
// exit() attaches none of its other probes, and still runs END and prints
// what BEGIN printed; the same script without exit() attaches its
// tracepoint.
func TestBeginExitAttachesNothing(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("loading BPF needs root")
	}
	for _, tc := range []struct {
		name, begin string
		wantLinks   bool
	}{
		{"exit", `printf("begin\n"); exit();`, false},
		{"no exit", `printf("begin\n");`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "tracepoint:syscalls:sys_enter_openat { @ = count(); }\nBEGIN { " + tc.begin + " }\nEND { printf(\"end\\n\"); }\n"
			script, err := gotrace.Compile("begin.bt", src, gotrace.Options{})
			if err != nil {
				t.Fatal(gotrace.FormatError(err, src))
			}
			before := attachments(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var stdout, stderr bytes.Buffer
			links := -1
			code, err := script.Run(ctx, gotrace.RunOptions{
				Stdout: &stdout, Stderr: &stderr, NoSignals: true, NoExitMaps: true,
				Attached: func() {
					links = attachments(t) - before
					cancel()
				},
			})
			if err != nil || code != 0 {
				t.Fatalf("Run: code %d, %v; stderr:\n%s", code, err, stderr.String())
			}
			if got := links > 0; got != tc.wantLinks {
				t.Errorf("%d perf events and BPF links attached, want attached = %v", links, tc.wantLinks)
			}
			if got, want := stdout.String(), "begin\nend\n\n\n"; got != want {
				t.Errorf("stdout %q, want %q", got, want)
			}
			if got, want := stderr.String(), "Attached 3 probes\n"; got != want {
				t.Errorf("stderr %q, want %q", got, want)
			}
		})
	}
}
