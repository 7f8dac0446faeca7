package debuginfo

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
)

// DWARF attributes of GNU split DWARF (DWARF 4 with -gsplit-dwarf).
const (
	attrGNUDwoName  dwarf.Attr = 0x2130
	attrGNUDwoID    dwarf.Attr = 0x2131
	attrGNUAddrBase dwarf.Attr = 0x2133
)

// skeleton is a skeleton unit of the binary: where its split unit lives.
type skeleton struct {
	dwoName, compDir string
	id               uint64
	addrBase         int64
}

// splitUnits returns the DWARF of the split units that the skeleton units
// of d point to (-gsplit-dwarf): from the .dwp package next to the binary,
// else from each unit's .dwo file. It returns nil when d has no skeleton
// unit or none of their split units is found. Each split unit is one data
// set whose string offsets and addresses are rebased on the unit's
// contribution, since debug/dwarf resolves them from offset 0 in a unit
// without DW_AT_str_offsets_base and DW_AT_addr_base.
func splitUnits(ef *elf.File, path string, d *dwarf.Data) []*dwarf.Data {
	skels := skeletons(ef, d)
	if len(skels) == 0 {
		return nil
	}
	var addr []byte
	if s := ef.Section(".debug_addr"); s != nil {
		addr, _ = s.Data()
	}
	if pkg := dwpUnits(path+".dwp", skels, addr); len(pkg) > 0 {
		return pkg
	}
	var out []*dwarf.Data
	for _, sk := range skels {
		name := sk.dwoName
		cands := []string{name}
		if !filepath.IsAbs(name) {
			cands = []string{filepath.Join(sk.compDir, name), filepath.Join(filepath.Dir(path), name)}
		} else {
			cands = append(cands, filepath.Join(filepath.Dir(path), filepath.Base(name)))
		}
		for _, c := range cands {
			if _, err := os.Stat(c); err != nil {
				continue
			}
			if u := dwoUnit(c, sk, addr); u != nil {
				out = append(out, u)
				break
			}
		}
	}
	return out
}

// skeletons lists the skeleton units of d with their DWO ids.
func skeletons(ef *elf.File, d *dwarf.Data) []skeleton {
	var info []byte
	if s := ef.Section(".debug_info"); s != nil {
		info, _ = s.Data()
	}
	var out []skeleton
	r := d.Reader()
	for {
		cu, err := r.Next()
		if err != nil || cu == nil {
			break
		}
		r.SkipChildren()
		sk := skeleton{}
		name, _ := cu.Val(dwarf.AttrDwoName).(string)
		if name == "" {
			name, _ = cu.Val(attrGNUDwoName).(string)
		}
		if name == "" {
			continue
		}
		sk.dwoName = name
		sk.compDir, _ = cu.Val(dwarf.AttrCompDir).(string)
		if v, ok := cu.Val(dwarf.AttrAddrBase).(int64); ok {
			sk.addrBase = v
		} else if v, ok := cu.Val(attrGNUAddrBase).(int64); ok {
			sk.addrBase = v
		}
		if v, ok := cu.Val(attrGNUDwoID).(int64); ok {
			sk.id = uint64(v)
		} else if off := int(cu.Offset); off >= 8 && off <= len(info) {
			// DWARF 5: the id ends the 32-bit skeleton unit header
			sk.id = ef.ByteOrder.Uint64(info[off-8 : off])
		}
		out = append(out, sk)
	}
	return out
}

// sectionData returns the contents of the named section, or nil.
func sectionData(f *elf.File, name string) []byte {
	s := f.Section(name)
	if s == nil {
		return nil
	}
	b, err := s.Data()
	if err != nil {
		return nil
	}
	return b
}

// dwoUnit reads the split unit of a .dwo file.
func dwoUnit(file string, sk skeleton, addr []byte) *dwarf.Data {
	f, err := elf.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	return splitData(sectionData(f, ".debug_abbrev.dwo"), sectionData(f, ".debug_info.dwo"),
		sectionData(f, ".debug_str.dwo"), sectionData(f, ".debug_str_offsets.dwo"), sk, addr)
}

