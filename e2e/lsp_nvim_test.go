package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gotrace/gotrace/internal/testbin"
)

// TestLSPNeovim drives `gotrace lsp` with a real client: Neovim, headless
// (Debian's neovim package; scripts/test.sh installs it). It checks the
// diagnostics' ranges, the completion of a kprobe's args from kernel BTF
// and of a tracepoint's fields, and a builtin's hover.
func TestLSPNeovim(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Skip("neovim is not installed (apt-get install neovim)")
	}
	if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err != nil {
		t.Skip("the kernel has no BTF")
	}
	bin, err := testbin.Gotrace()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"d.bt": "BEGIN { printf(\"%d\\n\", 1); $x = 1 + \"a\"; }\n",
		"k.bt": "kprobe:vfs_read { $x = args.",
		"t.bt": "tracepoint:syscalls:sys_enter_openat { printf(\"%s\", str(args.",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script, err := filepath.Abs("testdata/nvim/lsp.lua")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-c", "luafile "+script)
	cmd.Env = append(os.Environ(), "DIR="+dir, "OUT="+out, "GT="+bin, "HOME="+dir, "XDG_STATE_HOME="+dir, "XDG_DATA_HOME="+dir)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("nvim wrote no result: %v", err)
	}
	var res struct {
		Error       string
		Diagnostics []struct {
			Lnum, Col, Severity int
			EndLnum             int `json:"end_lnum"`
			EndCol              int `json:"end_col"`
			Message             string
		}
		Hover            string
		KprobeArgs       []string `json:"kprobe_args"`
		TracepointFields []string `json:"tracepoint_fields"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	// 1 + "a": line 1, columns 33-40 (1-based, end exclusive).
	if len(res.Diagnostics) != 1 {
		t.Fatalf("diagnostics: got %+v, want one", res.Diagnostics)
	}
	if d := res.Diagnostics[0]; d.Lnum != 0 || d.Col != 32 || d.EndLnum != 0 || d.EndCol != 39 || d.Severity != 1 || !strings.Contains(d.Message, "integer operands") {
		t.Errorf("diagnostic: got %+v, want an error at 0:32-0:39 (0-based) about integer operands", d)
	}
	if !strings.Contains(res.Hover, "printf(fmt: string, args...)") {
		t.Errorf("hover on printf: got %q", res.Hover)
	}
	for _, w := range []string{"file", "buf", "count", "pos"} {
		if !slices.Contains(res.KprobeArgs, w) {
			t.Errorf("kprobe:vfs_read args: %q not offered; got %v", w, res.KprobeArgs)
		}
	}
	for _, w := range []string{"filename", "flags", "dfd"} {
		if !slices.Contains(res.TracepointFields, w) {
			t.Errorf("sys_enter_openat args: %q not offered; got %v", w, res.TracepointFields)
		}
	}
}
