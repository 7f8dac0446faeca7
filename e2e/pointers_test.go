package e2e

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestUprobeUserPointers reads the traced program's memory through pointers
// made from uprobe arguments, as bpftrace does: a struct member and an
// array member through a cast pointer, a nested pointer in a struct,
// arrays of structs, arrays of arrays, a flexible array member, an array element, a pointer to pointer, a pointer stepped in a map,
// and an integer dereferenced as an address (a uint64, in user memory).
func TestUprobeUserPointers(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the traced program")
	}
	bin := filepath.Join(t.TempDir(), "pointers")
	if out, err := exec.Command(cc, "-O1", "-o", bin, "testdata/uprobe/pointers.c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	script := `struct point { int x; int y[3]; struct point *next; }
struct box { int n; struct point pts[2]; int grid[2][3]; int tail[]; }
uprobe:` + bin + `:take_struct {
	$p = (struct point *)arg0;
	printf("x=%d y1=%d next.x=%d next.y2=%d\n", $p->x, $p->y[1], $p->next->x, $p->next->y[2]);
	printf("cast y: %d\n", *((int32 *)$p->next->y + 2));
}
uprobe:` + bin + `:take_box {
	$b = (struct box *)arg0;
	$j = 1;
	printf("pts1.x=%d pts0.y2=%d grid12=%d grid0j=%d tail1=%d\n", $b->pts[1].x, $b->pts[0].y[2], $b->grid[1][2], $b->grid[0][$j], $b->tail[1]);
}
uprobe:` + bin + `:take_array {
	$a = (int32 *)arg0;
	$i = 2;
	printf("a0=%d a2=%d a3=%d\n", $a[0], $a[$i], *($a + 3));
	printf("int address: a0|a1<<32=%lu\n", *arg0);
	@p = $a; @p++; @p += 1;
	printf("via map=%d\n", *@p);
	$a++;
	printf("via var=%d\n", *$a);
}
uprobe:` + bin + `:take_ptrs {
	$pp = (int32 **)arg0;
	printf("pp0=%d pp1=%d\n", *$pp[0], **($pp + 1));
	clear(@p);
	exit();
}`
	got := run(t, "-c", bin, "-e", script)
	wantOutput(t, got, "x=5 y1=51 next.x=7 next.y2=72\ncast y: 72\npts1.x=2 pts0.y2=12 grid12=5 grid0j=1 tail1=98\na0=11 a2=33 a3=44\nint address: a0|a1<<32=94489280523\nvia map=33\nvia var=22\npp0=100 pp1=200\n\n\n", 0)
}

// TestTracepointUserPointers reads a syscall tracepoint's char ** field:
// args.argv is a user pointer to user pointers.
func TestTracepointUserPointers(t *testing.T) {
	got := run(t, "-c", "/bin/true one", "-e", `tracepoint:syscalls:sys_enter_execve /pid == cpid/ {
	printf("%s %s %s %d\n", str(args.filename), str(args.argv[0]), str(*(args.argv + 1)), args.argv[2] == 0);
	exit();
}`)
	wantOutput(t, got, "/bin/true /bin/true one 1\n\n\n", 0)
}

// TestCastArrayMember: a char array member cast to a pointer is the
// member's address (bpftrace accepts the cast too): str() reads the
// string through it, a deref its first byte, and it steps like a pointer.
func TestCastArrayMember(t *testing.T) {
	got := run(t, "-c", "/bin/true", "-e", `tracepoint:syscalls:sys_exit_execve /pid == cpid/ {
	$p = (char *)curtask->comm;
	printf("%s %s %c %d\n", str($p), str((int8 *)(curtask->comm)), *(uint8 *)curtask->comm, str($p + 1) == "rue");
	exit();
}`)
	wantOutput(t, got, "true true t 1\n\n\n", 0)
}

// TestStrPositional: str() of a positional parameter is its text, even a
// number's, and str($N + n) skips n bytes of it, as in bpftrace.
func TestStrPositional(t *testing.T) {
	got := run(t, "-e", `BEGIN { printf("-%s-%s-%s-\n", str($1), str($2 + 1), str(($2 + 9))); exit(); }`, "12", "hello")
	wantOutput(t, got, "-12-ello--\n\n\n", 0)
}

// TestStrLength: str(p, n) reads n bytes with the NUL (n-1 characters),
// for a constant and a run-time n, as in bpftrace.
func TestStrLength(t *testing.T) {
	got := run(t, "-c", "/bin/true zztest", "-e", `tracepoint:syscalls:sys_enter_execve /pid == cpid/ {
	$n = 3;
	printf("%s|%s|%s\n", str(args.argv[1], 5), str(args.argv[1], $n), str(args.argv[1], $n + 100));
	exit();
}`)
	wantOutput(t, got, "zzte|zz|zztest\n\n\n", 0)
}

// TestAddrOf: &$x points to a variable's stack slot; *, [] and pointer
// arithmetic read through it, for integers, strings, tuples and username
// (the tests run as root).
func TestAddrOf(t *testing.T) {
	got := run(t, "-e", `BEGIN {
	$v = (uint64)0x1e; $p = (uint8 *)&$v; $b = &$v;
	$s = "hello"; $c = (int8 *)&$s;
	$t = (1, "hi", 2);
	$u = username; $up = &$u;
	printf("%d %d %d %c %c %s\n", *$b, $p[0], *(uint16 *)(&$v), *$c, *++$c, *$up);
	print(*(&$t));
	exit();
}`)
	wantOutput(t, got, "30 30 30 h e root\n(1, hi, 2)\n\n\n", 0)
}
