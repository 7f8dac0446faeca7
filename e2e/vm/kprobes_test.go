package vm

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// kernelSyms is the guest's view of its functions: the vmlinux text
// symbols of kallsyms (name → address, 0 when listed more than once),
// available_filter_functions and the kprobe blacklist.
type kernelSyms struct {
	text      map[string]uint64
	ftrace    map[string]bool
	ftraceAt  map[uint64]bool
	blacklist map[string]bool
}

func readKernelSyms(t *testing.T) *kernelSyms {
	t.Helper()
	ks := &kernelSyms{text: map[string]uint64{}, ftrace: map[string]bool{}, ftraceAt: map[uint64]bool{}, blacklist: map[string]bool{}}
	each := func(path string, f func([]string)) {
		file, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		sc := bufio.NewScanner(file)
		for sc.Scan() {
			f(strings.Fields(sc.Text()))
		}
	}
	seen := map[string]bool{}
	each("/proc/kallsyms", func(f []string) {
		if len(f) != 3 || (f[1] != "t" && f[1] != "T") {
			return
		}
		addr, _ := strconv.ParseUint(f[0], 16, 64)
		if seen[f[2]] {
			addr = 0
		}
		seen[f[2]] = true
		ks.text[f[2]] = addr
	})
	each("/sys/kernel/tracing/available_filter_functions", func(f []string) {
		if len(f) == 1 {
			ks.ftrace[f[0]] = true
			if a := ks.text[f[0]]; a != 0 {
				ks.ftraceAt[a] = true
			}
		}
	})
	each("/sys/kernel/debug/kprobes/blacklist", func(f []string) {
		if len(f) == 2 {
			ks.blacklist[f[1]] = true
		}
	})
	return ks
}

// TestKprobeOutsideFtrace: exact kprobes on functions that
// available_filter_functions does not list: __x64_sys_getpid (the same
// function as __ia32_sys_getpid, which it lists), as a kprobe and a
// kretprobe, and a function the compiler renamed, by its kallsyms name;
// both in one program, attached by one kprobe_multi link where the kernel
// has it (a probe of two functions).
func TestKprobeOutsideFtrace(t *testing.T) {
	gotraceBin(t)
	ks := readKernelSyms(t)
	const getpid, sysinfo = "__x64_sys_getpid", "do_sysinfo.isra.0"
	if ks.ftrace[getpid] || ks.text[getpid] == 0 || !ks.ftraceAt[ks.text[getpid]] {
		t.Fatalf("%s: want a unique kallsyms function outside available_filter_functions at the address of one in it (in ftrace %v, address %#x)", getpid, ks.ftrace[getpid], ks.text[getpid])
	}
	if ks.text[sysinfo] == 0 {
		t.Fatalf("%s is not in kallsyms", sysinfo)
	}
	tid := lockThread(t)
	// Three links where the getpid kprobe/kretprobe pair is a kprobe
	// session, four where not.
	tr := startTrace(t, linksReady(3), "-e", `
kprobe:__x64_sys_getpid /tid == $1/ { @enter = count(); }
kretprobe:__x64_sys_getpid /tid == $1/ { if (retval == pid) { @ret = count(); } }
kprobe:do_sysinfo.isra.0 /tid == $1/ { @sysinfo[func] = count(); }
kprobe:__x64_sys_getpid, kprobe:do_sysinfo.isra.0 /tid == $1/ { @both = count(); }`, strconv.Itoa(tid))
	for range 5 {
		unix.Getpid()
	}
	var info unix.Sysinfo_t
	for range 3 {
		if err := unix.Sysinfo(&info); err != nil {
			t.Fatal(err)
		}
	}
	out, errs := tr.stop()
	wantStdout(t, out, "\n\n@both: 8\n@enter: 5\n@ret: 5\n@sysinfo[do_sysinfo.isra.0]: 3\n", errs)
	path := "kprobe: attached 2 functions through 2 separate kprobes"
	if haveKprobeMulti(t) {
		path = "kprobe: attached 2 functions through one kprobe_multi link"
	}
	if !strings.Contains(errs, path) {
		t.Errorf("stderr lacks %q:\n%s", path, errs)
	}
}

