package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"maps"
	"slices"
)

// aotPayload is what an AOT binary carries (--aot): the script and the
// generation-time options that affect its compilation. Output options (-f,
// -o, -q, -v) are the binary's own, as in bpftrace; named parameters are
// given to it when it runs.
type aotPayload struct {
	// Name is the script's name in error positions: its file as given at
	// generation, or "stdin" for -e and stdin.
	Name, Source string
	// Params are the positional parameters given at generation: like
	// bpftrace, which compiles $1... into the program, the binary keeps
	// them (it refuses positional parameters of its own).
	Params []string
	Unsafe bool
	// IncludeDirs and Includes are -I and --include; the headers they
	// found are in Files.
	IncludeDirs, Includes []string
	// ConfigEnv holds the BPFTRACE_<CONFIG> variables of the generating
	// environment, and DummyTSMap its BPFTRACE_DUMMY_TS_MAP: the binary
	// compiles with these, not with its own environment's, as bpftrace's
	// binaries carry the config they were compiled with.
	ConfigEnv  map[string]string
	DummyTSMap string
	// ProbeFilter is --probe-filter, DebuginfoDirs are --debuginfo.
	ProbeFilter   string
	DebuginfoDirs []string
	// Files is what the compile read of the files the script names.
	Files *scriptFiles
}

// aotFormat is the version of the payload's encoding, its first field.
const aotFormat = 1

// The trailer ends an AOT binary, after the payload:
//
//	payload length  uint64, little endian
//	payload CRC-32  uint32, little endian (IEEE)
//	reserved        uint32, zero
//	aotMagic        16 bytes
//
// An executable whose last 16 bytes are not aotMagic is a plain gotrace
// (an ELF file ends with its section header table).
const trailerSize = 32

var aotMagic = []byte("\x7fGOTRACE-AOT\x00v1\x00")

// maxPayload bounds the payload read back: far above any script with its
// headers, and small enough that a damaged length fails cleanly.
const maxPayload = 256 << 20

// errCorrupt reports a payload that cannot be read back.
var errCorrupt = errors.New("corrupted AOT payload")

// trailer returns the trailer for payload.
func trailer(payload []byte) []byte {
	t := make([]byte, 16, trailerSize)
	binary.LittleEndian.PutUint64(t[0:], uint64(len(payload)))
	binary.LittleEndian.PutUint32(t[8:], crc32.ChecksumIEEE(payload))
	return append(t, aotMagic...)
}

// parseTrailer reads the trailer t of a file of size bytes. It returns
// ok false when t is no trailer (a plain gotrace binary), and an error
// when it is one whose payload cannot be in the file.
func parseTrailer(t []byte, size int64) (length uint64, sum uint32, ok bool, err error) {
	if len(t) != trailerSize || !bytes.Equal(t[16:], aotMagic) {
		return 0, 0, false, nil
	}
	length = binary.LittleEndian.Uint64(t[0:])
	sum = binary.LittleEndian.Uint32(t[8:])
	if binary.LittleEndian.Uint32(t[12:]) != 0 || length > maxPayload || int64(length) > size-trailerSize {
		return 0, 0, true, fmt.Errorf("%w: the trailer's length does not fit the file", errCorrupt)
	}
	return length, sum, true, nil
}

// checkPayload verifies a payload read back against its trailer's sum.
func checkPayload(payload []byte, sum uint32) error {
	if crc32.ChecksumIEEE(payload) != sum {
		return fmt.Errorf("%w: checksum mismatch", errCorrupt)
	}
	return nil
}

