package usdt

import (
	"encoding/binary"
	"reflect"
	"testing"
)

func TestParseArg(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Arg
	}{
		{"-4@%eax", Arg{Size: 4, Signed: true, Kind: ArgReg, Reg: "ax"}},
		{"8@%r12", Arg{Size: 8, Kind: ArgReg, Reg: "r12"}},
		{"1@%r9b", Arg{Size: 1, Kind: ArgReg, Reg: "r9"}},
		{"2@%si", Arg{Size: 2, Kind: ArgReg, Reg: "si"}},
		{"1@%dl", Arg{Size: 1, Kind: ArgReg, Reg: "dx"}},
		{"8@-8(%rbp)", Arg{Size: 8, Kind: ArgMem, Reg: "bp", Value: -8}},
		{"-2@(%rdi)", Arg{Size: 2, Signed: true, Kind: ArgMem, Reg: "di"}},
		{"4@$5", Arg{Size: 4, Kind: ArgConst, Value: 5}},
		{"-8@$-579005069656919568", Arg{Size: 8, Signed: true, Kind: ArgConst, Value: -579005069656919568}},
		{"8@$0xffffffffffffffff", Arg{Size: 8, Kind: ArgConst, Value: -1}},
		{"8@16(%rax,%rdx,8)", Arg{Size: 8, Kind: ArgMem, Reg: "ax", Index: "dx", Scale: 8, Value: 16}},
		{"4@-80(%rbp,%rax)", Arg{Size: 4, Kind: ArgMem, Reg: "bp", Index: "ax", Scale: 1, Value: -80}},
		{"8@8(%rip)", Arg{Size: 8, Kind: ArgMem, Reg: "ip", Value: 8}},
	} {
		got, err := ParseArg(tc.in)
		if err != nil {
			t.Errorf("ParseArg(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("ParseArg(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestParseArgErrors(t *testing.T) {
	for _, in := range []string{"%eax", "3@%eax", "x@%eax", "8@%xmm0", "8@foo", "8@4(%rax,%rbx,3)", "8@$zz", "8@(%rax,%rbx,2,1)"} {
		if a, err := ParseArg(in); err == nil {
			t.Errorf("ParseArg(%q) = %+v, want an error", in, a)
		}
	}
}

func TestParseArgs(t *testing.T) {
	args, err := ParseArgs("-4@%eax 8@-8(%rbp) 4@$5 8@16(%rax,%rdx,8)")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range args {
		got = append(got, a.String())
	}
	want := []string{"-4@%ax", "8@-8(%bp)", "4@$5", "8@16(%ax,%dx,8)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// stapsdtNote builds one 64-bit little-endian stapsdt note.
func stapsdtNote(pc, base, sem uint64, prov, name, args string) []byte {
	desc := binary.LittleEndian.AppendUint64(nil, pc)
	desc = binary.LittleEndian.AppendUint64(desc, base)
	desc = binary.LittleEndian.AppendUint64(desc, sem)
	desc = append(desc, prov+"\x00"+name+"\x00"+args+"\x00"...)
	b := binary.LittleEndian.AppendUint32(nil, 8)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(desc)))
	b = binary.LittleEndian.AppendUint32(b, ntStapsdt)
	b = append(b, "stapsdt\x00"...)
	b = append(b, desc...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func TestParseNotes(t *testing.T) {
	var data []byte
	data = append(data, stapsdtNote(0x40115a, 0x402004, 0, "tracetest", "testprobe", "-8@%rax 8@%rdx")...)
	// A note of another owner is skipped.
	data = append(data, 4, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 'G', 'N', 'U', 0, 1, 2, 3, 4)
	data = append(data, stapsdtNote(0x401172, 0x402004, 0x404028, "p", "q", "")...)
	notes, err := parseNotes(data, binary.LittleEndian, 8)
	if err != nil {
		t.Fatal(err)
	}
	want := []note{
		{Probe{Provider: "tracetest", Name: "testprobe", PC: 0x40115a, ArgSpec: "-8@%rax 8@%rdx"}, 0x402004},
		{Probe{Provider: "p", Name: "q", PC: 0x401172, Semaphore: 0x404028}, 0x402004},
	}
	if !reflect.DeepEqual(notes, want) {
		t.Errorf("got %+v\nwant %+v", notes, want)
	}
	if _, err := parseNotes(data[:len(data)-9], binary.LittleEndian, 8); err == nil {
		t.Error("truncated notes: want an error")
	}
}

// TestReadFile reads testdata/notes (built from testdata/notes.c): twelve
// arguments of every kind, a semaphore, and addresses translated to file
// offsets through the one loadable segment.
func TestReadFile(t *testing.T) {
	probes, err := ReadFile("testdata/notes")
	if err != nil {
		t.Fatal(err)
	}
	if len(probes) != 2 {
		t.Fatalf("got %d probes, want 2: %+v", len(probes), probes)
	}
	p := probes[0]
	if p.Provider != "notes" || p.Name != "twelve" || p.PC != 0x4000d2 || p.Offset != 0xd2 || p.Semaphore != 0 {
		t.Errorf("twelve: %+v", p)
	}
	var args []string
	for _, a := range p.Args {
		args = append(args, a.String())
	}
	want := []string{"8@%ax", "-4@%dx", "8@-24(%bp)", "8@$4", "8@$5", "8@$6", "8@$7", "8@$8", "8@$9", "8@$10", "8@$11", "8@$12"}
	if !reflect.DeepEqual(args, want) {
		t.Errorf("twelve: args %q, want %q", args, want)
	}
	s := probes[1]
	if s.Name != "sema" || s.PC != 0x4000df || s.Semaphore != 0x40011c || s.SemaphoreOffset != 0x11c || len(s.Args) != 0 {
		t.Errorf("sema: %+v", s)
	}
	if _, err := ReadFile("usdt_test.go"); err == nil {
		t.Error("ReadFile of a text file: want an error")
	}
}
