package lsp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cilium/ebpf/btf"
	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/gotrace/gotrace/internal/hostfs"
	"github.com/gotrace/gotrace/internal/testbtf"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lsp"
	"github.com/gotrace/gotrace/tracefs"
)

// testEnv is the pinned kernel of the repository's tests (its BTF and a
// tracefs snapshot) with this machine's files (imports, uprobe targets).
func testEnv(t testing.TB) check.Env {
	return pinnedEnv{tracefs.NewEnv(filepath.Join("..", "testdata", "tracefs"), tracefs.WithBTF(testbtf.Spec(t))), hostfs.Files{}}
}

type pinnedEnv struct {
	*tracefs.Env
	hostfs.Files
}

// client is a language client talking to an in-process server.
type client struct {
	t     testing.TB
	conn  *jsonrpc2.Conn
	mu    sync.Mutex
	diags map[string]chan protocol.PublishDiagnosticsParams
}

func start(t testing.TB, env check.Env) *client {
	t.Helper()
	a, b := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	srv := lsp.NewServer(env)
	go srv.Serve(ctx, b)
	c := &client{t: t, diags: map[string]chan protocol.PublishDiagnosticsParams{}}
	c.conn = jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(a, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, r *jsonrpc2.Request) (any, error) {
			if r.Method == "textDocument/publishDiagnostics" && r.Params != nil {
				var p protocol.PublishDiagnosticsParams
				if err := json.Unmarshal(*r.Params, &p); err == nil {
					c.diagChan(p.URI) <- p
				}
			}
			return nil, nil
		}))
	t.Cleanup(func() {
		c.conn.Close()
		cancel()
	})
	var res protocol.InitializeResult
	c.call("initialize", protocol.InitializeParams{}, &res)
	if res.Capabilities.HoverProvider != true {
		t.Fatalf("initialize: no hover: %+v", res.Capabilities)
	}
	c.conn.Notify(ctx, "initialized", protocol.InitializedParams{})
	return c
}

func (c *client) diagChan(uri string) chan protocol.PublishDiagnosticsParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := c.diags[uri]
	if ch == nil {
		ch = make(chan protocol.PublishDiagnosticsParams, 16)
		c.diags[uri] = ch
	}
	return ch
}

func (c *client) call(method string, params, result any) {
	c.t.Helper()
	if err := c.conn.Call(context.Background(), method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// open opens a document and returns the diagnostics published for it.
func (c *client) open(uri, src string) []protocol.Diagnostic {
	c.t.Helper()
	c.conn.Notify(context.Background(), "textDocument/didOpen", protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: "bpftrace", Version: 1, Text: src}})
	return c.wait(uri)
}

func (c *client) wait(uri string) []protocol.Diagnostic {
	c.t.Helper()
	select {
	case p := <-c.diagChan(uri):
		return p.Diagnostics
	case <-time.After(time.Minute):
		c.t.Fatalf("no diagnostics for %s", uri)
	}
	return nil
}

// at returns the position of the first mark "|" in src and src without it.
func at(src string) (string, protocol.Position) {
	i := strings.Index(src, "|")
	before := src[:i]
	line := strings.Count(before, "\n")
	col := len(before) - strings.LastIndex(before, "\n") - 1
	return before + src[i+1:], protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(col)}
}

func (c *client) complete(uri, marked string) []string {
	c.t.Helper()
	src, pos := at(marked)
	c.open(uri, src)
	var list protocol.CompletionList
	c.call("textDocument/completion", protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: pos}}, &list)
	var labels []string
	for _, it := range list.Items {
		labels = append(labels, it.Label)
	}
	return labels
}

func (c *client) hover(uri, marked string) string {
	c.t.Helper()
	src, pos := at(marked)
	c.open(uri, src)
	var h *struct {
		Contents protocol.MarkupContent `json:"contents"`
	}
	c.call("textDocument/hover", protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: pos}}, &h)
	if h == nil {
		return ""
	}
	return h.Contents.Value
}

type diag struct {
	line, col, endCol int
	msg               string
}

func simplify(ds []protocol.Diagnostic) []diag {
	var out []diag
	for _, d := range ds {
		out = append(out, diag{int(d.Range.Start.Line) + 1, int(d.Range.Start.Character) + 1, int(d.Range.End.Character) + 1, d.Message})
	}
	return out
}

// TestDiagnostics: every check error of every probe, at the checker's
// spans, and the parse error of a probe being typed, which does not hide
// the others.
func TestDiagnostics(t *testing.T) {
	c := start(t, testEnv(t))
	src := `BEGIN { $x = 1 + "a"; }
tracepoint:syscalls:sys_enter_openat { printf("%d\n", args.nosuch); }
kprobe:vfs_read { $y = ;
`
	got := simplify(c.open("file:///tmp/d.bt", src))
	want := []struct {
		line, col, endCol int
		msg               string
	}{
		{1, 14, 21, "string"},
		{2, 55, 66, "nosuch"},
		{3, 24, 25, "expected expression"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d diagnostics, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.line != w.line || g.col != w.col || g.endCol != w.endCol || !strings.Contains(g.msg, w.msg) {
			t.Errorf("diagnostic %d: got %+v, want %+v", i, g, w)
		}
	}
	// An edit that fixes the script clears them.
	c.conn.Notify(context.Background(), "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": "file:///tmp/d.bt", "version": 2},
		"contentChanges": []map[string]any{{"text": "BEGIN { exit(); }\n"}},
	})
	if ds := c.wait("file:///tmp/d.bt"); len(ds) != 0 {
		t.Errorf("after the fix: %+v", simplify(ds))
	}
}

