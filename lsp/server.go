package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/gotrace/gotrace"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/pretty"
)

// Server is the state of one language server session: the open documents
// and the environment they are checked against.
type Server struct {
	env     check.Env
	missing []missingCheck // the checks env cannot make

	mu   sync.Mutex
	docs map[string]*document

	namesOnce, warm sync.Once
	names           *btfNames
}

// NewServer returns a server checking scripts against env (a
// gotrace.KernelEnv for this machine's kernel).
func NewServer(env check.Env) *Server {
	if k, ok := env.(*gotrace.KernelEnv); ok {
		env = newKernelCache(k)
	}
	return &Server{env: env, docs: map[string]*document{}, missing: probeEnv(env)}
}

// Serve runs the protocol on rwc until the client exits or ctx ends.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	h := s.handler()
	conn := jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(rwc, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(func(ctx context.Context, c *jsonrpc2.Conn, r *jsonrpc2.Request) (any, error) {
			return dispatch(ctx, h, c, r)
		}))
	select {
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
		conn.Close()
	}
	return nil
}

// dispatch hands one request to glsp's protocol handler, which decodes its
// parameters and calls the server's method.
func dispatch(ctx context.Context, h *protocol.Handler, c *jsonrpc2.Conn, r *jsonrpc2.Request) (res any, err error) {
	// A bug answering one request must not end the session.
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: fmt.Sprintf("internal error: %v", p)}
		}
	}()
	gc := glsp.Context{
		Method: r.Method,
		Notify: func(method string, params any) { c.Notify(ctx, method, params) },
		Call:   func(method string, params, result any) { c.Call(ctx, method, params, result) },
	}
	if r.Params != nil {
		gc.Params = *r.Params
	}
	if r.Method == "exit" {
		return nil, c.Close()
	}
	var validMethod, validParams bool
	res, validMethod, validParams, err = h.Handle(&gc)
	switch {
	case !validMethod:
		if r.Notif {
			return nil, nil
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not supported: " + r.Method}
	case !validParams:
		msg := "invalid params"
		if err != nil {
			msg = err.Error()
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: msg}
	case err != nil:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: err.Error()}
	}
	return res, nil
}

func (s *Server) handler() *protocol.Handler {
	return &protocol.Handler{
		Initialize:  s.initialize,
		Initialized: func(*glsp.Context, *protocol.InitializedParams) error { return nil },
		Shutdown:    func(*glsp.Context) error { return nil },
		SetTrace:    func(*glsp.Context, *protocol.SetTraceParams) error { return nil },
		TextDocumentDidOpen: func(ctx *glsp.Context, p *protocol.DidOpenTextDocumentParams) error {
			s.update(ctx, p.TextDocument.URI, p.TextDocument.Text)
			return nil
		},
		TextDocumentDidChange: s.didChange,
		TextDocumentDidClose: func(ctx *glsp.Context, p *protocol.DidCloseTextDocumentParams) error {
			s.mu.Lock()
			delete(s.docs, p.TextDocument.URI)
			s.mu.Unlock()
			ctx.Notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: p.TextDocument.URI, Diagnostics: []protocol.Diagnostic{}})
			return nil
		},
		TextDocumentDidSave:    func(*glsp.Context, *protocol.DidSaveTextDocumentParams) error { return nil },
		TextDocumentCompletion: s.completion,
		TextDocumentHover:      s.hover,
		TextDocumentDefinition: s.definition,
		TextDocumentFormatting: s.formatting,
	}
}

func (s *Server) initialize(*glsp.Context, *protocol.InitializeParams) (any, error) {
	t := true
	full := protocol.TextDocumentSyncKindIncremental
	version := "0.1.0"
	return protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: protocol.TextDocumentSyncOptions{OpenClose: &t, Change: &full},
			CompletionProvider: &protocol.CompletionOptions{
				TriggerCharacters: []string{".", ">", ":", "@", "$"},
			},
			HoverProvider:              true,
			DefinitionProvider:         true,
			DocumentFormattingProvider: true,
		},
		ServerInfo: &protocol.InitializeResultServerInfo{Name: "gotrace", Version: &version},
	}, nil
}

func (s *Server) didChange(ctx *glsp.Context, p *protocol.DidChangeTextDocumentParams) error {
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	s.mu.Unlock()
	src := ""
	if d != nil {
		src = d.text.src
	}
	for _, ch := range p.ContentChanges {
		switch ch := ch.(type) {
		case protocol.TextDocumentContentChangeEventWhole:
			src = ch.Text
		case protocol.TextDocumentContentChangeEvent:
			t := newText(src)
			start, end := t.offset(ch.Range.Start), t.offset(ch.Range.End)
			if end < start {
				start, end = end, start
			}
			src = src[:start] + ch.Text + src[end:]
		}
	}
	s.update(ctx, p.TextDocument.URI, src)
	return nil
}

// update analyses a document's new text and publishes its diagnostics.
func (s *Server) update(ctx *glsp.Context, uri, src string) {
	d := s.analyze(uri, src)
	s.mu.Lock()
	s.docs[uri] = d
	s.mu.Unlock()
	ctx.Notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: uri, Diagnostics: d.diags})
	// The kernel's function names, for completion, are listed once the
	// first diagnostics are out.
	s.warm.Do(func() { go s.kernelNames() })
}

func (s *Server) doc(uri string) (*document, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[uri]
	if d == nil {
		return nil, fmt.Errorf("%s is not open", uri)
	}
	return d, nil
}

func (s *Server) formatting(_ *glsp.Context, p *protocol.DocumentFormattingParams) ([]protocol.TextEdit, error) {
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	out, err := pretty.Source(d.name, d.text.src)
	if err != nil {
		// The diagnostics say why; an editor formatting on save keeps
		// the text.
		return nil, nil
	}
	if out == d.text.src {
		return []protocol.TextEdit{}, nil
	}
	return []protocol.TextEdit{{
		Range:   protocol.Range{Start: protocol.Position{}, End: d.text.position(len(d.text.src))},
		NewText: out,
	}}, nil
}

// uriPath returns the file path of a file: URI, or "" for another scheme.
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

// fileURI returns the file: URI of a path.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// docName is the name a document is parsed under: its file's path, which
// its relative imports are found from.
func docName(uri string) string {
	if p := uriPath(uri); p != "" {
		return p
	}
	if i := strings.LastIndexByte(uri, '/'); i >= 0 {
		return uri[i+1:]
	}
	return uri
}

var _ = json.Marshal
