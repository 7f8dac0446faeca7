package preamble

import "github.com/gotrace/gotrace/lang/ast"

// mergeImports adds the probes, macros and map declarations of the
// imported scripts to file, the checker's clone of the script: those of
// the imported scripts first, each after the scripts it imports, so their
// BEGIN probes run first, as bpftrace runs an import's first; then the
// script's own. Their preambles are preprocessed after the script's
// (Preprocess), in the same order.
func (c *Preamble) mergeImports(file *ast.File) {
	var probes []*ast.Probe
	var macros []*ast.Macro
	var decls []*ast.MapDecl
	for _, u := range c.imported {
		if u.file == nil {
			continue
		}
		probes = append(probes, u.file.Probes...)
		macros = append(macros, u.file.Macros...)
		decls = append(decls, u.file.MapDecls...)
	}
	if probes == nil && macros == nil && decls == nil {
		return
	}
	file.Probes = append(probes, file.Probes...)
	file.Macros = append(macros, file.Macros...)
	file.MapDecls = append(decls, file.MapDecls...)
}

// lines returns the preamble lines of an imported file: an
// imported script's preprocessor lines and C definitions, or a header's.
// Its #includes are looked up from its own directory.
func (u *importUnit) lines() []pline {
	defs := u.defs
	if u.file != nil {
		defs = u.file.Preamble
	}
	lines := make([]pline, 0, len(defs))
	for _, d := range defs {
		lines = append(lines, pline{text: d.Text, def: d, pos: d.Pos(), dir: u.dir})
	}
	return lines
}