// TestKprobeRenamedWildcard: kprobe:do_sys* matches the renamed
// do_sysinfo.isra.0 as available_filter_functions spells it, through one
// kprobe_multi link on 6.12 and one kprobe each on 6.1; the name without
// its suffix is an error that suggests it.
func TestKprobeRenamedWildcard(t *testing.T) {
	bin := gotraceBin(t)
	multi := haveKprobeMulti(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "-e", `kprobe:do_sysinfo { exit(); }`).CombinedOutput()
	want := "stdin:1:1-18: ERROR: No matches for kprobe do_sysinfo: the compiler renamed the function; did you mean kprobe:do_sysinfo.isra.0?\n"
	if err == nil || !strings.HasPrefix(string(out), want) {
		t.Errorf("kprobe:do_sysinfo: %v\n%s\nwant\n%s", err, out, want)
	}
	tid := lockThread(t)
	tr := startTrace(t, stderrReady(`kprobe: attached \d+ functions through`), "-e", `kprobe:do_sys* /tid == $1/ { @[func] = count(); }`, strconv.Itoa(tid))
	var info unix.Sysinfo_t
	for range 3 {
		if err := unix.Sysinfo(&info); err != nil {
			t.Fatal(err)
		}
	}
	stdout, errs := tr.stop()
	checkWildcardOf(t, stdout, errs, map[bool]string{true: "kprobe_multi"}[multi], "kprobe", "@[do_sysinfo.isra.0]: 3\n", `do_sys[\w.]+`, 5)
}

// TestKprobeRefusals: the kernel's refusal of a function without an ftrace
// location (kprobe events refuse notrace functions) is one line naming the
// function and why, or a warning with missing_probes = warn; a function in
// no loaded code is not traceable (bpftrace's warning and error).
func TestKprobeRefusals(t *testing.T) {
	bin := gotraceBin(t)
	ks := readKernelSyms(t)
	var cands []string
	for n, a := range ks.text {
		if a != 0 && !ks.ftrace[n] && !ks.ftraceAt[a] && !ks.blacklist[n] && !strings.HasPrefix(n, "__pfx_") && !strings.Contains(n, ".") && regexp.MustCompile(`^[a-z]`).MatchString(n) {
			cands = append(cands, n)
		}
	}
	if len(cands) == 0 {
		t.Fatal("no kallsyms function outside available_filter_functions")
	}
	sort.Strings(cands)
	fn := cands[len(cands)/2]
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	run := func(script string) (string, error) {
		out, err := exec.CommandContext(ctx, bin, "-e", script).CombinedOutput()
		return string(out), err
	}
	// If the kernel took it, the interval ends the script.
	out, err := run(`kprobe:` + fn + ` { exit(); } interval:s:1 { exit(); }`)
	want := "ERROR: kprobe:" + fn + ": the kernel refused a kprobe on " + fn + ": the function has no ftrace location (it is not in available_filter_functions: marked notrace, or __init code freed after boot), and kprobe events refuse such functions unless the kernel is built with CONFIG_KPROBE_EVENTS_ON_NOTRACE\n"
	if err == nil || !strings.HasSuffix(out, want) || strings.Count(out, "\n") != 1 {
		t.Errorf("kprobe:%s: %v\n%s\nwant\n%s", fn, err, out, want)
	}
	// missing_probes = warn: the refused probe is skipped, as in bpftrace.
	out, err = run(`config = { missing_probes = warn } kprobe:` + fn + ` { exit(); } interval:ms:100 { exit(); }`)
	for _, want := range []string{"WARNING: Unable to attach probe: kprobe:" + fn + ". Skipping.\n", "Attached 1 probe\n"} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("kprobe:%s with missing_probes = warn: %v\n%s\nwant %q", fn, err, out, want)
		}
	}
	out, err = run(`kprobe:md_flush_request { exit(); }`)
	// bpftrace's warning, then its error.
	src := "kprobe:md_flush_request { exit(); }\n" + strings.Repeat("~", 23) + "\n"
	want = "stdin:1:1-24: WARNING: md_flush_request is not traceable (either non-existing, inlined, or marked as \"notrace\"); attaching to it will likely fail\n" + src +
		"stdin:1:1-24: ERROR: No matches for kprobe md_flush_request.\n" + src
	if err == nil || !strings.HasPrefix(out, want) {
		t.Errorf("kprobe:md_flush_request: %v\n%s\nwant\n%s", err, out, want)
	}
	// --unsafe: the warning, and the kernel's refusal of the probe named as
	// the script wrote it, as in bpftrace.
	unsafeOut, err := exec.CommandContext(ctx, bin, "--unsafe", "-e", `kprobe:vmlinux:md_flush_request { exit(); }`).CombinedOutput()
	out = string(unsafeOut)
	if want := "\nERROR: Unable to attach probe: kprobe:vmlinux:md_flush_request"; err == nil || !strings.Contains(out, want) || !strings.Contains(out, "WARNING: md_flush_request is not traceable") {
		t.Errorf("--unsafe kprobe:vmlinux:md_flush_request: %v\n%s\nwant the warning and %q", err, out, want)
	}
	out, err = run(`kprobe:md_mod:md_flush_request { exit(); }`)
	want = "stdin:1:1-31: ERROR: specified module md_mod in probe kprobe:md_mod:md_flush_request is not loaded.\n"
	if err == nil || !strings.HasPrefix(out, want) {
		t.Errorf("kprobe:md_mod:md_flush_request: %v\n%s\nwant\n%s", err, out, want)
	}
}
