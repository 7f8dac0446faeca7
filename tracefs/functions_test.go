package tracefs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTraceableFunctionsFile(t *testing.T) {
	dir := t.TempDir()
	list := "vfs_read\nvfs_write\nmod_fn [some_mod]\n\n"
	if err := os.WriteFile(filepath.Join(dir, "available_filter_functions"), []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := NewEnv(dir).TraceableFunctions()
	if err != nil {
		t.Fatal(err)
	}
	if !got["vfs_read"] || !got["vfs_write"] || got["mod_fn"] || len(got) != 2 {
		t.Errorf("TraceableFunctions = %v", got)
	}
	// No list: the kernel does not say.
	got, err = NewEnv(t.TempDir()).TraceableFunctions()
	if got != nil || err != nil {
		t.Errorf("without available_filter_functions: %v, %v; want nil, nil", got, err)
	}
}

// TestKernelSymbolsFiles reads a symbol table, blacklist, module index and
// available_filter_functions from files, as WithKernelFiles names them.
func TestKernelSymbolsFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("available_filter_functions", "vfs_read\n__ia32_sys_getpid\nlookup_fast.constprop.0\ndup_fn\nlisted_bad\nrcu_note\n__ftrace_invalid_address___64\nmod_fn [some_mod]\n")
	files := KernelFiles{
		Kallsyms: write("kallsyms", "ffffffff81000000 T vfs_read\n"+
			"ffffffff81000100 T __ia32_sys_getpid\n"+
			"ffffffff81000100 T __x64_sys_getpid\n"+
			"ffffffff81000200 t lookup_fast.constprop.0\n"+
			"ffffffff81000300 t dup_fn\n"+
			"ffffffff81000400 t dup_fn\n"+
			"ffffffff81000500 T listed_bad\n"+
			"ffffffff81000600 t notrace_fn\n"+
			"ffffffff81000700 T rcu_note\n"+
			"ffffffff81000800 D some_variable\n"+
			"ffffffffc0000000 t mod_fn\t[some_mod]\n"),
		Blacklist:     write("blacklist", "0xffffffff81000500-0xffffffff81000510\tlisted_bad\n0xffffffffc0000000-0xffffffffc0000010\tmod_fn [some_mod]\n"),
		Modules:       write("modules", "ext4 1003520 1 - Live 0x0000000000000000\n"),
		ModuleSymbols: write("modules.symbols", "# Aliases for symbols, used by symbol_request().\nalias symbol:md_flush_request md_mod\n"),
	}
	env := NewEnv(dir, WithKernelFiles(files))
	funcs, err := env.TraceableFunctions()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"vfs_read": true, "__ia32_sys_getpid": true, "lookup_fast.constprop.0": true}
	if len(funcs) != len(want) {
		t.Errorf("TraceableFunctions = %v, want %v", funcs, want)
	}
	for n := range want {
		if !funcs[n] {
			t.Errorf("TraceableFunctions lacks %s: %v", n, funcs)
		}
	}
	syms, err := env.KernelSymbols()
	if err != nil || syms == nil {
		t.Fatalf("KernelSymbols = %v, %v", syms, err)
	}
	for name, n := range map[string]int{"vfs_read": 1, "dup_fn": 2, "some_variable": 0, "mod_fn": 0, "lookup_fast": 0} {
		if got := syms.Count(name); got != n {
			t.Errorf("Count(%s) = %d, want %d", name, got, n)
		}
	}
	if v := syms.Variants("lookup_fast"); len(v) != 1 || v[0] != "lookup_fast.constprop.0" {
		t.Errorf("Variants(lookup_fast) = %v", v)
	}
	if !syms.Blacklisted("listed_bad") || syms.Blacklisted("mod_fn") || syms.Blacklisted("vfs_read") {
		t.Errorf("blacklist: listed_bad %v, mod_fn %v, vfs_read %v", syms.Blacklisted("listed_bad"), syms.Blacklisted("mod_fn"), syms.Blacklisted("vfs_read"))
	}
	if m := syms.LoadedModule("mod_fn"); m != "some_mod" || syms.LoadedModule("vfs_read") != "" {
		t.Errorf("LoadedModule(mod_fn) = %q", m)
	}
	if !syms.ModuleLoaded("ext4") || !syms.ModuleLoaded("some_mod") || syms.ModuleLoaded("md_mod") {
		t.Errorf("ModuleLoaded: ext4 %v, some_mod %v, md_mod %v", syms.ModuleLoaded("ext4"), syms.ModuleLoaded("some_mod"), syms.ModuleLoaded("md_mod"))
	}
	if m := syms.Module("md_flush_request"); m != "md_mod" || !syms.Modular() {
		t.Errorf("Module(md_flush_request) = %q, Modular = %v", m, syms.Modular())
	}
	for name, want := range map[string]bool{"vfs_read": true, "__x64_sys_getpid": true, "notrace_fn": false} {
		if has, known := syms.HasFtrace(name); has != want || !known {
			t.Errorf("HasFtrace(%s) = %v, %v; want %v, true", name, has, known, want)
		}
	}
	// Without WithKernelFiles: no symbol table.
	if syms, err := NewEnv(dir).KernelSymbols(); syms != nil || err != nil {
		t.Errorf("KernelSymbols without files = %v, %v", syms, err)
	}
}

// TestKallsymsLine: the in-place split of /proc/kallsyms lines keeps the
// shapes the table has and rejects the others, as a split on white space
// does.
func TestKallsymsLine(t *testing.T) {
	for _, tc := range []struct {
		line               string
		addr, name, module string
		typ                byte
		ok                 bool
	}{
		{line: "ffffffff81000000 T _text", addr: "ffffffff81000000", typ: 'T', name: "_text", ok: true},
		{line: "0000000000000000 t do_one\t[ext4]", addr: "0000000000000000", typ: 't', name: "do_one", module: "[ext4]", ok: true},
		{line: "ffffffffc0000000 t bar  [mod]", addr: "ffffffffc0000000", typ: 't', name: "bar", module: "[mod]", ok: true},
		{line: "ffffffff81000000 T"},
		{line: "ffffffff81000000 T "},
		{line: "ffffffff81000000 TT name"},
		{line: "ffffffff81000000 t a [m] extra"},
		{line: ""},
	} {
		addr, typ, name, module, ok := kallsymsLine([]byte(tc.line))
		if ok != tc.ok || string(addr) != tc.addr || typ != tc.typ || string(name) != tc.name || string(module) != tc.module {
			t.Errorf("kallsymsLine(%q) = %q %q %q %q %v, want %q %q %q %q %v", tc.line, addr, typ, name, module, ok, tc.addr, tc.typ, tc.name, tc.module, tc.ok)
		}
	}
	for s, want := range map[string]uint64{"ffffffff81000000": 0xffffffff81000000, "00ff": 0xff, "ABC": 0xabc, "xyz": 0, "": 0} {
		if got := parseHex([]byte(s)); got != want {
			t.Errorf("parseHex(%q) = %#x, want %#x", s, got, want)
		}
	}
}
