package check

import (
	"fmt"

	"github.com/gotrace/gotrace/provider"
)

// elfSymbolInfo returns the symbol (function or object) name of an ELF
// file.
func (c *checker) elfSymbolInfo(file, name string) (provider.ELFSymbol, error) {
	h, err := c.hostFiles()
	if err != nil {
		return provider.ELFSymbol{}, err
	}
	syms, err := h.ELFSymbols(file)
	if err != nil {
		return provider.ELFSymbol{}, err
	}
	for _, s := range syms {
		if s.Name == name {
			return s, nil
		}
	}
	return provider.ELFSymbol{}, fmt.Errorf("no symbol %s in %s", name, file)
}
