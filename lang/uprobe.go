package lang

import "fmt"

// elfSymbolInfo returns the symbol (function or object) name of an ELF
// file.
func (c *checker) elfSymbolInfo(file, name string) (ELFSymbol, error) {
	h, err := c.hostFiles()
	if err != nil {
		return ELFSymbol{}, err
	}
	syms, err := h.ELFSymbols(file)
	if err != nil {
		return ELFSymbol{}, err
	}
	for _, s := range syms {
		if s.Name == name {
			return s, nil
		}
	}
	return ELFSymbol{}, fmt.Errorf("no symbol %s in %s", name, file)
}
