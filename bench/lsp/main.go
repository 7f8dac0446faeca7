// Command lsp measures the language server (`gotrace lsp`) as an editor
// sees it: it starts the server, opens a 300-line script (tracepoints with
// their fields, kprobes with BTF arguments, struct members through
// curtask), then times, over the protocol, the diagnostics published after
// each of n one-character edits and n completions of `args.` members, and
// reads the server's peak RSS (VmHWM), kernel BTF loaded.
//
//	go build -o gotrace ./cmd/gotrace && go run ./bench/lsp -gotrace ./gotrace -n 50
//
// The goals (issue 22): diagnostics after an edit within 50 ms, completion
// within 30 ms, RSS under 150 MB.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/gotrace/gotrace/internal/lspbench"
)

func main() {
	gotrace := flag.String("gotrace", "./gotrace", "the gotrace binary")
	n := flag.Int("n", 50, "edits and completions timed")
	settle = flag.Duration("settle", 3*time.Second, "pause after opening the script, before the timed edits")
	flag.Parse()
	if err := run(*gotrace, *n); err != nil {
		fmt.Fprintln(os.Stderr, "bench/lsp:", err)
		os.Exit(1)
	}
}

type client struct {
	conn  *jsonrpc2.Conn
	diags chan struct{}
}

var settle *time.Duration

func run(bin string, n int) error {
	ctx := context.Background()
	cmd := exec.Command(bin, "lsp")
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	defer cmd.Process.Kill()
	c := &client{diags: make(chan struct{}, 1024)}
	c.conn = jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(rwc{out, in}, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, r *jsonrpc2.Request) (any, error) {
			if r.Method == "textDocument/publishDiagnostics" {
				c.diags <- struct{}{}
			}
			return nil, nil
		}))
	var res json.RawMessage
	if err := c.conn.Call(ctx, "initialize", map[string]any{"capabilities": map[string]any{}}, &res); err != nil {
		return err
	}
	c.conn.Notify(ctx, "initialized", map[string]any{})

	src := lspbench.Script(300)
	uri := "file:///tmp/bench.bt"
	start := time.Now()
	c.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "bpftrace", "version": 1, "text": src}})
	<-c.diags
	fmt.Printf("script: %d lines; first diagnostics (kernel BTF and tracefs loaded): %v\n", strings.Count(src, "\n"), time.Since(start).Round(time.Millisecond))

	// The server lists the kernel's functions (for completion) in the
	// background once the first diagnostics are out, for a second or
	// two; the edits are timed after that, as a user reads before typing.
	time.Sleep(*settle)

	// Edits: a digit of a literal on line 5, changed back and forth.
	var edits []time.Duration
	for i := range n {
		start := time.Now()
		c.conn.Notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument": map[string]any{"uri": uri, "version": i + 2},
			"contentChanges": []map[string]any{{
				"range": map[string]any{"start": map[string]any{"line": 1, "character": 7}, "end": map[string]any{"line": 1, "character": 8}},
				"text":  fmt.Sprint(i % 10)}},
		})
		<-c.diags
		edits = append(edits, time.Since(start))
	}
	report("diagnostics after an edit", edits, 50*time.Millisecond)

	// Completions of args. members at the end of the script, in a
	// kprobe and a tracepoint being typed.
	var comps []time.Duration
	for i := range n {
		tail := "kprobe:vfs_read { $x = args."
		if i%2 == 1 {
			tail = "tracepoint:syscalls:sys_enter_openat { printf(\"%s\", str(args."
		}
		text := src + tail
		c.conn.Notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": n + i + 2},
			"contentChanges": []map[string]any{{"text": text}},
		})
		<-c.diags
		line := strings.Count(text, "\n")
		start := time.Now()
		var list struct {
			Items []struct{ Label string } `json:"items"`
		}
		err := c.conn.Call(ctx, "textDocument/completion", map[string]any{
			"textDocument": map[string]any{"uri": uri},
			"position":     map[string]any{"line": line, "character": len(tail)},
		}, &list)
		if err != nil {
			return err
		}
		comps = append(comps, time.Since(start))
		if len(list.Items) == 0 {
			return fmt.Errorf("completion of %q offered nothing", tail)
		}
	}
	report("completion of args. members", comps, 30*time.Millisecond)

	// Completing a kernel function walks every type of the kernel's BTF:
	// the RSS below is with all of it decoded.
	text := src + "kprobe:vfs_r"
	c.conn.Notify(ctx, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 3*n + 2},
		"contentChanges": []map[string]any{{"text": text}},
	})
	<-c.diags
	start = time.Now()
	var funcs struct {
		Items []struct{ Label string } `json:"items"`
	}
	if err := c.conn.Call(ctx, "textDocument/completion", map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"position":     map[string]any{"line": strings.Count(text, "\n"), "character": len("kprobe:vfs_r")},
	}, &funcs); err != nil {
		return err
	}
	fmt.Printf("completion of kprobe:vfs_r (all of BTF walked): %v, %d functions\n", time.Since(start).Round(time.Millisecond), len(funcs.Items))

	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		return err
	}
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmHWM:") || strings.HasPrefix(l, "VmRSS:") {
			fmt.Printf("server %s (goal: peak under 150 MB)\n", strings.Join(strings.Fields(l), " "))
		}
	}
	c.conn.Call(ctx, "shutdown", nil, nil)
	c.conn.Notify(ctx, "exit", nil)
	return nil
}

func report(what string, d []time.Duration, goal time.Duration) {
	slices.Sort(d)
	p := func(q float64) time.Duration {
		return d[min(len(d)-1, int(q*float64(len(d))))].Round(10 * time.Microsecond)
	}
	fmt.Printf("%s: median %v, p90 %v, max %v over %d (goal: %v)\n", what, p(0.5), p(0.9), d[len(d)-1].Round(10*time.Microsecond), len(d), goal)
}

// rwc is the server's stdout and stdin as one stream.
type rwc struct {
	r interface{ Read([]byte) (int, error) }
	w interface {
		Write([]byte) (int, error)
		Close() error
	}
}

func (s rwc) Read(p []byte) (int, error)  { return s.r.Read(p) }
func (s rwc) Write(p []byte) (int, error) { return s.w.Write(p) }
func (s rwc) Close() error                { return s.w.Close() }