// TestIncrementalChange applies a ranged edit.
func TestIncrementalChange(t *testing.T) {
	c := start(t, testEnv(t))
	uri := "file:///tmp/inc.bt"
	c.open(uri, "BEGIN { $x = 1; }\n")
	c.conn.Notify(context.Background(), "textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []map[string]any{{
			"range": map[string]any{"start": map[string]any{"line": 0, "character": 13}, "end": map[string]any{"line": 0, "character": 14}},
			"text":  `"a" + 1`}},
	})
	ds := simplify(c.wait(uri))
	if len(ds) != 1 || ds[0].col != 14 {
		t.Fatalf("got %+v, want one error at column 14", ds)
	}
}

// unreadable is an environment whose tracefs cannot be read, as for a user
// without privileges.
type unreadable struct{ check.Env }

var errPerm = errors.New("tracefs: open /sys/kernel/tracing: permission denied")

func (unreadable) Tracepoints(string) ([]string, error) { return nil, errPerm }
func (unreadable) TracepointFormat(string, string) (*tracefs.Format, error) {
	return nil, errPerm
}

func TestUncheckable(t *testing.T) {
	c := start(t, unreadable{testEnv(t)})
	ds := c.open("file:///tmp/u.bt", "tracepoint:syscalls:sys_enter_openat { printf(\"%s\\n\", str(args.filename)); }\n")
	if len(ds) == 0 {
		t.Fatal("no diagnostic says the tracepoint was not checked")
	}
	for _, d := range ds {
		if *d.Severity != protocol.DiagnosticSeverityInformation || !strings.Contains(d.Message, "not checked: tracepoints") {
			t.Errorf("got %v %q, want information that the tracepoint was not checked", *d.Severity, d.Message)
		}
	}
}

func TestCompletion(t *testing.T) {
	c := start(t, testEnv(t))
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"providers", "kpro|", []string{"kprobe", "kretprobe", "tracepoint", "BEGIN"}},
		{"tracepoint categories", "tracepoint:sys|", []string{"syscalls", "sched"}},
		{"tracepoint events", "tracepoint:syscalls:sys_enter_op|", []string{"sys_enter_openat"}},
		{"kernel functions", "kprobe:vfs_r|", []string{"vfs_read"}},
		{"tracepoint fields", "tracepoint:syscalls:sys_enter_openat { printf(\"%s\", str(args.|", []string{"filename", "flags", "dfd"}},
		{"kprobe arguments from BTF", "kprobe:vfs_read { $x = args.|", []string{"file", "buf", "count", "pos"}},
		{"struct members", "BEGIN { $t = curtask; print($t->|", []string{"pid", "tgid", "comm"}},
		{"members of a member", "fentry:vfs_read { print(args.file->f_path.|", []string{"dentry", "mnt"}},
		{"uprobe symbols", "uprobe:/bin/bash:readl|", []string{"readline"}},
		{"builtins", "BEGIN { pri|", []string{"printf", "print", "pid", "comm"}},
		{"maps", "BEGIN { @count = 1; @other[1] = 2; print(@|", []string{"count", "other"}},
		{"variables", "BEGIN { $alpha = 1; $beta = 2; print($|", []string{"alpha", "beta"}},
		{"macros", "macro twice(x) { x * 2 }\nBEGIN { print(tw|", []string{"twice"}},
		{"config keys", "config = { max_|", []string{"max_strlen", "max_map_keys"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := c.complete("file:///tmp/c.bt", tc.src)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("%q is not offered; got %d items: %.300v", w, len(got), got)
				}
			}
		})
	}
}

