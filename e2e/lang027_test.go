package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/internal/difftest"
)

// TestMapAddr: &@m is the map's kernel address (bpftrace 0.27), the same
// on every use, a map key, and printed in hex as every pointer is.
func TestMapAddr(t *testing.T) {
	got := run(t, "-e", `begin { @m[1] = 2; $p = &@m; @n[&@m] = 1; print($p == &@m); print($p != 0); print((int8 *)1234); print($p); exit(); }`)
	want := regexp.MustCompile(`^true\ntrue\n0x4d2\n0xffff[0-9a-f]{12}\n\n\n@m\[1\]: 2\n@n\[0xffff[0-9a-f]{12}\]: 1\n$`)
	if got.code != 0 || !want.MatchString(got.stdout) {
		t.Errorf("exit %d, stdout %q, stderr %q", got.code, got.stdout, got.stderr)
	}
}

// TestNamedAttachPoint: name=provider:... names an attach point (bpftrace
// 0.27); the probe is the attach point without the name.
func TestNamedAttachPoint(t *testing.T) {
	wantOutput(t, run(t, "-e", `tick=interval:ms:10 { print(probe); exit(); } first=begin, last=end { print(probe); }`),
		"begin\ninterval:ms:10\nend\n\n\n", 0)
}

// TestStrlenPointer: strlen() and strcap() of an int8 pointer read the
// string it points to, up to max_strlen bytes (bpftrace's strnlen).
func TestStrlenPointer(t *testing.T) {
	wantOutput(t, run(t, "-e", `begin { $s = "hello"; $p = (int8 *)&$s; $e = ""; print(strlen($p)); print(strcap($p)); print(strlen((int8 *)&$e)); exit(); }`),
		"5\n5\n0\n\n\n", 0)
	wantOutput(t, run(t, "-e", `config = { max_strlen = 3 } begin { $s = "hello"; print(strlen((int8 *)&$s)); exit(); }`),
		"3\n\n\n", 0)
}

// TestMacroOverloads: macros overload by the kinds of their parameters
// ($x, @m, bare) as well as their number (bpftrace 0.27): the first
// definition that takes the arguments is used; a later one that an
// earlier one would take the place of is a redefinition, and a use that
// no definition takes is refused, with bpftrace's notes, in its words.
func TestMacroOverloads(t *testing.T) {
	wantOutput(t, run(t, "-e", `macro f($x) { $x + 1 } macro f(@m) { @m[1] } macro f(x) { x + 100 }
begin { @m[1] = 7; $v = 1; print(f($v)); print(f(@m)); print(f(5)); exit(); }`), "2\n7\n105\n\n\n@m[1]: 7\n", 0)

	src := `macro add($a, $b) { $a + $b } macro add(a) { a + 1 } begin { print(add(1, 2)); }`
	got := run(t, "-e", src)
	caret := func(from, to int) string { return strings.Repeat(" ", from-1) + strings.Repeat("~", to-from) + "\n" }
	want := "stdin:1:68-77: ERROR: Call to add() has arguments that do not match any definition.\n" + src + "\n" + caret(68, 77) +
		"stdin:1:72-73: ERROR: Mismatched arg. add() expects a variable for arg $a but got an expression.\n" + src + "\n" + caret(72, 73) +
		"stdin:1:11-13: ERROR: This is the argument in the closest definition.\n" + src + "\n" + caret(11, 13) +
		"stdin:1:75-76: ERROR: Mismatched arg. add() expects a variable for arg $b but got an expression.\n" + src + "\n" + caret(75, 76) +
		"stdin:1:15-17: ERROR: This is the argument in the closest definition.\n" + src + "\n" + caret(15, 17)
	if got.code != 1 || got.stderr != want {
		t.Errorf("exit %d, stderr (- want, + got):\n%s", got.code, difftest.Diff(want, got.stderr))
	}

	src = `macro f(x) { x } macro f($x) { $x } begin { }`
	got = run(t, "-e", src)
	want = "stdin:1:18-25: ERROR: Redefinition of macro: f\n" + src + "\n" + caret(18, 25) +
		"stdin:1:1-8: ERROR: This is the original definition.\n" + src + "\n" + caret(1, 8)
	if got.code != 1 || got.stderr != want {
		t.Errorf("exit %d, stderr (- want, + got):\n%s", got.code, difftest.Diff(want, got.stderr))
	}
}

