package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUprobeValues copies structs and arrays out of the traced program's
// memory by value, as bpftrace does: into variables, map values, map keys
// (with another key) and tuples; reads members and elements of the copies;
// compares arrays; and prints them in text and JSON.
func TestUprobeValues(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the traced program")
	}
	bin := filepath.Join(t.TempDir(), "pointers")
	if out, err := exec.Command(cc, "-O1", "-o", bin, "testdata/uprobe/pointers.c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	defs := `struct point { int x; int y[3]; struct point *next; }
struct box { int n; struct point pts[2]; int grid[2][3]; int tail[]; }
`
	got := run(t, "-c", bin, "-e", defs+`uprobe:`+bin+`:take_box {
	$b = *(struct box *)arg0;
	@grid = $b.grid;
	@pts[$b.pts[1], 1] = $b.pts[0].y[2];
	$g = ((struct box *)arg0)->grid;
	print(($b.n, $g[1], $g == $b.grid, $g != $b.grid));
	print($b.pts[1].y);
	$p = ((struct box *)arg0)->pts[0];
	printf("%d %d\n", $p.x, $p.y[1]);
	let $bp: struct box *;
	let $pts: struct point[2];
	$bp = (struct box *)arg0;
	$pts = $bp->pts;
	printf("%d %d\n", $pts[1].x, $pts[1].y[2]);
	exit();
}`)
	wantOutput(t, got, "(3, [3,4,5], true, false)\n[20,21,22]\n1 11\n2 22\n\n\n@grid: [[0,1,2],[3,4,5]]\n@pts[{ .x = 2, .y = [20,21,22], .next = 0x0 }, 1]: 12\n", 0)

	got = run(t, "-f", "json", "-q", "-c", bin, "-e", defs+`uprobe:`+bin+`:take_box {
	$b = *(struct box *)arg0;
	print($b.pts[1]);
	@g = $b.grid;
	exit();
}`)
	wantOutput(t, got, `{"type": "value", "data": {"x": 2, "y": [20,21,22], "next": 0}}`+"\n"+`{"type": "map", "data": {"@g": [[0,1,2],[3,4,5]]}}`+"\n", 0)

	// A run-time index past the end of an array warns, as in bpftrace.
	got = run(t, "-c", bin, "-e", defs+`uprobe:`+bin+`:take_struct {
	$p = (struct point *)arg0;
	$i = 1; $j = 3;
	printf("%d\n", $p->y[$i]);
	$v = $p->y[$j];
	exit();
}`)
	wantOutput(t, got, "51\n\n\n", 0)
	if want := "stdin:7:7: WARNING: Array access out of bounds. This can lead to unexpected results."; !strings.Contains(got.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, got.stderr)
	}
	if n := strings.Count(got.stderr, "out of bounds"); n != 1 {
		t.Errorf("%d out-of-bounds warnings, want 1 (the index 1 is in bounds):\n%s", n, got.stderr)
	}
}

// TestArrayCasts: (T[])x has as many elements as x has bytes (an integer
// literal its smallest size), and a string casts to an integer of its
// size, as in bpftrace.
func TestArrayCasts(t *testing.T) {
	got := run(t, "-e", `BEGIN { print((int8[])"hello"); printf("byte: %x\n", ((int8[])12345)[0]); print((uint8[])12345); print((int16[])"abc"); printf("%x\n", (int32)"abc"); exit(); }`)
	wantOutput(t, got, "[104,101,108,108,111,0]\nbyte: 39\n[57,48]\n[25185,99]\n636261\n\n\n", 0)
}

// TestArrayCastWiden: an integer whose own type is smaller than an array
// of at most 8 bytes fills its first bytes, the rest zeros, as bpftrace
// 0.27 does ((int8[8])-1 is -1 then seven zeros: -1 is an int8).
func TestArrayCastWiden(t *testing.T) {
	got := run(t, "-e", `BEGIN { print((int8[4])1); print((int16[2])258); print((int8[8])-1); print((uint16[2])-1); print((int8[8])(int32)-1); $x = -1; print((int8[4])$x); exit(); }`)
	wantOutput(t, got, "[1,0,0,0]\n[258,0]\n[-1,0,0,0,0,0,0,0]\n[255,0]\n[-1,-1,-1,-1,0,0,0,0]\n[-1,0,0,0]\n\n\n", 0)
}

// TestStructBitfieldValue: a struct with bitfields read by value from a
// variable's slot prints each bitfield.
func TestStructBitfieldValue(t *testing.T) {
	got := run(t, "-e", `struct foo { unsigned long long x_0:1; unsigned long long x_1:1; unsigned long long x_2:2; }
BEGIN { $val = (uint64)0x1e; $f = *(struct foo *)(&$val); print($f); print($f.x_2); print(*(struct foo *)(&$val)); exit(); }`)
	wantOutput(t, got, "{ .x_0 = 0, .x_1 = 1, .x_2 = 3 }\n3\n{ .x_0 = 0, .x_1 = 1, .x_2 = 3 }\n\n\n", 0)
}

// TestStructNoneMember: a struct member of a type without a value (a float
// in a union) stays in the struct and prints as null, in text and JSON, as
// bpftrace prints its none type.
func TestStructNoneMember(t *testing.T) {
	script := `union N { int i; float f; } struct Foo { int m; union N n; double d; }
BEGIN { $v = (uint64)0x500000002; $f = *(struct Foo *)(&$v); print($f); exit(); }`
	wantOutput(t, run(t, "-q", "-e", script), "{ .m = 2, .n = { .i = 5, .f = null }, .d = null }\n\n\n", 0)
	wantOutput(t, run(t, "-q", "-f", "json", "-e", script), `{"type": "value", "data": {"m": 2, "n": {"i": 5, "f": null}, "d": null}}`+"\n", 0)
}

// TestTupleStringResize: a variable, map value or map key holding tuples
// whose strings have different sizes takes the larger size, and each tuple
// is converted to that layout when stored, as bpftrace resizes them.
func TestTupleStringResize(t *testing.T) {
	got := run(t, "-e", `BEGIN {
	$a = ("hi", ("hellolongstr", 2)); print($a);
	$a = ("hellolongstr", ("hi", 5)); print($a);
	$t = ("x", 3); @v[1] = $t; @v[1] = ("hellolongstr", 2); print(@v[1]); @v[1] = $t; print(@v[1]);
	@k["hi", ("hellolongstr", 2)] = 1; @k["hellolongstr", ("hi", 5)] = 2;
	$c = nsecs ? ("hellolongstr", "a") : ("b", "hellolongstr"); print($c);
	print($c[1]);
	exit();
}`)
	wantOutput(t, got, "(hi, (hellolongstr, 2))\n(hellolongstr, (hi, 5))\n(hellolongstr, 2)\n(x, 3)\n(hellolongstr, a)\na\n\n\n@k[hi, (hellolongstr, 2)]: 1\n@k[hellolongstr, (hi, 5)]: 2\n@v[1]: (x, 3)\n", 0)
}

// TestBufValues: buf() values as map keys and values print as text with
// non-printable bytes escaped, and compare equal only to a buf of the same
// length and bytes.
func TestBufValues(t *testing.T) {
	got := run(t, "-e", `BEGIN {
	$a = buf("hi", 2); $b = buf("bye", 3);
	printf("equal=%d unequal=%d same=%d\n", $a == $a, $a != $b, $a == buf("hi", 2));
	if ($a == $b) { printf("never\n"); }
	@k[buf("ok_key", 7), 1] = 1; @v = $b;
	exit();
}`)
	wantOutput(t, got, "equal=1 unequal=1 same=1\n\n\n@k[ok_key\\x00, 1]: 1\n@v: bye\n", 0)
}

// TestBufTernary: a ternary, variable, map value or key of bufs of
// different lengths (or of a constant and a run-time length) holds a
// buffer of the larger capacity that carries each value's length, as
// bpftrace's buffers carry theirs: printed (text, JSON, %r and %rx),
// stored in maps and tuples, and compared (also across capacities and in
// conditions) at that length.
func TestBufTernary(t *testing.T) {
	wantOutput(t, run(t, "-e", `i:ms:1 { $a = nsecs ? buf("hi", 2) : buf("bye", 3); print($a); exit(); }`), "hi\n\n\n", 0)
	script := `config = { max_strlen = 16 }
BEGIN {
	$a = nsecs ? buf("hi", 2) : buf("bye", 3); print($a);
	$b = nsecs == 0 ? buf("hi", 2) : buf("bye", 3); print($b);
	printf("%r|%r|%rx %d %d %d\n", $a, $b, $b, $a == buf("hi", 2), $a == $b, $b != buf("bye", 3));
	$c = buf("x", 1); $c = buf("yyyy", 4); print($c);
	@m[1] = $a; @m[2] = $b; @t = (1, $a);
	$n = 3;
	$r = buf("abcdef", $n);
	$d = nsecs == 0 ? $r : buf("hi\x00", 3); print($d);
	$e = buf("z", 1); $e = $r;
	$f = nsecs ? buf("abc", 3) : buf("q", 1);
	printf("[%r] [%r] %d %d %d %d %d\n", $d, $e, $d == $e, $d == $a, $e == buf("abc", 3), $f == $r, $a == buf("hix", $n - 1));
	if ($r == buf("abc", 3)) { printf("r == abc\n"); }
	if ($r != buf("abd", 3) && $a == buf("hi", 2)) { printf("r != abd, a == hi\n"); }
	@k[buf("a", 1)] = 1; @k[buf("bb", 2)] = 2; @k[$r] = 3;
	$u = nsecs ? (1, buf("hi", 2)) : (2, $r); print($u);
	exit();
}`
	wantOutput(t, run(t, "-q", "-e", script), `hi
bye
hi|bye|\x62\x79\x65 1 0 0
yyyy
hi\x00
[hi\x00] [abc] 0 0 1 1 1
r == abc
r != abd, a == hi
(1, hi)


@k[a]: 1
@k[bb]: 2
@k[abc]: 3
@m[1]: hi
@m[2]: bye
@t: (1, hi)
`, 0)
	wantOutput(t, run(t, "-q", "-f", "json", "-e", script), `{"type": "value", "data": [104,105]}
{"type": "value", "data": [98,121,101]}
{"type": "printf", "data": "hi|bye|\\x62\\x79\\x65 1 0 0\n"}
{"type": "value", "data": [121,121,121,121]}
{"type": "value", "data": [104,105,0]}
{"type": "printf", "data": "[hi\\x00] [abc] 0 0 1 1 1\n"}
{"type": "printf", "data": "r == abc\n"}
{"type": "printf", "data": "r != abd, a == hi\n"}
{"type": "value", "data": [1,[104,105]]}
{"type": "map", "data": {"@k": {"a": 1, "bb": 2, "abc": 3}}}
{"type": "map", "data": {"@m": {"1": [104,105], "2": [98,121,101]}}}
{"type": "map", "data": {"@t": [1,[104,105]]}}
`, 0)
}

// TestPtonValues: pton()'s array is a value: ntop() formats it, and its
// bytes can be indexed.
func TestPtonValues(t *testing.T) {
	got := run(t, "-e", `BEGIN { $a = pton("1.2.3.4"); printf("%s %s %s %d\n", ntop(2, pton("127.0.0.1")), ntop(10, pton("::1")), ntop($a), $a[3]); exit(); }`)
	wantOutput(t, got, "127.0.0.1 ::1 1.2.3.4 4\n\n\n", 0)
}

// TestTupleLayout: tuple elements keep their own types (an integer literal
// the smallest signed type that holds it) with C's natural alignment, as
// bpftrace lays tuples out; tuples of different layouts compare in their
// unified layout.
func TestTupleLayout(t *testing.T) {
	got := run(t, "-e", `BEGIN {
	$t = ((int8)1, (int16)1, (int32)1); print(sizeof($t));
	print(sizeof(((int32)1, (int16)1, (int8)1)));
	$a = ((int8)-100, (int8)100, "abcdef", 3, (int32)1, (int64)-10, (int8)10, (int16)-555, "abc"); print(sizeof($a)); print($a);
	printf("%d %d %d\n", (1, 2) == (1000, 2), (1, "a") == (1, "a"), (1, 2) != ((int64)1, (uint8)2));
	@m[(1, "x")] = 1; @m[(100000, "abc")] = 2;
	$u = ((uint8)1, 5); $u = (-300, 5); print($u);
	@a = (-1, 2); @a = (300, 2);
	exit();
}`)
	wantOutput(t, got, "8\n8\n32\n(-100, 100, abcdef, 3, 1, -10, 10, -555, abc)\n0 1 0\n(-300, 5)\n\n\n@a: (300, 2)\n@m[1, x]: 1\n@m[100000, abc]: 2\n", 0)
}

// TestRecordFieldOrder: a record assigned to a variable, map or ternary of
// a record type with the same fields in another order matches the fields
// by name: the fields are evaluated in source order and keep the order of
// the first record.
func TestRecordFieldOrder(t *testing.T) {
	got := run(t, "-e", `BEGIN {
	$a = (foo={ printf("hello"); 1 }, bar={ printf("world"); 2 });
	$a = (bar={ printf("hello"); 1 }, foo={ printf("world\n"); 2 });
	print($a);
	$b = (bar=7, foo=(int8)3); $a = $b; print($a);
	$c = (x="ab", y=(uint16)2); $c = (y=9, x="abcdef"); print($c);
	$t = nsecs ? (a=1, b="x") : (b="yy", a=4); print($t);
	printf("%d %d\n", $a == (bar=7, foo=3), (bar=7, foo=3) != $a);
	@m = (foo=1, bar=2); @m = (bar=5, foo=(int16)6);
	@k[(a=1, b=2)] = 1; @k[(b=1, a=2)] = 2;
	exit();
}`)
	wantOutput(t, got, "helloworldhelloworld\n{ .foo = 2, .bar = 1 }\n{ .foo = 3, .bar = 7 }\n{ .x = abcdef, .y = 9 }\n{ .a = 1, .b = x }\n1 0\n\n\n@k[{ .a = 1, .b = 2 }]: 1\n@k[{ .a = 2, .b = 1 }]: 2\n@m: { .foo = 6, .bar = 5 }\n", 0)
}

// TestAggregationSign: min, max, avg and stats of unsigned 64-bit values
// compare and print unsigned (and sort so), and an aggregation given
// signed and unsigned values is signed, as in bpftrace 0.27.
func TestAggregationSign(t *testing.T) {
	got := run(t, "-q", "-e", `BEGIN {
		@mx = max((uint64)9223372036854775808); @mx = max((uint64)5);
		@mn = min((uint64)18446744073709551615); @mn = min((uint64)9223372036854775809);
		@s = stats((uint64)9223372036854775808); @s = stats((uint64)0);
		@mixed = sum((uint64)9223372036854775808); @mixed = sum(3);
		@k[1] = max((uint64)1); @k[2] = max((uint64)18446744073709551615); @k[3] = max((uint64)7);
		$x = @mx; printf("%d\n", $x > 5);
		exit();
	}`)
	wantOutput(t, got, "1\n\n\n@k[1]: 1\n@k[3]: 7\n@k[2]: 18446744073709551615\n@mixed: -9223372036854775805\n"+
		"@mn: 9223372036854775809\n@mx: 9223372036854775808\n"+
		"@s: { .count = 2, .average = 4611686018427387904, .total = 9223372036854775808 }\n", 0)
}