// encode serializes p: uvarint-prefixed strings and lists, in field
// order, map entries sorted by key.
func (p *aotPayload) encode() []byte {
	var e encoder
	e.uint(aotFormat)
	e.str(p.Name)
	e.str(p.Source)
	e.strs(p.Params)
	e.bool(p.Unsafe)
	e.strs(p.IncludeDirs)
	e.strs(p.Includes)
	e.strMap(p.ConfigEnv)
	e.str(p.DummyTSMap)
	e.str(p.ProbeFilter)
	e.strs(p.DebuginfoDirs)
	f := p.Files
	if f == nil {
		f = &scriptFiles{}
	}
	e.uint(uint64(len(f.Reads)))
	for _, k := range slices.Sorted(maps.Keys(f.Reads)) {
		e.str(k)
		e.bytes(f.Reads[k])
	}
	e.uint(uint64(len(f.Stats)))
	for _, k := range slices.Sorted(maps.Keys(f.Stats)) {
		s := f.Stats[k]
		e.str(k)
		e.str(s.name)
		e.int(s.size)
		e.uint(uint64(s.mode))
		e.int(s.modTime)
	}
	e.uint(uint64(len(f.Dirs)))
	for _, k := range slices.Sorted(maps.Keys(f.Dirs)) {
		e.str(k)
		e.uint(uint64(len(f.Dirs[k])))
		for _, d := range f.Dirs[k] {
			e.str(d.name)
			e.uint(uint64(d.typ))
		}
	}
	return e.b
}

// decodePayload reads back what encode wrote.
func decodePayload(b []byte) (*aotPayload, error) {
	d := &decoder{b: b}
	if v := d.uint(); d.err == nil && v != aotFormat {
		return nil, fmt.Errorf("%w: format %d, this gotrace reads %d", errCorrupt, v, aotFormat)
	}
	p := &aotPayload{}
	p.Name = d.str()
	p.Source = d.str()
	p.Params = d.strs()
	p.Unsafe = d.bool()
	p.IncludeDirs = d.strs()
	p.Includes = d.strs()
	p.ConfigEnv = d.strMap()
	p.DummyTSMap = d.str()
	p.ProbeFilter = d.str()
	p.DebuginfoDirs = d.strs()
	f := newScriptFiles()
	for n := d.count(); n > 0; n-- {
		k := d.str()
		f.Reads[k] = d.bytes()
	}
	for n := d.count(); n > 0; n-- {
		k := d.str()
		f.Stats[k] = fileStat{name: d.str(), size: d.int(), mode: fs.FileMode(d.uint()), modTime: d.int()}
	}
	for n := d.count(); n > 0; n-- {
		k := d.str()
		var entries []dirEntry
		for m := d.count(); m > 0; m-- {
			entries = append(entries, dirEntry{name: d.str(), typ: fs.FileMode(d.uint())})
		}
		f.Dirs[k] = entries
	}
	p.Files = f
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%w: %d bytes after the payload", errCorrupt, len(d.b))
	}
	if d.err != nil {
		return nil, d.err
	}
	return p, nil
}

type encoder struct{ b []byte }

func (e *encoder) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) int(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) bytes(p []byte) {
	e.uint(uint64(len(p)))
	e.b = append(e.b, p...)
}
func (e *encoder) str(s string) { e.bytes([]byte(s)) }
func (e *encoder) bool(v bool) {
	if v {
		e.uint(1)
	} else {
		e.uint(0)
	}
}
func (e *encoder) strs(ss []string) {
	e.uint(uint64(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}
func (e *encoder) strMap(m map[string]string) {
	e.uint(uint64(len(m)))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		e.str(k)
		e.str(m[k])
	}
}

// decoder reads an encoder's output; the first error sticks and makes
// every later read return zero values.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() { d.err, d.b = fmt.Errorf("%w: truncated", errCorrupt), nil }

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a length that must fit in what is left (every element takes
// at least a byte).
func (d *decoder) count() uint64 {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.fail()
		return 0
	}
	return n
}

func (d *decoder) bytes() []byte {
	n := d.count()
	if d.err != nil {
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

func (d *decoder) str() string { return string(d.bytes()) }

func (d *decoder) bool() bool {
	switch d.uint() {
	case 0:
		return false
	case 1:
		return true
	}
	if d.err == nil {
		d.err = fmt.Errorf("%w: bad boolean", errCorrupt)
	}
	return false
}

func (d *decoder) strs() []string {
	var ss []string
	for n := d.count(); n > 0; n-- {
		ss = append(ss, d.str())
	}
	return ss
}

func (d *decoder) strMap() map[string]string {
	m := map[string]string{}
	for n := d.count(); n > 0; n-- {
		k := d.str()
		m[k] = d.str()
	}
	return m
}
