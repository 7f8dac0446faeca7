package unwind

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/internal/testbin"
)

// buildNofp compiles testdata/nofp.c as the traced programs of the
// dw_ustack tests are: optimised, without frame pointers.
func buildNofp(t *testing.T) string {
	return testbin.C(t, "testdata/nofp.c", "nofp", "-O2", "-fomit-frame-pointer")
}

// sampleOf runs bin, which writes the sample funcD takes of itself, and
// reads it back with the process's mappings.
func sampleOf(t *testing.T, bin string) (*Sample, []Mapping) {
	t.Helper()
	dump := filepath.Join(t.TempDir(), "sample")
	if out, err := exec.Command(bin, dump).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	raw, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	s := &Sample{IP: le.Uint64(raw), SP: le.Uint64(raw[8:]), BP: le.Uint64(raw[16:])}
	n := le.Uint64(raw[24:])
	s.Stack = raw[32 : 32+n]
	f, err := os.Open(dump + ".maps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ms, err := ParseMaps(f)
	if err != nil {
		t.Fatal(err)
	}
	return s, ms
}

// symbolize names the functions of bin at the addresses of pcs that fall
// in its mappings, and "?" for the others.
func symbolize(t *testing.T, bin string, ms []Mapping, pcs []uint64) []string {
	t.Helper()
	syms := testbin.Symbols(t, bin)
	tab, err := Load(bin)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, pc := range pcs {
		name := "?"
		for _, m := range ms {
			if m.Path != bin || pc < m.Start || pc >= m.End {
				continue
			}
			va, _ := tab.vaddr(m, pc)
			for _, s := range syms {
				if elf.ST_TYPE(s.Info) == elf.STT_FUNC && va >= s.Value && va < s.Value+s.Size {
					name = s.Name
				}
			}
		}
		names = append(names, name)
	}
	return names
}

// TestUnwindNoFramePointers: the CFI walks funcD's own sample back to
// main, through frames that keep no frame pointer, and on through the C
// library to _start, where the return address is undefined.
func TestUnwindNoFramePointers(t *testing.T) {
	bin := buildNofp(t)
	s, ms := sampleOf(t, bin)
	sp := &Space{Maps: ms, Cache: &Cache{}}
	pcs, err := sp.Unwind(s, 127)
	if err != nil {
		t.Fatalf("unwind: %v (frames %x)", err, pcs)
	}
	names := symbolize(t, bin, ms, pcs)
	if got, want := strings.Join(names[:min(5, len(names))], " "), "funcD funcC funcB funcA main"; got != want {
		t.Fatalf("frames %s, want %s first (all: %v)", got, want, names)
	}
	if last := names[len(names)-1]; last != "_start" {
		t.Errorf("outermost frame %s, want _start (all: %v)", last, names)
	}
}

// TestUnwindLimit: max bounds the frames.
func TestUnwindLimit(t *testing.T) {
	bin := buildNofp(t)
	s, ms := sampleOf(t, bin)
	pcs, err := (&Space{Maps: ms, Cache: &Cache{}}).Unwind(s, 3)
	if err != nil || len(pcs) != 3 {
		t.Fatalf("unwind: %d frames, %v; want 3", len(pcs), err)
	}
	if got := strings.Join(symbolize(t, bin, ms, pcs), " "); got != "funcD funcC funcB" {
		t.Errorf("frames %s", got)
	}
}

// TestUnwindShortStack: a copy that ends inside funcB's frame stops the
// walk there, with ErrStop and the frames found.
func TestUnwindShortStack(t *testing.T) {
	bin := buildNofp(t)
	s, ms := sampleOf(t, bin)
	full, err := (&Space{Maps: ms, Cache: &Cache{}}).Unwind(s, 127)
	if err != nil || len(full) < 5 {
		t.Fatalf("unwind: %v", err)
	}
	// Find how many bytes reach funcC's return address into funcB: walk
	// with ever longer copies until the third frame appears.
	for n := 8; n <= len(s.Stack); n += 8 {
		short := *s
		short.Stack = s.Stack[:n]
		pcs, err := (&Space{Maps: ms, Cache: &Cache{}}).Unwind(&short, 127)
		if len(pcs) < len(full) && !errors.Is(err, ErrStop) {
			t.Fatalf("%d bytes: %d frames and %v, want ErrStop", n, len(pcs), err)
		}
		for i, pc := range pcs {
			if pc != full[i] {
				t.Fatalf("%d bytes: frame %d is %#x, the full walk's %#x", n, i, pc, full[i])
			}
		}
	}
}

// TestLoadNoCFI: a file without .eh_frame or .debug_frame is ErrNoCFI.
func TestLoadNoCFI(t *testing.T) {
	bin := buildNofp(t)
	stripped := filepath.Join(t.TempDir(), "bare")
	if out, err := exec.Command("objcopy", "--remove-section=.eh_frame", "--remove-section=.eh_frame_hdr", bin, stripped).CombinedOutput(); err != nil {
		t.Skipf("objcopy: %v\n%s", err, out)
	}
	if _, err := Load(stripped); !errors.Is(err, ErrNoCFI) {
		t.Errorf("Load: %v, want ErrNoCFI", err)
	}
}

// TestParseMaps keeps the executable file mappings.
func TestParseMaps(t *testing.T) {
	text := `55d0c0000000-55d0c0001000 r--p 00000000 fd:01 123 /usr/bin/x
55d0c0001000-55d0c0002000 r-xp 00001000 fd:01 123 /usr/bin/x
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]
7f0000000000-7f0000001000 r-xp 00000000 00:00 0
7f1000000000-7f1000100000 r-xp 00028000 fd:01 456 /usr/lib/a b.so
7fffff000000-7fffff001000 r-xp 00000000 00:00 0 [uprobes]
`
	ms, err := ParseMaps(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := []Mapping{{0x55d0c0001000, 0x55d0c0002000, 0x1000, "/usr/bin/x"}, {0x7f1000000000, 0x7f1000100000, 0x28000, "/usr/lib/a b.so"}, {0x7fffff000000, 0x7fffff001000, 0, XOLPath}}
	if len(ms) != len(want) || ms[0] != want[0] || ms[1] != want[1] || ms[2] != want[2] {
		t.Errorf("ParseMaps = %+v, want %+v", ms, want)
	}
}

// TestUnwindUretprobe: a return address a uretprobe replaced with its
// trampoline's (in the uprobes page) is put back from the task's return
// instances; without them the walk stops there.
func TestUnwindUretprobe(t *testing.T) {
	bin := buildNofp(t)
	s, ms := sampleOf(t, bin)
	full, err := (&Space{Maps: ms, Cache: &Cache{}}).Unwind(s, 127)
	if err != nil || len(full) < 5 {
		t.Fatalf("unwind: %v", err)
	}
	// The return address into funcB, the third frame.
	ret := full[2] + 1
	at := -1
	for i := 0; i+8 <= len(s.Stack); i += 8 {
		if binary.LittleEndian.Uint64(s.Stack[i:]) == ret {
			at = i
			break
		}
	}
	if at < 0 {
		t.Fatalf("return address %#x not in the sample", ret)
	}
	const trampoline = 0x7fffff000000
	ms = append(ms, Mapping{Start: trampoline, End: trampoline + 4096, Path: XOLPath})
	s.Stack = append([]byte(nil), s.Stack...)
	binary.LittleEndian.PutUint64(s.Stack[at:], trampoline)

	pcs, err := (&Space{Maps: ms, Cache: &Cache{}}).Unwind(s, 127)
	if !errors.Is(err, ErrStop) || len(pcs) != 3 || pcs[2] != trampoline-1 {
		t.Errorf("without return instances: frames %x, %v; want funcD, funcC, the trampoline and ErrStop", pcs, err)
	}
	s.Returns = []Return{{Stack: 0x10, Addr: 0x20}, {Stack: s.SP + uint64(at), Addr: ret}}
	pcs, err = (&Space{Maps: ms, Cache: &Cache{}}).Unwind(s, 127)
	if err != nil || len(pcs) != len(full) {
		t.Fatalf("with return instances: frames %x, %v; want %x", pcs, err, full)
	}
	for i := range pcs {
		if pcs[i] != full[i] {
			t.Errorf("frame %d: %#x, want %#x", i, pcs[i], full[i])
		}
	}
}
