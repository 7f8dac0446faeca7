package e2e

import (
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTypeof: typeof(x) as a type in casts, let and sizeof, with the types
// bpftrace 0.26 gives (a variable's own type, a keyed map's key type).
func TestTypeof(t *testing.T) {
	script := `BEGIN { $x = (uint16)1; $y = (typeof($x))70000; @m[(int8)1, "a"] = 1; let $k: typeof(@m) = (3, "b"); ` +
		`printf("%d %d %d %d\n", $y, sizeof(typeof($x)), $k.0, sizeof($k)); @m[$k] = 2; exit(); }`
	wantOutput(t, run(t, "-e", script), "4464 2 3 3\n\n\n@m[1, a]: 1\n@m[3, b]: 2\n", 0)
}

// TestIntSuffixes: C integer suffixes on literals and in #define values.
func TestIntSuffixes(t *testing.T) {
	script := "#define X 0x10UL\nBEGIN { print(123UL + X); print(1u); print(10LL * 1_000ull); exit(); }"
	wantOutput(t, run(t, "-e", script), "139\n1\n10000\n\n\n", 0)
}

// TestTuples: one-element and empty tuples, printed as bpftrace 0.26
// prints them, as values, map keys and map values.
func TestTuples(t *testing.T) {
	script := `BEGIN { print((1,)); print(()); print(((), (2, "a",))); $t = (3,); print($t.0); print(sizeof(())); ` +
		`print(() == ()); @v = (1,); @k[(1,)] = 2; @n[(1,), 2] = ((), 3); @s[((int8)1, (int8)2), ("ab",)] = 4; ` +
		`for ($kv : @k) { print($kv); } for ($kv : @s) { print($kv); } printf("%d %d\n", has_key(@k, (1,)), delete(@s, (((int8)1, (int8)2), ("ab",)))); exit(); }`
	wantOutput(t, run(t, "-e", script), "(1)\n()\n((), (2, a))\n3\n0\ntrue\n((1), 2)\n(((1, 2), (ab)), 4)\n1 1\n\n\n@k[1]: 2\n@n[(1), 2]: ((), 3)\n@v: (1)\n", 0)
	got := run(t, "-f", "json", "-e", `BEGIN { print((1,)); print(()); exit(); }`)
	wantOutput(t, got, `{"type": "attached_probes", "count": 1, "data": {"probes": 1}}`+"\n"+`{"type": "value", "data": [1]}`+"\n"+`{"type": "value", "data": []}`+"\n", 0)
}

// TestTupleElements: string elements of packed tuples and records (a
// string after a uint8, a string[6] followed by a field) read, compared,
// printed and used as map keys and values exactly, as bpftrace 0.27 does:
// they were compared with the next field's bytes (false) or read past the
// tuple's end (refused by the verifier).
func TestTupleElements(t *testing.T) {
	script := `begin {
  $t = ("hello", 1); print($t.0 == "hello");
  $u = (1, "two", 3); printf("%s|%d\n", $u.1, $u.2);
  $a = (1, "hello"); print($a[1]);
  $r = (a=1, b="hello"); print($r.b); print($r);
  $n = (1, ("ab", 2), "xyz"); print($n.1.0); print($n.2); print($n.1 == ("ab", 2));
  @m[$u.1] = $t.0;
  exit();
}`
	wantOutput(t, run(t, "-e", script), "true\ntwo|3\nhello\nhello\n{ .a = 1, .b = hello }\nab\nxyz\ntrue\n\n\n@m[two]: hello\n", 0)
}

// TestComptimeFail: if comptime compiles only the branch taken, so the
// other may call fail(); fail() reached is a compile-time error under the
// call, its message formatted from literals.
func TestComptimeFail(t *testing.T) {
	script := `BEGIN { if comptime ($# < 1) { fail("want an argument, got %d", $#); } ` +
		`$v = if comptime ($1 == 7) { "seven" } else { 0 }; print($v); exit(); }`
	wantOutput(t, run(t, "-e", script, "7"), "seven\n\n\n", 0)
	got := run(t, "-e", script)
	want := "stdin:1:32-68: ERROR: want an argument, got 0\n" + script + "\n" + strings.Repeat(" ", 31) + strings.Repeat("~", 36) + "\n"
	if got.code != 1 || got.stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and:\n%s", got.code, got.stderr, want)
	}
}

