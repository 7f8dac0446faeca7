package lsp

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/gotrace/gotrace/lang"
	"github.com/gotrace/gotrace/lang/ast"
)

// document is an open script and what the server knows of it.
type document struct {
	uri, name string
	text      *text
	// file is the tree of what parsed (broken items blanked; nil when
	// nothing did), prog the script checked as far as it went (nil when
	// file is).
	file  *ast.File
	prog  *lang.Program
	diags []protocol.Diagnostic
}

// missingCheck is a check the environment cannot make, and why.
type missingCheck struct {
	what string // "tracepoint formats", "kernel BTF"
	err  error
}

// probeEnv finds which of env's sources of kernel facts are unreadable:
// tracefs (tracepoint formats and lists), needing root on most machines,
// and the kernel's BTF.
func probeEnv(env lang.Env) []missingCheck {
	var out []missingCheck
	if _, err := env.Tracepoints("sched:*"); err != nil {
		out = append(out, missingCheck{"tracepoints and their fields", err})
	}
	if _, err := env.BTF(); err != nil {
		out = append(out, missingCheck{"kernel types, functions and their arguments", err})
	}
	return out
}

// analyze parses (with recovery) and checks a document and makes its
// diagnostics.
func (s *Server) analyze(uri, src string) *document {
	d := &document{uri: uri, name: docName(uri), text: newText(src)}
	file, _, perrs := parseRecover(d.name, src)
	var errs, warns lang.ErrorList
	errs = append(errs, perrs...)
	if file != nil {
		prog, cerrs := analyzeFile(file, s.env, uriPath(uri))
		d.file, d.prog = file, prog
		errs = append(errs, cerrs...)
		if prog != nil {
			warns = prog.Warnings
		}
	}
	d.diags = []protocol.Diagnostic{}
	for _, e := range errs {
		if e.Pos.Src != nil {
			continue // in an imported file
		}
		sev, msg := protocol.DiagnosticSeverityError, e.Msg
		for _, m := range s.missing {
			if strings.Contains(msg, m.err.Error()) {
				sev = protocol.DiagnosticSeverityInformation
				msg = fmt.Sprintf("not checked: %s are unreadable here (%v)", m.what, m.err)
			}
		}
		if len(e.Hints) > 0 {
			msg += "\nHINT: " + strings.Join(e.Hints, "\nHINT: ")
		}
		d.diags = append(d.diags, diagnostic(d.text, e.Span(), sev, msg))
	}
	for _, w := range warns {
		if w.Pos.Src == nil {
			d.diags = append(d.diags, diagnostic(d.text, w.Span(), protocol.DiagnosticSeverityWarning, w.Msg))
		}
	}
	sort.SliceStable(d.diags, func(i, j int) bool {
		a, b := d.diags[i].Range.Start, d.diags[j].Range.Start
		return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
	})
	return d
}

// analyzeFile checks a parsed script. path is the script's file, which
// its relative imports are found from ("" when unknown). A panic of the
// checker becomes an error: the server outlives any script.
func analyzeFile(file *ast.File, env lang.Env, path string) (prog *lang.Program, errs lang.ErrorList) {
	defer func() {
		if r := recover(); r != nil {
			prog, errs = nil, lang.ErrorList{{Pos: file.Start, Msg: fmt.Sprintf("internal error in the checker: %v", r)}}
		}
	}()
	_ = path
	return lang.Analyze(file, env, lang.Options{})
}

func diagnostic(t *text, sp ast.Span, sev protocol.DiagnosticSeverity, msg string) protocol.Diagnostic {
	source := "gotrace"
	return protocol.Diagnostic{Range: t.rangeOf(sp), Severity: &sev, Source: &source, Message: msg}
}

var errNotFound = errors.New("not found")
