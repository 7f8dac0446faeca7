package vm

import (
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// runGotrace runs gotrace with args to the end and returns its stdout; it
// fails the test on a non-zero exit or anything on stderr.
func runGotrace(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gotraceBin(t), args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("gotrace %q: %v\nstderr:\n%s", args, err, stderr.String())
	}
	return string(out)
}

// TestListVerbose: -lv of kprobes, kretprobes and trampolines in the
// format of bpftrace 0.27.1, which reads the same BTF: a kprobe's
// parameters as argN with their types, a kretprobe's retval alone, a
// trampoline always with its module and its parameters' own names, fexit
// with retval last; a pattern of several probes lists each.
func TestListVerbose(t *testing.T) {
	gotraceBin(t)
	for _, tc := range []struct{ pattern, want string }{
		{"kprobe:ksys_read", "kprobe:ksys_read\n    unsigned int arg0\n    char * arg1\n    size_t arg2\n"},
		{"kprobe:*:ksys_read", "kprobe:vmlinux:ksys_read\n    unsigned int arg0\n    char * arg1\n    size_t arg2\n"},
		{"kretprobe:ksys_read", "kretprobe:ksys_read\n    ssize_t retval\n"},
		{"fentry:vmlinux:ksys_read", "fentry:vmlinux:ksys_read\n    unsigned int fd\n    char * buf\n    size_t count\n"},
		{"fentry:ksys_read", "fentry:vmlinux:ksys_read\n    unsigned int fd\n    char * buf\n    size_t count\n"},
		{"fexit:ksys_read", "fexit:vmlinux:ksys_read\n    unsigned int fd\n    char * buf\n    size_t count\n    ssize_t retval\n"},
		{"kprobe:ksys_read,kretprobe:ksys_read", "kprobe:ksys_read\n    unsigned int arg0\n    char * arg1\n    size_t arg2\nkretprobe:ksys_read\n    ssize_t retval\n"},
	} {
		if got := runGotrace(t, "-lv", tc.pattern); got != tc.want {
			t.Errorf("-lv %s:\n%s\nwant:\n%s", tc.pattern, got, tc.want)
		}
	}
}

// TestListVerboseAll: -lv kprobe:* and -lv fentry:* list every traceable
// function, each on a line of its own followed by its parameters indented
// by four spaces, and nothing else; ksys_read is among them, with its
// parameters. Without -v the same functions are listed.
func TestListVerboseAll(t *testing.T) {
	gotraceBin(t)
	for _, tc := range []struct{ kind, name, block string }{
		{"kprobe", "kprobe:ksys_read", "kprobe:ksys_read\n    unsigned int arg0\n    char * arg1\n    size_t arg2\n"},
		{"fentry", "fentry:vmlinux:ksys_read", "fentry:vmlinux:ksys_read\n    unsigned int fd\n    char * buf\n    size_t count\n"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			verbose := runGotrace(t, "-lv", tc.kind+":*")
			if !strings.Contains(verbose, "\n"+tc.block) {
				t.Errorf("-lv %s:* lacks\n%s", tc.kind, tc.block)
			}
			line := regexp.MustCompile(`^(` + tc.kind + `:[A-Za-z0-9_.:]+|    [^ ].*)$`)
			var names []string
			for _, l := range strings.Split(strings.TrimSuffix(verbose, "\n"), "\n") {
				if !line.MatchString(l) {
					t.Fatalf("-lv %s:*: line %q is neither a probe nor a parameter", tc.kind, l)
				}
				if !strings.HasPrefix(l, " ") {
					names = append(names, l)
				}
			}
			plain := runGotrace(t, "-l", tc.kind+":*")
			if want := strings.Join(names, "\n") + "\n"; plain != want {
				t.Errorf("-l %s:* lists %d probes, -lv %d", tc.kind, strings.Count(plain, "\n"), len(names))
			}
			if len(names) < 10000 {
				t.Errorf("-lv %s:* lists %d functions, want the kernel's traceable ones (tens of thousands)", tc.kind, len(names))
			}
		})
	}
}

// TestInfoDPath: --info says whether the kernel has bpf_d_path by loading
// an fentry program that calls it where the kernel allows it (dentry_open),
// as bpftrace does: every Debian kernel the guests run has it.
func TestInfoDPath(t *testing.T) {
	gotraceBin(t)
	out := runGotrace(t, "--info")
	if !strings.Contains(out, "\n  dpath: yes\n") {
		t.Errorf("--info does not say dpath: yes:\n%s", out)
	}
}