// TestCompletionUSDT: after usdt:BINARY: the probes of the binary's USDT
// notes are offered, with and without their provider; after
// usdt:BINARY:PROVIDER: that provider's. The binary is the static test
// program of internal/usdt (probes notes:twelve and notes:sema).
func TestCompletionUSDT(t *testing.T) {
	bin, err := filepath.Abs(filepath.Join("..", "internal", "usdt", "testdata", "notes"))
	if err != nil {
		t.Fatal(err)
	}
	c := start(t, testEnv(t))
	for _, tc := range []struct {
		name, src   string
		want, never []string
	}{
		{"probes", "usdt:" + bin + ":|", []string{"notes:twelve", "notes:sema", "twelve", "sema"}, nil},
		{"by prefix", "usdt:" + bin + ":tw|", []string{"twelve"}, []string{"sema", "notes:sema"}},
		{"provider prefix", "usdt:" + bin + ":no|", []string{"notes:twelve", "notes:sema"}, nil},
		{"of a provider", "usdt:" + bin + ":notes:|", []string{"twelve", "sema"}, []string{"notes:twelve"}},
		{"other provider", "usdt:" + bin + ":other:|", nil, []string{"twelve", "sema"}},
		{"alias U", "BEGIN {}\nU:" + bin + ":notes:s|", []string{"sema"}, []string{"twelve"}},
		{"no such binary", "usdt:/no/such/binary:|", nil, []string{"twelve"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := c.complete("file:///tmp/usdt.bt", tc.src)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("%q is not offered; got %v", w, got)
				}
			}
			for _, n := range tc.never {
				if slices.Contains(got, n) {
					t.Errorf("%q is offered; got %v", n, got)
				}
			}
		})
	}
}

func TestHover(t *testing.T) {
	c := start(t, testEnv(t))
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"builtin function", "BEGIN { pri|ntf(\"%d\\n\", 1); }", []string{"printf(fmt: string, args...)", "Example"}},
		{"builtin variable", "BEGIN { $x = pi|d; }", []string{"pid: uint32"}},
		{"expression type", "BEGIN { $y = |(uint16)1; }", []string{"uint16"}},
		{"member", "fentry:vfs_read { $x = args.file->f_ino|de; }", []string{"f_inode", "offset"}},
		{"struct layout", "BEGIN { $t = (struct task_str|uct *)curtask; }", []string{"struct task_struct {", "pid;", "offset"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := c.hover("file:///tmp/h.bt", tc.src)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("hover lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestDefinition(t *testing.T) {
	c := start(t, testEnv(t))
	uri := "file:///tmp/def.bt"
	for _, tc := range []struct {
		name, src string
		line      int
	}{
		{"macro", "macro twice(x) { x * 2 }\nBEGIN { print(twi|ce(2)); }", 0},
		{"declared map", "let @m = hash(10);\nBEGIN { @m[1] = 1; }\nEND { print(@|m); }", 0},
		{"assigned map", "BEGIN { $x = 1;\n @m = 1; }\nEND { print(@|m); }", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, pos := at(tc.src)
			c.open(uri, src)
			var loc *protocol.Location
			c.call("textDocument/definition", protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: pos}}, &loc)
			if loc == nil || int(loc.Range.Start.Line) != tc.line {
				t.Fatalf("got %+v, want line %d", loc, tc.line)
			}
		})
	}
}

// TestImports: an imported file's macro is known, and go to definition
// on the import opens the file.
func TestImports(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib.bt")
	if err := os.WriteFile(lib, []byte("macro twice(x) { x * 2 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, testEnv(t))
	uri := "file://" + filepath.Join(dir, "main.bt")
	src, pos := at("import \"li|b.bt\";\nBEGIN { print(twice(2)); }\n")
	if ds := c.open(uri, src); len(ds) != 0 {
		t.Fatalf("diagnostics: %+v", simplify(ds))
	}
	var loc *protocol.Location
	c.call("textDocument/definition", protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: pos}}, &loc)
	if loc == nil || loc.URI != "file://"+lib {
		t.Fatalf("got %+v, want %s", loc, lib)
	}
}

func TestFormatting(t *testing.T) {
	c := start(t, testEnv(t))
	uri := "file:///tmp/f.bt"
	c.open(uri, "BEGIN { $x = 1 + 2 * 3; }")
	var edits []protocol.TextEdit
	c.call("textDocument/formatting", protocol.DocumentFormattingParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}}, &edits)
	if len(edits) != 1 || edits[0].NewText != "BEGIN\n{\n  $x = 1 + (2 * 3);\n}\n" {
		t.Fatalf("got %+v", edits)
	}
}

var _ = btf.Spec{}

// FuzzServer: completion, hover and definition anywhere in any text answer
// without ending the session.
func FuzzServer(f *testing.F) {
	f.Add("tracepoint:syscalls:sys_enter_openat { printf(\"%s\", str(args.", 60)
	f.Add("BEGIN { $t = curtask; print($t->", 30)
	f.Add("macro m(x) { x }\nBEGIN { m(", 25)
	env := testEnv(f)
	f.Fuzz(func(t *testing.T, src string, at int) {
		if len(src) > 4096 {
			return
		}
		c := start(t, env)
		uri := "file:///tmp/fuzz.bt"
		c.open(uri, src)
		line := strings.Count(src[:max(0, min(at, len(src)))], "\n")
		pos := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri},
			Position: protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(max(0, at%80))}}
		var list protocol.CompletionList
		c.call("textDocument/completion", protocol.CompletionParams{TextDocumentPositionParams: pos}, &list)
		var h json.RawMessage
		c.call("textDocument/hover", protocol.HoverParams{TextDocumentPositionParams: pos}, &h)
		c.call("textDocument/definition", protocol.DefinitionParams{TextDocumentPositionParams: pos}, &h)
	})
}
