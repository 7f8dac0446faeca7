package lang

import "fmt"

// elfSymbol returns the address of a symbol (function or object) of an
// ELF file.
func (c *checker) elfSymbol(file, name string) (uint64, error) {
	h, err := c.hostFiles()
	if err != nil {
		return 0, err
	}
	syms, err := h.ELFSymbols(file)
	if err != nil {
		return 0, err
	}
	for _, s := range syms {
		if s.Name == name {
			return s.Value, nil
		}
	}
	return 0, fmt.Errorf("no symbol %s in %s", name, file)
}
