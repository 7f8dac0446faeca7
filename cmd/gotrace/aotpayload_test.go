package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

func testPayload() *aotPayload {
	files := newScriptFiles()
	files.Reads["inc/a.h"] = []byte("#define A 1\n\x00\xff")
	files.Reads["empty.h"] = []byte{}
	files.Stats["/usr/include/x.h"] = fileStat{name: "x.h", size: 12, mode: 0o644, modTime: -5}
	files.Stats["lib"] = fileStat{name: "lib", mode: fs.ModeDir | 0o755, modTime: 1700000000123456789}
	files.Dirs["lib"] = []dirEntry{{name: "a.bt"}, {name: "sub", typ: fs.ModeDir}}
	return &aotPayload{
		Name: "x.bt", Source: "begin { printf(\"%s\\n\", $1); }\n\xfe not UTF-8",
		Params: []string{"one", ""}, Unsafe: true,
		IncludeDirs: []string{"inc", "/opt/inc"}, Includes: []string{"a.h"},
		ConfigEnv:  map[string]string{"max_strlen": "32", "stack_mode": "perf"},
		DummyTSMap: "@ts", ProbeFilter: ":200", DebuginfoDirs: []string{"/dbg"},
		Files: files,
	}
}

// TestPayloadRoundTrip: decode reads back exactly what encode wrote, bytes
// that are not UTF-8 included, and the encoding is deterministic.
func TestPayloadRoundTrip(t *testing.T) {
	for _, p := range []*aotPayload{testPayload(), {Files: newScriptFiles(), ConfigEnv: map[string]string{}}} {
		b := p.encode()
		got, err := decodePayload(b)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		if !reflect.DeepEqual(got, p) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, p)
		}
		if !bytes.Equal(p.encode(), b) {
			t.Errorf("two encodings of one payload differ")
		}
	}
}

// TestPayloadDecodeErrors: every truncation of a payload, trailing bytes,
// another format and junk are errors, never a panic.
func TestPayloadDecodeErrors(t *testing.T) {
	b := testPayload().encode()
	for n := 0; n < len(b); n++ {
		if _, err := decodePayload(b[:n]); !errors.Is(err, errCorrupt) {
			t.Fatalf("truncated to %d of %d bytes: err %v", n, len(b), err)
		}
	}
	if _, err := decodePayload(append(b[:len(b):len(b)], 0)); !errors.Is(err, errCorrupt) {
		t.Errorf("a trailing byte: err %v", err)
	}
	if _, err := decodePayload(append([]byte{aotFormat + 1}, b[1:]...)); !errors.Is(err, errCorrupt) {
		t.Errorf("another format: err %v", err)
	}
	// Huge lengths and counts.
	for _, junk := range [][]byte{
		{aotFormat, 0xff, 0xff, 0xff, 0xff, 0x0f},
		{aotFormat, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		bytes.Repeat([]byte{0x80}, 20),
	} {
		if _, err := decodePayload(junk); !errors.Is(err, errCorrupt) {
			t.Errorf("junk %x: err %v", junk, err)
		}
	}
}

// writeFile writes data to a new file in t's temporary directory.
func writeFile(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bin")
	if err := os.WriteFile(path, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadAOT: a file that ends with a trailer gives its payload back; a
// plain gotrace (this test binary), short files and garbage are no AOT
// binaries; a trailer whose payload is damaged or cannot fit is an error.
func TestReadAOT(t *testing.T) {
	exe := bytes.Repeat([]byte("\x7fELF plain executable "), 100)
	want := testPayload()
	payload := want.encode()
	aot := append(append(append([]byte(nil), exe...), payload...), trailer(payload)...)
	got, err := readAOT(writeFile(t, aot))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("readAOT: %+v, %v", got, err)
	}

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{
		"this test binary": self,
		"empty":            writeFile(t, nil),
		"short":            writeFile(t, aotMagic),
		"garbage":          writeFile(t, bytes.Repeat([]byte{0xa5}, 4096)),
		"missing":          filepath.Join(t.TempDir(), "none"),
		"a directory":      t.TempDir(),
	} {
		if p, err := readAOT(path); p != nil || err != nil {
			t.Errorf("%s: %+v, %v; want no payload", name, p, err)
		}
	}

	for name, data := range map[string][]byte{
		// The file lost bytes at its start: the length no longer fits.
		"truncated": aot[len(aot)-trailerSize-10:],
		// A byte of the payload changed.
		"damaged": func() []byte {
			d := append([]byte(nil), aot...)
			d[len(exe)+3] ^= 1
			return d
		}(),
		// A length past maxPayload.
		"huge": append(exe, func() []byte {
			tr := trailer(payload)
			copy(tr, []byte{0, 0, 0, 0, 0, 0, 0, 0x10})
			return tr
		}()...),
		// The reserved field is not zero.
		"reserved": func() []byte {
			d := append([]byte(nil), aot...)
			d[len(d)-trailerSize+12] = 1
			return d
		}(),
	} {
		if p, err := readAOT(writeFile(t, data)); p != nil || !errors.Is(err, errCorrupt) {
			t.Errorf("%s: %+v, %v; want errCorrupt", name, p, err)
		}
	}
}

// TestWriteAOT: the binary written is this executable with the payload
// appended, mode 0777 less the umask, and no temporary file is left; a
// failed write leaves nothing either.
func TestWriteAOT(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "prog")
	want := testPayload()
	if err := writeAOT(path, want.encode()); err != nil {
		t.Fatal(err)
	}
	got, err := readAOT(path)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("readAOT: %+v, %v", got, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile(selfExe)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o750 || fi.Size() != int64(len(self)+len(want.encode())+trailerSize) {
		t.Errorf("mode %v size %d; want 0750 and %d", fi.Mode(), fi.Size(), len(self)+len(want.encode())+trailerSize)
	}
	// Writing again replaces the file.
	if err := writeAOT(path, (&aotPayload{Name: "y"}).encode()); err != nil {
		t.Fatal(err)
	}
	if got, err := readAOT(path); err != nil || got.Name != "y" {
		t.Errorf("rewritten: %+v, %v", got, err)
	}
	// A directory in the way.
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "d", "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err = writeAOT(filepath.Join(dir, "d"), nil)
	if err == nil {
		t.Errorf("writing over a directory: no error")
	}
	// A FIFO in the way (anything but a regular file) stays.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeAOT(fifo, nil); err == nil || err.Error() != "failed to write '"+fifo+"': not a regular file" {
		t.Errorf("writing over a FIFO: %v", err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode().Type() != fs.ModeNamedPipe {
		t.Errorf("the FIFO is now %v %v", fi, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("files left in %s: %v", dir, entries)
	}
	if err := writeAOT(filepath.Join(dir, "no", "such"), nil); err == nil || err.Error() != "failed to write '"+filepath.Join(dir, "no", "such")+"': No such file or directory" {
		t.Errorf("missing directory: %v", err)
	}
}
