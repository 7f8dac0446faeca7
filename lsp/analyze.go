package lsp

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/syntax"
	"github.com/gotrace/gotrace/provider"
)

// document is an open script and what the server knows of it.
type document struct {
	uri, name string
	text      *text
	// file is the tree of what parsed (broken items blanked; nil when
	// nothing did), prog the script checked as far as it went (nil when
	// file is).
	file  *ast.File
	prog  *check.Program
	diags []protocol.Diagnostic
}

// missingCheck is a check the environment cannot make, and why.
type missingCheck struct {
	what    string // "tracepoints and their fields", ...
	err     error
	tracefs bool // tracefs is unreadable: tracepoint probes are not checked
}

// probeEnv finds which of env's sources of kernel facts are unreadable:
// tracefs (tracepoint formats and lists), needing root on most machines,
// and the kernel's BTF.
func probeEnv(env check.Env) []missingCheck {
	var out []missingCheck
	tps, err := env.Tracepoints("*:*")
	if err == nil && len(tps) == 0 {
		err = errors.New("tracefs lists no tracepoints")
	}
	if err != nil {
		out = append(out, missingCheck{"tracepoints and their fields", err, true})
	}
	if _, err := env.BTF(); err != nil {
		out = append(out, missingCheck{"kernel types, functions and their arguments", err, false})
	}
	return out
}

// analyze parses (with recovery) and checks a document and makes its
// diagnostics.
func (s *Server) analyze(uri, src string) *document {
	d := &document{uri: uri, name: docName(uri), text: newText(src)}
	file, parsed, perrs := parseRecover(d.name, src)
	var errs, warns syntax.ErrorList
	errs = append(errs, perrs...)
	var tracepoints []srcpos.Span // the attach points of tracepoints
	if file != nil {
		prog, cerrs := analyzeFile(file, s.env)
		// An attach point that does not expand stops the checker before
		// the probes' bodies: the other probes are checked again
		// without those.
		if bad := attachErrors(file, cerrs); len(bad) > 0 && len(bad) < len(file.Probes) {
			t := newText(parsed)
			for _, p := range bad {
				parsed = blank(parsed, t.posOffset(p.Start), t.posOffset(p.End))
			}
			if f2, err := syntax.Parse(d.name, parsed); err == nil {
				prog2, cerrs2 := analyzeFile(f2, s.env)
				prog = cmp.Or(prog2, prog)
				cerrs = mergeErrors(cerrs, cerrs2)
			}
		}
		d.file, d.prog = file, prog
		errs = append(errs, cerrs...)
		if prog != nil {
			warns = prog.Warnings
		}
		for _, p := range file.Probes {
			for _, a := range p.Attach {
				if pr := provider.Lookup(strings.SplitN(a.Raw, ":", 2)[0]); pr != nil && pr.ArgsInCtx {
					tracepoints = append(tracepoints, a.Span)
				}
			}
		}
	}
	d.diags = []protocol.Diagnostic{}
	for _, e := range errs {
		if e.Pos.Src != nil {
			continue // in an imported file
		}
		sev, msg := protocol.DiagnosticSeverityError, e.Msg
		for _, m := range s.missing {
			onTracepoint := m.tracefs && slices.ContainsFunc(tracepoints, func(sp srcpos.Span) bool { return within(e.Pos, sp) })
			if onTracepoint || strings.Contains(msg, m.err.Error()) {
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

// attachErrors returns the probes with an error on an attach point.
func attachErrors(f *ast.File, errs syntax.ErrorList) []*ast.Probe {
	var out []*ast.Probe
	for _, p := range f.Probes {
		if slices.ContainsFunc(errs, func(e *syntax.Error) bool {
			return e.Pos.Src == nil && slices.ContainsFunc(p.Attach, func(a *ast.AttachPoint) bool { return within(e.Pos, a.Span) })
		}) {
			out = append(out, p)
		}
	}
	return out
}

// within reports whether p is in span sp (its end included).
func within(p srcpos.Pos, sp srcpos.Span) bool {
	after := func(a, b srcpos.Pos) bool { return a.Line > b.Line || a.Line == b.Line && a.Column >= b.Column }
	return after(p, sp.Start) && after(sp.End, p)
}

// mergeErrors adds to a the errors of b it does not have.
func mergeErrors(a, b syntax.ErrorList) syntax.ErrorList {
	seen := map[string]bool{}
	for _, e := range a {
		seen[e.Error()] = true
	}
	for _, e := range b {
		if !seen[e.Error()] {
			a = append(a, e)
		}
	}
	return a
}

// analyzeFile checks a parsed script. A panic of the checker becomes an
// error: the server outlives any script.
func analyzeFile(file *ast.File, env check.Env) (prog *check.Program, errs syntax.ErrorList) {
	defer func() {
		if r := recover(); r != nil {
			prog, errs = nil, syntax.ErrorList{{Pos: file.Start, Msg: fmt.Sprintf("internal error in the checker: %v", r)}}
		}
	}()
	return check.Analyze(file, env, check.Options{})
}

func diagnostic(t *text, sp srcpos.Span, sev protocol.DiagnosticSeverity, msg string) protocol.Diagnostic {
	source := "gotrace"
	return protocol.Diagnostic{Range: t.rangeOf(sp), Severity: &sev, Source: &source, Message: msg}
}
