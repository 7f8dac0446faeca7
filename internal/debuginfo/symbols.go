package debuginfo

import "debug/elf"

// Symbols returns the symbols of the ELF file ef at path: its symbol
// table, or, when it is stripped (no .symtab), the symbol table of its
// separate debug file (found by .gnu_debuglink or build id in dirs and the
// standard places, as Open finds it; its addresses are the binary's), then
// its dynamic symbols. bcc and blazesym read a stripped binary's function
// names the same way.
func Symbols(ef *elf.File, path string, dirs []string) []elf.Symbol {
	var out []elf.Symbol
	if syms, err := ef.Symbols(); err == nil {
		out = append(out, syms...)
	} else if ef.Section(".symtab") == nil {
		out = append(out, debugSymbols(ef, path, dirs)...)
	}
	if syms, err := ef.DynamicSymbols(); err == nil {
		out = append(out, syms...)
	}
	return out
}

// debugSymbols is the symbol table of the separate debug file of ef.
func debugSymbols(ef *elf.File, path string, dirs []string) []elf.Symbol {
	for _, cand := range debugCandidates(ef, path, dirs) {
		df, err := elf.Open(cand)
		if err != nil {
			continue
		}
		syms, err := df.Symbols()
		ok := err == nil && sameBuild(ef, df)
		df.Close()
		if ok {
			return syms
		}
	}
	return nil
}