// TestKfuncAllowed: kfunc_allowed() is true for a kfunc in a tracing
// program (iter), false in BEGIN, and decides an if comptime.
func TestKfuncAllowed(t *testing.T) {
	script := `BEGIN { @begin = kfunc_allowed("bpf_task_from_pid"); } ` +
		`iter:task { @iter = kfunc_allowed("bpf_task_from_pid"); @none = kfunc_allowed("no_such_kfunc"); ` +
		`if comptime kfunc_allowed("bpf_task_from_pid") { if (ctx.task->pid == 2) { @c = comm(ctx.task->pid); } } exit(); }`
	wantOutput(t, run(t, "-e", script), "\n\n@begin: false\n@c: kthreadd\n@iter: true\n@none: false\n", 0)
}

// TestRegPC: reg("pc") is ip (bpftrace's alias on x86-64) and
// reg("orig_rax") bpftrace's name of orig_ax, in a uprobe.
func TestRegPC(t *testing.T) {
	bin := buildAdd(t)
	s := startNoWait(t, "-e", `uprobe:`+bin+`:add { @pc[reg("pc") == reg("ip"), reg("pc") == uaddr("add")] = count(); @o = reg("orig_rax") == reg("orig_ax"); }`)
	s.waitLinks(1, 20*time.Second)
	if out, err := exec.Command(bin, "3").CombinedOutput(); err != nil || string(out) != "6\n" {
		t.Fatalf("traced program: %v %q", err, out)
	}
	got := s.stop(syscall.SIGINT)
	wantOutput(t, got, "\n\n@o: true\n@pc[true, true]: 3\n", 0)
	got = run(t, "-e", `uprobe:`+bin+`:add { print(reg("rip")); }`)
	if want := `stdin:1:`; got.code != 1 || !strings.Contains(got.stderr, "ERROR: 'rip' is not a valid register on this architecture (x86_64)") || !strings.HasPrefix(got.stderr, want) {
		t.Errorf("exit %d, stderr:\n%s", got.code, got.stderr)
	}
}

// TestConfigBuiltin: config and config() are the record of the script's
// configuration (bpftrace after 0.26), from the config block and the
// environment; its fields are constants.
func TestConfigBuiltin(t *testing.T) {
	script := `config = { stack_mode = perf; max_map_keys = 100 } BEGIN { printf("%d %s %d %s\n", config.max_strlen, config.stack_mode, config().cpp_demangle, config.str_trunc_trailer); ` +
		`if comptime (config.max_map_keys == 100) { print(config.missing_probes); } exit(); }`
	cmd := exec.Command(gotrace(t), "-e", script)
	cmd.Env = append(cmd.Environ(), "BPFTRACE_MAX_STRLEN=80")
	wantOutput(t, runCmd(t, cmd), "80 perf 1 ..\nerror\n\n\n", 0)
}

// TestContainerOf: container_of() of a list_head member read from the
// kernel finds the task holding it; the next task's prev is this one.
func TestContainerOf(t *testing.T) {
	script := `struct Foo { int m; int n; } BEGIN { $next = container_of(curtask->tasks.next, struct task_struct, tasks); ` +
		`printf("%d %d %d\n", container_of($next->tasks.prev, typeof(struct task_struct), tasks) == curtask, $next != curtask, ` +
		`(uint64)container_of((int32 *)1004, struct Foo, n)); exit(); }`
	wantOutput(t, run(t, "-e", script), "1 1 1000\n\n\n", 0)
}

// TestForPercpuMinMaxAvg: for over min, max and avg maps gives the
// aggregate over the CPUs, as bpftrace 0.26: profile samples every CPU,
// so min(cpu) is 0 and max(cpu) the last CPU. Every CPU is kept busy
// meanwhile: in some virtual machines an idle CPU's cpu-clock event does
// not fire (bpftrace sees the same), and the last CPU would have no sample.
func TestForPercpuMinMaxAvg(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	for range runtime.NumCPU() {
		go func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
			}
		}()
	}
	script := `config = { print_maps_on_exit = false } profile:hz:199 { @mn[1] = min(cpu); @mx[1] = max(cpu); @av[1] = avg(100); @neg[1] = avg(-7); @u[1] = max((uint64)cpu); } ` +
		`interval:ms:500 { for ($kv : @mn) { printf("min %d\n", $kv.1); } for ($kv : @mx) { printf("max %d\n", $kv.1); } for ($kv : @u) { printf("umax %d\n", $kv.1); } ` +
		`for ($kv : @av) { print($kv); } for ($kv : @neg) { print($kv); } exit(); }`
	last := runtime.NumCPU() - 1
	wantOutput(t, run(t, "-e", script), fmt.Sprintf("min 0\nmax %d\numax %d\n(1, 100)\n(1, -7)\n\n\n", last, last), 0)
}