// splitData builds the data set of one split unit.
func splitData(abbrev, info, str, strOffsets []byte, sk skeleton, addr []byte) *dwarf.Data {
	if len(info) < 6 || abbrev == nil {
		return nil
	}
	version := binary.LittleEndian.Uint16(info[4:])
	if version >= 5 && len(strOffsets) >= 8 {
		strOffsets = strOffsets[8:] // the contribution's header
	}
	d, err := dwarf.New(abbrev, nil, nil, info, nil, nil, nil, str)
	if err != nil {
		return nil
	}
	if strOffsets != nil {
		if err := d.AddSection(".debug_str_offsets", strOffsets); err != nil {
			return nil
		}
	}
	if addr != nil && sk.addrBase >= 0 && int(sk.addrBase) <= len(addr) {
		if err := d.AddSection(".debug_addr", addr[sk.addrBase:]); err != nil {
			return nil
		}
	}
	return d
}

// dwpUnits reads the split units of the skeletons from a DWARF package,
// through its .debug_cu_index.
func dwpUnits(file string, skels []skeleton, addr []byte) []*dwarf.Data {
	f, err := elf.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	index := sectionData(f, ".debug_cu_index")
	abbrev, info := sectionData(f, ".debug_abbrev.dwo"), sectionData(f, ".debug_info.dwo")
	str, strOffsets := sectionData(f, ".debug_str.dwo"), sectionData(f, ".debug_str_offsets.dwo")
	rows := cuIndex(index)
	var out []*dwarf.Data
	for _, sk := range skels {
		row, ok := rows[sk.id]
		if !ok {
			continue
		}
		part := func(b []byte, id uint32) []byte {
			c, ok := row[id]
			if !ok || uint64(c.off)+uint64(c.size) > uint64(len(b)) {
				return nil
			}
			return b[c.off : c.off+c.size]
		}
		info5 := part(info, 1)
		abbrevID, strOffID := uint32(3), uint32(6)
		if u := splitData(part(abbrev, abbrevID), info5, str, part(strOffsets, strOffID), sk, addr); u != nil {
			out = append(out, u)
		}
	}
	return out
}

// contribution is a unit's part of one section of a DWARF package.
type contribution struct{ off, size uint32 }

// cuIndex parses a .debug_cu_index (DWARF 5, or the GNU version 2 of
// DWARF 4 packages: the section ids used here are the same): DWO id ->
// section id -> contribution.
func cuIndex(b []byte) map[uint64]map[uint32]contribution {
	out := map[uint64]map[uint32]contribution{}
	if len(b) < 16 {
		return out
	}
	le := binary.LittleEndian
	ncols, nunits, nslots := le.Uint32(b[4:]), le.Uint32(b[8:]), le.Uint32(b[12:])
	hashes := 16
	indexes := hashes + 8*int(nslots)
	offsets := indexes + 4*int(nslots)
	rowsOff := offsets + 4*int(ncols)
	sizes := rowsOff + 4*int(ncols)*int(nunits)
	if sizes+4*int(ncols)*int(nunits) > len(b) || ncols > 64 {
		return out
	}
	for s := 0; s < int(nslots); s++ {
		id := le.Uint64(b[hashes+8*s:])
		row := le.Uint32(b[indexes+4*s:])
		if row == 0 || row > nunits {
			continue
		}
		m := map[uint32]contribution{}
		for c := 0; c < int(ncols); c++ {
			sec := le.Uint32(b[offsets+4*c:])
			cell := 4 * ((int(row)-1)*int(ncols) + c)
			m[sec] = contribution{le.Uint32(b[rowsOff+cell:]), le.Uint32(b[sizes+cell:])}
		}
		out[id] = m
	}
	return out
}
