package main

import (
	"strings"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
)

// script renders the session as a script that `gotrace FILE` runs
// unchanged: the C definitions, config, imports, macros and map
// declarations of every entry added (detached ones too: later entries may
// use them), then the probes of the live entries, each as it was typed.
func (r *replSession) script() string {
	r.mu.Lock()
	defs := append([]*replEntry(nil), r.defs...)
	live := map[*replEntry]bool{}
	for _, e := range r.entries {
		live[e] = true
	}
	r.mu.Unlock()
	var pre, imports, macros, decls, probes []string
	var config []*ast.ConfigEntry
	var configSrc []string
	for _, e := range defs {
		f, src := e.script.Parsed(), e.script.Source
		text := func(n srcpos.Spanned) string {
			sp := n.GetSpan()
			if sp.Start.Offset < 0 || sp.End.Offset > len(src) || sp.Start.Offset > sp.End.Offset {
				return ""
			}
			return strings.TrimSpace(src[sp.Start.Offset:sp.End.Offset])
		}
		for _, d := range f.Preamble {
			pre = append(pre, strings.TrimSpace(d.Text))
		}
		if f.Config != nil {
			for _, c := range f.Config.Entries {
				for i, old := range config {
					if old.Key == c.Key {
						config = append(config[:i], config[i+1:]...)
						configSrc = append(configSrc[:i], configSrc[i+1:]...)
						break
					}
				}
				config = append(config, c)
				configSrc = append(configSrc, text(c))
			}
		}
		for _, im := range f.Imports {
			imports = append(imports, text(im))
		}
		for _, m := range f.Macros {
			macros = append(macros, text(m))
		}
		for _, d := range f.MapDecls {
			decls = append(decls, text(d))
		}
		if live[e] {
			for _, p := range f.Probes {
				probes = append(probes, text(p))
			}
		}
	}
	var b strings.Builder
	b.WriteString("#!/usr/bin/env gotrace\n// Saved from a gotrace REPL session.\n")
	write := func(parts []string) {
		for _, p := range parts {
			if p == "" {
				continue
			}
			b.WriteString(p)
			if !strings.HasSuffix(p, ";") && !strings.HasSuffix(p, "}") && !strings.HasPrefix(p, "#") {
				b.WriteString(";")
			}
			b.WriteString("\n")
		}
	}
	write(pre)
	if len(configSrc) > 0 {
		b.WriteString("config = {\n")
		for _, c := range configSrc {
			b.WriteString("\t" + strings.TrimSuffix(c, ";") + ";\n")
		}
		b.WriteString("}\n")
	}
	write(imports)
	write(macros)
	write(decls)
	for _, p := range probes {
		b.WriteString("\n" + p + "\n")
	}
	return b.String()
}
