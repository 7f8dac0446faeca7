package e2e

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/gotrace/gotrace/internal/testbin"
)

// TestLSPUnprivileged runs `gotrace lsp` as nobody: kernel BTF still checks
// a kprobe's arguments, and a tracepoint, whose format tracefs does not
// let nobody read, gets an information diagnostic that it was not checked.
func TestLSPUnprivileged(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the server as nobody")
	}
	if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err != nil {
		t.Skip("the kernel has no BTF")
	}
	bin, err := testbin.Gotrace()
	if err != nil {
		t.Fatal(err)
	}
	// A copy nobody can run.
	dir, err := os.MkdirTemp("", "gotrace-lsp-nobody")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	exe := filepath.Join(dir, "gotrace")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "lsp")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	cmd.Dir = dir
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	diags := make(chan json.RawMessage, 4)
	conn := jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(pipe{out, in}, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, r *jsonrpc2.Request) (any, error) {
			if r.Method == "textDocument/publishDiagnostics" && r.Params != nil {
				diags <- *r.Params
			}
			return nil, nil
		}))
	defer conn.Close()
	var res json.RawMessage
	if err := conn.Call(ctx, "initialize", map[string]any{"capabilities": map[string]any{}}, &res); err != nil {
		t.Fatal(err)
	}
	conn.Notify(ctx, "initialized", map[string]any{})
	src := "tracepoint:syscalls:sys_enter_openat { printf(\"%s\\n\", str(args.filename)); }\nkprobe:vfs_read { printf(\"%d\\n\", args.nosuch); }\n"
	conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": "file://" + filepath.Join(dir, "x.bt"), "languageId": "bpftrace", "version": 1, "text": src}})
	var p struct {
		Diagnostics []struct {
			Range struct {
				Start struct{ Line, Character int }
			}
			Severity int
			Message  string
		}
	}
	select {
	case raw := <-diags:
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("no diagnostics")
	}
	var info, nosuch bool
	for _, d := range p.Diagnostics {
		switch {
		case d.Range.Start.Line == 0 && d.Severity == 3 && strings.Contains(d.Message, "not checked: tracepoints"):
			info = true
		case d.Range.Start.Line == 1 && d.Severity == 1 && strings.Contains(d.Message, "nosuch"):
			nosuch = true
		default:
			t.Errorf("unexpected diagnostic %+v", d)
		}
	}
	if !info || !nosuch {
		t.Errorf("want the tracepoint not checked (information) and args.nosuch an error; got %+v", p.Diagnostics)
	}
}

// pipe is a child's stdout and stdin as one stream.
type pipe struct {
	io.Reader
	io.WriteCloser
}
