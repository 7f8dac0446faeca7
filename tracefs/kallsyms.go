package tracefs

import (
	"bufio"
	"bytes"
	"io"
)

// Kallsym is one line of the kernel's symbol table (/proc/kallsyms),
// "ADDR TYPE NAME" or "ADDR TYPE NAME\t[MODULE]". Its byte slices are valid
// only until ReadKallsyms's callback returns.
type Kallsym struct {
	addr   []byte
	Type   byte   // 't' or 'T' for text, 'w' or 'W' for weak symbols, ...
	Name   []byte // the symbol
	Module []byte // "[MODULE]" for a module's symbol, nil for vmlinux
}

// Addr returns the symbol's address: 0 when kptr_restrict hides addresses
// from the reader (not root, or kernel.kptr_restrict=2) or it is not hex.
func (k Kallsym) Addr() uint64 { return parseHex(k.addr) }

// ReadKallsyms calls fn with each well-formed line of the symbol table r,
// in order, until fn returns false; it is the one reader of
// /proc/kallsyms. The table has some 200,000 lines, and the emulated
// guests spend seconds on it: lines are parsed in place, and only what
// the callback keeps becomes a string.
func ReadKallsyms(r io.Reader, fn func(Kallsym) bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 256<<10), 1<<20)
	for sc.Scan() {
		addr, typ, name, module, ok := kallsymsLine(sc.Bytes())
		if !ok {
			continue
		}
		if !fn(Kallsym{addr: addr, Type: typ, Name: name, Module: module}) {
			break
		}
	}
	return sc.Err()
}

// kallsymsLine splits a line of /proc/kallsyms, "ADDR TYPE NAME" or
// "ADDR TYPE NAME\t[MODULE]"; ok is false for any other shape.
func kallsymsLine(line []byte) (addr []byte, typ byte, name, module []byte, ok bool) {
	addr, rest, found := bytes.Cut(line, []byte{' '})
	if !found || len(rest) < 3 || rest[1] != ' ' {
		return nil, 0, nil, nil, false
	}
	typ, rest = rest[0], rest[2:]
	i := bytes.IndexAny(rest, " \t")
	if i < 0 {
		return addr, typ, rest, nil, len(rest) > 0
	}
	name, module = rest[:i], bytes.TrimLeft(rest[i:], " \t")
	if len(name) == 0 || len(module) == 0 || bytes.ContainsAny(module, " \t") {
		return nil, 0, nil, nil, false
	}
	return addr, typ, name, module, true
}

// parseHex parses a kallsyms address; 0 for anything but hex digits.
func parseHex(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint64(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | uint64(c-'A'+10)
		default:
			return 0
		}
	}
	return v
}