// TestTypeofMacroArgument: typeof(...) passed to a macro gives its bare
// parameter a type (bpftrace 0.27): sizeof(t), (t)v and let $y: t use it.
func TestTypeofMacroArgument(t *testing.T) {
	wantOutput(t, run(t, "-e", `macro sz(t) { sizeof(t) } macro cast(t, v) { (t)v } macro mk(t) { let $y: t = 300; $y }
begin { $x = (int16)1; print(sz(typeof($x))); print(cast(typeof($x), 70000)); print(mk(typeof($x))); print(sz(typeof(struct task_struct)) > 0); exit(); }`),
		"2\n4464\n300\ntrue\n\n\n", 0)
}

// TestTypeinfo: typeinfo() gives bpftrace 0.27.1's record for values and
// types written as its operand.
func TestTypeinfo(t *testing.T) {
	got := run(t, "-e", `config = { unstable_typeinfo = enable } begin { print(typeinfo(1)); print(typeinfo("abc")); $x = (int16)2; print(typeinfo($x)); @a[1] = (1, "x"); print(typeinfo(@a[1])); print(typeinfo(nsecs)); print(typeinfo(struct task_struct *)); print(typeinfo(kstack)); print(typeinfo((a=1,b="x"))); print(typeinfo(int8).full_type); clear(@a); exit(); }`)
	want := `{ .btf_id = 0, .base_type = int, .full_type = int8 }
{ .btf_id = 0, .base_type = string, .full_type = string[4] }
{ .btf_id = 0, .base_type = int, .full_type = int16 }
{ .btf_id = 0, .base_type = tuple, .full_type = (int8,string[2]) }
{ .btf_id = 0, .base_type = int, .full_type = uint64 }
{ .btf_id = 0, .base_type = pointer, .full_type = struct task_struct * }
{ .btf_id = 0, .base_type = kstack, .full_type = kstack_bpftrace_127 }
{ .btf_id = 0, .base_type = record, .full_type = record { .a = int8, .b = string[2] } }
int8


`
	wantOutput(t, got, want, 0)
}

// TestStrConcatSize: str_concat() returns bpftrace's string[1024], whose
// sizeof and strcap say so, holding the two strings.
func TestStrConcatSize(t *testing.T) {
	wantOutput(t, run(t, "-e", `begin { $t = str_concat("x", "yz"); print($t); print(sizeof($t)); print(strcap($t)); print(strlen($t)); exit(); }`),
		"xyz\n1024\n1024\n3\n\n\n", 0)
	// Longer than 1023 bytes: cut there, the first string kept whole.
	a := strings.Repeat("a", 600)
	got := run(t, "-e", `begin { $a = "`+a+`"; $b = str_concat($a, $a); $c = str_concat("xy", $b); print(strlen($b)); print(sizeof($b)); print(strlen(str_concat($b, "z"))); printf("%s\n", $c); exit(); }`)
	wantOutput(t, got, "1023\n1024\n1023\nxy"+strings.Repeat("a", 1021)+"\n\n\n", 0)
}

// TestWhileDeprecated: bpftrace 0.27 warns about every while loop, at the
// whole loop, with a hint towards for ranges; the loop still runs.
func TestWhileDeprecated(t *testing.T) {
	src := "begin { $i = 0;\n  while ($i < 2) { $i++; } print($i); exit(); }"
	got := run(t, "-e", src)
	want := "stdin:2:3-27: WARNING: While loops are deprecated and may be removed in the future.\n" +
		"  while ($i < 2) { $i++; } print($i); exit(); }\n" +
		"  ~~~~~~~~~~~~~~~~~~~~~~~~\n" +
		"HINT: For loops support ranges (e.g. `for ($x : $start..$end) { ... }`), and can be used in place of while. These are more easily proven to be bounded by the verifier.\n"
	if got.code != 0 || got.stdout != "2\n\n\n" || !strings.HasPrefix(got.stderr, want) {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant a stderr starting\n%s", got.code, got.stdout, got.stderr, want)
	}
}

// TestPlainChar: plain char is the kernel BTF's char, as bpftrace takes
// it: unsigned on kernels built with -funsigned-char (every kernel since
// 6.2), so (char)200 and a char read from memory print 200 there, -56 on
// a kernel whose char is signed.
func TestPlainChar(t *testing.T) {
	spec, err := btf.LoadKernelSpec()
	if err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	var ch *btf.Int
	if err := spec.TypeByName("char", &ch); err != nil {
		t.Fatalf("kernel BTF has no char: %v", err)
	}
	want := "200\n200\n"
	if ch.Encoding&btf.Signed != 0 {
		want = "-56\n-56\n"
	}
	wantOutput(t, run(t, "-e", `begin { print((char)200); $u = (uint8)200; print(*(char *)&$u); exit(); }`), want+"\n\n", 0)
}
