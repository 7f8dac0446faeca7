package syntax_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/internal/fuzzwatch"
	"github.com/gotrace/gotrace/internal/langtest"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/syntax"
)

var exprTests = []struct{ src, want string }{
	// Precedence and associativity, lowest first.
	{"1 + 2 * 3", "(binary + (int 1) (binary * (int 2) (int 3)))"},
	{"1 - 2 - 3", "(binary - (binary - (int 1) (int 2)) (int 3))"},
	{"8 / 4 % 3", "(binary % (binary / (int 8) (int 4)) (int 3))"},
	{"a || b && c", "(binary || (ident a) (binary && (ident b) (ident c)))"},
	{"a && b || c", "(binary || (binary && (ident a) (ident b)) (ident c))"},
	{"a | b ^ c & d", "(binary | (ident a) (binary ^ (ident b) (binary & (ident c) (ident d))))"},
	{"a == b < c", "(binary == (ident a) (binary < (ident b) (ident c)))"},
	{"a != b >= c", "(binary != (ident a) (binary >= (ident b) (ident c)))"},
	{"a << 1 + 2", "(binary << (ident a) (binary + (int 1) (int 2)))"},
	{"a < b << c", "(binary < (ident a) (binary << (ident b) (ident c)))"},
	{"1 + 2 << 3 > 4 == 5 & 6 ^ 7 | 8 && 9 || 10", "(binary || (binary && (binary | (binary ^ (binary & (binary == (binary > (binary << (binary + (int 1) (int 2)) (int 3)) (int 4)) (int 5)) (int 6)) (int 7)) (int 8)) (int 9)) (int 10))"},
	{"$x & 0xff == 0", "(binary & (var $x) (binary == (int 255) (int 0)))"},
	{"a ? b : c ? d : e", "(ternary (ident a) (ident b) (ternary (ident c) (ident d) (ident e)))"},
	{"a ? b ? c : d : e", "(ternary (ident a) (ternary (ident b) (ident c) (ident d)) (ident e))"},
	{"a || b ? c : d", "(ternary (binary || (ident a) (ident b)) (ident c) (ident d))"},
	{"(a ? b : c) + 1", "(binary + (paren (ternary (ident a) (ident b) (ident c))) (int 1))"},
	{"a ?: b", "(ternary (ident a) (ident a) (ident b))"},
	{"$x ?: 1 + 2", "(ternary (var $x) (var $x) (binary + (int 1) (int 2)))"},
	{"if (a) { b } else { c }", "(ternary (ident a) (blockexpr (block (expr (ident b)))) (blockexpr (block (expr (ident c)))))"},
	{"if (a) { b } else if (c) { d } else { e }", "(ternary (ident a) (blockexpr (block (expr (ident b)))) (ternary (ident c) (blockexpr (block (expr (ident d)))) (blockexpr (block (expr (ident e))))))"},
	{"if (a) { if (b) { c } else { d } } else { e }", "(ternary (ident a) (blockexpr (block (expr (ternary (ident b) (blockexpr (block (expr (ident c)))) (blockexpr (block (expr (ident d)))))))) (blockexpr (block (expr (ident e)))))"},

	// Unary and postfix operators.
	{"!a", "(unary ! (ident a))"},
	{"~a", "(unary ~ (ident a))"},
	{"-a * b", "(binary * (unary - (ident a)) (ident b))"},
	{"*$p", "(unary * (var $p))"},
	{"&$x", "(unary & (var $x))"},
	{"++$x", "(unary ++ (var $x))"},
	{"--@x", "(unary -- (map @x))"},
	{"$x++", "(postfix ++ (var $x))"},
	{"@x--", "(postfix -- (map @x))"},
	{"- -1", "(unary - (unary - (int 1)))"},
	{"!!a", "(unary ! (unary ! (ident a)))"},
	{"-$a->b", "(unary - (field (var $a) ->b))"},

	// Casts versus parentheses.
	{"(uint32)$x", "(cast (type uint32) (var $x))"},
	{"(struct task_struct *)curtask", "(cast (type struct task_struct *) (ident curtask))"},
	{"(int8[8])$a", "(cast (type int8[8]) (var $a))"},
	{"(struct sock *)arg0", "(cast (type struct sock *) (ident arg0))"},
	{"(uint8 *)arg0 + 1", "(binary + (cast (type uint8 *) (ident arg0)) (int 1))"},
	{"(unsigned long)$x", "(cast (type unsigned long) (var $x))"},
	{"(char **)$p", "(cast (type char **) (var $p))"},
	{"(pid_t)$x", "(cast (type pid_t) (var $x))"},
	{"(foo *)$p", "(cast (type foo *) (var $p))"},
	{"(union u *)$p", "(cast (type union u *) (var $p))"},
	{"(enum e)$x", "(cast (type enum e) (var $x))"},
	{"(typeof(size_t))$x", "(cast (typeof (type size_t)) (var $x))"},
	{"(typeof($y))$x", "(cast (typeof (var $y)) (var $x))"},
	{"(typeof(1 + 2))$x", "(cast (typeof (binary + (int 1) (int 2))) (var $x))"},
	{"(int8)-1", "(cast (type int8) (unary - (int 1)))"},
	{"(x) - 1", "(binary - (paren (ident x)) (int 1))"},
	{"(x) * y", "(binary * (paren (ident x)) (ident y))"},
	{"(a * b)", "(paren (binary * (ident a) (ident b)))"},
	{"(x[2])", "(paren (index (ident x) (int 2)))"},
	{"((struct foo *)$p)->bar", "(field (paren (cast (type struct foo *) (var $p))) ->bar)"},
	{"(struct foo *)$p->bar", "(cast (type struct foo *) (field (var $p) ->bar))"},
	{"(uint64)(uint32)$x", "(cast (type uint64) (cast (type uint32) (var $x)))"},

	// Calls, fields, indexes, maps.
	{"f(a, b)", "(call f (ident a) (ident b))"},
	{"f()", "(call f)"},
	{"kstack(perf, 3)", "(call kstack (ident perf) (int 3))"},
	{"str(args.filename)", "(call str (field (ident args) .filename))"},
	{"args->filename", "(field (ident args) ->filename)"},
	{"$t.0", "(field (var $t) .0)"},
	{"$t.1.0", "(field (field (var $t) .1) .0)"},
	{"$a[1]", "(index (var $a) (int 1))"},
	{"@x[1, \"a\"]", "(map @x (int 1) (str \"a\"))"},
	{"@x[$a, \"b\"]", "(map @x (var $a) (str \"b\"))"},
	{"@x[1][2]", "(index (map @x (int 1)) (int 2))"},
	{"@", "(map @)"},
	{"@[pid]", "(map @ (ident pid))"},
	{"@x[(1, 2)]", "(map @x (tuple (int 1) (int 2)))"},
	{"nsecs - @start[tid]", "(binary - (ident nsecs) (map @start (ident tid)))"},

	// Literals.
	{"0x1f", "(int 31)"},
	{"0X1F", "(int 31)"},
	{"0755", "(int 493)"},
	{"0", "(int 0)"},
	{"1_000_000", "(int 1000000)"},
	{"0xff_ff", "(int 65535)"},
	{"1s", "(int 1 s)"},
	{"10ms", "(int 10 ms)"},
	{"5us", "(int 5 us)"},
	{"100ns", "(int 100 ns)"},
	{"2m", "(int 2 m)"},
	{"1h", "(int 1 h)"},
	{"1d", "(int 1 d)"},
	{"1e6", "(int 1000000)"},
	{"0b101", "(int 5)"},
	{"'a'", "(int 97)"},
	{`'\n'`, "(int 10)"},
	{"18446744073709551615", "(int 18446744073709551615)"},
	{`"a\n\t\\\"\x41\101\0"`, `(str "a\n\t\\\"AA\x00")`},
	{"\"two\nlines\"", `(str "two\nlines")`},
	{`"\r\a\b\f\v\e\'\?"`, `(str "\r\a\b\f\v\x1b'?")`},
	{`""`, `(str "")`},
	{`"ünï"`, `(str "ünï")`},
	{"true", "(bool true)"},
	{"false", "(bool false)"},

	// Names.
	{"pid", "(ident pid)"},
	{"$1", "(posparam $1)"},
	{"$12", "(posparam $12)"},
	{"$#", "(posparam $#)"},
	{"$name", "(var $name)"},
	{"_", "(discard)"},

	// Tuples, records, parentheses.
	{"(1, \"a\")", "(tuple (int 1) (str \"a\"))"},
	{"(a=1, b=2)", "(record (a (int 1)) (b (int 2)))"},
	{"(a = (1, 2))", "(record (a (tuple (int 1) (int 2))))"},
	{"(1)", "(paren (int 1))"},
	{"((1))", "(paren (paren (int 1)))"},
	{"(1, (2, 3))", "(tuple (int 1) (tuple (int 2) (int 3)))"},
	{"(a == 1)", "(paren (binary == (ident a) (int 1)))"},

	// sizeof and offsetof.
	{"sizeof(struct task_struct)", "(sizeof (type struct task_struct))"},
	{"sizeof(uint32)", "(sizeof (type uint32))"},
	{"sizeof($x)", "(sizeof (var $x))"},
	{"sizeof(foo)", "(sizeof (ident foo))"},
	{"sizeof(char *)", "(sizeof (type char *))"},
	{"sizeof($x + 1)", "(sizeof (binary + (var $x) (int 1)))"},
	{"offsetof(struct x, field.sub)", "(offsetof (type struct x) field.sub)"},
	{"offsetof($x, a)", "(offsetof (var $x) a)"},
	{"offsetof(foo_t, a)", "(offsetof (ident foo_t) a)"},
	{"sizeof", "(ident sizeof)"},
	{"f(typeof($x))", "(call f (typearg (typeof (var $x))))"},
	{"typeinfo(int8)", "(call typeinfo (typearg (type int8)))"},
	{"typeinfo(struct task_struct *)", "(call typeinfo (typearg (type struct task_struct *)))"},
	{"typeinfo($x + 1)", "(call typeinfo (binary + (var $x) (int 1)))"},
	{"f(typeof(struct task_struct *), 1)", "(call f (typearg (typeof (type struct task_struct *))) (int 1))"},

	{"comm == \"bash\" && pid > 100", "(binary && (binary == (ident comm) (str \"bash\")) (binary > (ident pid) (int 100)))"},
	{"@x / 2 > 1", "(binary > (binary / (map @x) (int 2)) (int 1))"},
	{"a /* comment */ + // line\n b", "(binary + (ident a) (ident b))"},
}

func TestParseExpr(t *testing.T) { checkExprTrees(t, exprTests) }

// checkExprTrees parses each src as an expression and compares its tree
// with want, and its spans with the source.
func checkExprTrees(t *testing.T, tests []struct{ src, want string }) {
	t.Helper()
	for _, tt := range tests {
		x, err := syntax.ParseExpr(tt.src)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", tt.src, err)
			continue
		}
		if got := ast.Dump(x); got != tt.want {
			t.Errorf("ParseExpr(%q)\n got  %s\n want %s", tt.src, got, tt.want)
		}
		checkSpans(t, tt.src, "", x)
	}
}

// probeBody wraps a dump of statements the way a one-probe file dumps.
func probe(attach, body string) string {
	return "(file\n  (probe (attach \"" + attach + "\") (block" + body + ")))"
}

var fileTests = []struct{ name, src, want string }{
	{"simple", "BEGIN { @x = 1; }", probe("BEGIN", " (assign = (map @x) (int 1))")},
	{"no space before brace", "BEGIN{exit()}", probe("BEGIN", " (expr (call exit))")},
	{"lowercase begin end", "begin { } end { }", "(file\n  (probe (attach \"begin\") (block))\n  (probe (attach \"end\") (block)))"},
	{"trailing expression without semicolon", "END { print(@x) }", probe("END", " (expr (call print (map @x)))")},
	{"multiple attach points", "BEGIN, END { }", "(file\n  (probe (attach \"BEGIN\") (attach \"END\") (block)))"},
	{"attach points across lines", "BEGIN,\n  END\n{ }", "(file\n  (probe (attach \"BEGIN\") (attach \"END\") (block)))"},
	{"named attach points", "tick=interval:ms:100, end { }", "(file\n  (probe (attach tick= \"interval:ms:100\") (attach \"end\") (block)))"},
	{"a name only before the provider", "a=b=begin { }", "(file\n  (probe (attach a= \"b=begin\") (block)))"},
	{"predicate", `tracepoint:syscalls:sys_enter_open* /comm == "bash"/ { @[comm] = count(); }`,
		"(file\n  (probe (attach \"tracepoint:syscalls:sys_enter_open*\") (pred (binary == (ident comm) (str \"bash\"))) (block (assign = (map @ (ident comm)) (call count)))))"},
	{"division in predicate", "kprobe:f /@x / 2 > 1/ { }", "(file\n  (probe (attach \"kprobe:f\") (pred (binary > (binary / (map @x) (int 2)) (int 1))) (block)))"},
	{"division in predicate, no space", "kprobe:f /@x/2 > 1/{ }", "(file\n  (probe (attach \"kprobe:f\") (pred (binary > (binary / (map @x) (int 2)) (int 1))) (block)))"},
	{"predicate on own line", "kprobe:f\n/pid/\n{ }", "(file\n  (probe (attach \"kprobe:f\") (pred (ident pid)) (block)))"},
	{"comment after predicate", "kprobe:f / pid / /* c */ { }", "(file\n  (probe (attach \"kprobe:f\") (pred (ident pid)) (block)))"},
	{"predicate without spaces", "BEGIN/1/{}", "(file\n  (probe (attach \"BEGIN\") (pred (int 1)) (block)))"},
	{"uprobe path then predicate", "uprobe:/bin/bash:readline /pid == 1/ { }", "(file\n  (probe (attach \"uprobe:/bin/bash:readline\") (pred (binary == (ident pid) (int 1))) (block)))"},
	{"shebang and comments", "#!/usr/bin/bpftrace\n// comment\nBEGIN { /* x */ }\n/* trailing */", "(file\n  (shebang \"#!/usr/bin/bpftrace\")\n  (probe (attach \"BEGIN\") (block)))"},
	{"assignments",
		"BEGIN { $x = 1; $x += 2; $x -= 1; $x *= 2; $x /= 2; $x %= 3; $x &= 1; $x |= 1; $x ^= 1; $x <<= 1; $x >>= 1 }",
		probe("BEGIN", " (assign = (var $x) (int 1)) (assign += (var $x) (int 2)) (assign -= (var $x) (int 1)) (assign *= (var $x) (int 2)) (assign /= (var $x) (int 2)) (assign %= (var $x) (int 3)) (assign &= (var $x) (int 1)) (assign |= (var $x) (int 1)) (assign ^= (var $x) (int 1)) (assign <<= (var $x) (int 1)) (assign >>= (var $x) (int 1))")},
	{"assignment targets", "BEGIN { _ = f(); $t.field = 1; @m[1, 2] = 3; @m[k] = 1; *$p = 1 }",
		probe("BEGIN", " (assign = (discard) (call f)) (assign = (field (var $t) .field) (int 1)) (assign = (map @m (int 1) (int 2)) (int 3)) (assign = (map @m (ident k)) (int 1)) (assign = (unary * (var $p)) (int 1))")},
	{"increments", "BEGIN { $x++; $x--; ++$x; --$x; @x[1]++ }",
		probe("BEGIN", " (incdec post ++ (var $x)) (incdec post -- (var $x)) (incdec pre ++ (var $x)) (incdec pre -- (var $x)) (incdec post ++ (map @x (int 1)))")},
	{"let", "BEGIN { let $x; let $y = 1; let $z: uint32 = 2; let $s: struct foo * = 0; let $a: int8[4]; }",
		probe("BEGIN", " (let (var $x)) (let (var $y) (int 1)) (let (var $z) (type uint32) (int 2)) (let (var $s) (type struct foo *) (int 0)) (let (var $a) (type int8[4]))")},
	{"if", "BEGIN { if (1) { } if (1) { } else { } if (1) { } else if (2) { } else { } }",
		probe("BEGIN", " (if (int 1) (block)) (if (int 1) (block) (else (block))) (if (int 1) (block) (else (if (int 2) (block) (else (block)))))")},
	{"long else-if chain", "BEGIN { if (1) { } else if (2) { } else if (3) { } else if (4) { } }",
		probe("BEGIN", " (if (int 1) (block) (else (if (int 2) (block) (else (if (int 3) (block) (else (if (int 4) (block))))))))")},
	{"loops", "BEGIN { for ($i : 0..10) { } for ($kv : @m) { $kv.0 } while ($i < 10) { $i++ } unroll (5) { } }",
		probe("BEGIN", " (for (var $i) (range (int 0) (int 10)) (block)) (for (var $kv) (map @m) (block (expr (field (var $kv) .0)))) (while (binary < (var $i) (int 10)) (block (incdec post ++ (var $i)))) (unroll (int 5) (block))")},
	{"loop with expressions in range", "BEGIN { for ($i : $a + 1..$b * 2) { } }",
		probe("BEGIN", " (for (var $i) (range (binary + (var $a) (int 1)) (binary * (var $b) (int 2))) (block))")},
	{"conditions without parentheses", "BEGIN { if $x > 1 { } else if errname { } while $i < 3 { } }",
		probe("BEGIN", " (if (binary > (var $x) (int 1)) (block) (else (if (ident errname) (block)))) (while (binary < (var $i) (int 3)) (block))")},
	{"parenthesised condition prefix", "BEGIN { if ($a) + 1 > 2 { } if (($b)) { } }",
		probe("BEGIN", " (if (binary > (binary + (paren (var $a)) (int 1)) (int 2)) (block)) (if (paren (var $b)) (block))")},
	{"for without parentheses", "BEGIN { for $j : ((uint64)0)..((uint64)max) { } for $kv : @m { } }",
		probe("BEGIN", " (for (var $j) (range (paren (cast (type uint64) (int 0))) (paren (cast (type uint64) (ident max)))) (block)) (for (var $kv) (map @m) (block))")},
	{"jumps", "BEGIN { break; continue; return; return 1 }", probe("BEGIN", " (break) (continue) (return) (return (int 1))")},
	{"nested blocks and empty statements", "BEGIN { ; { $x = 1 } { } ; ; $y = 2; }",
		probe("BEGIN", " (block (assign = (var $x) (int 1))) (block) (assign = (var $y) (int 2))")},
	{"compound statements need no separator", "BEGIN { if (1) { } $x = 1; while (0) { } @y = 2 }",
		probe("BEGIN", " (if (int 1) (block)) (assign = (var $x) (int 1)) (while (int 0) (block)) (assign = (map @y) (int 2))")},
	{"extra semicolons", `BEGIN { printf("%d\n", 1) ; ; }`, probe("BEGIN", ` (expr (call printf (str "%d\n") (int 1)))`)},
	{"macros", "macro inc($x) { $x + 1 }\nmacro set(@m, k) { @m[k] = 1; }\nmacro nop() { }\nBEGIN { inc(1) }",
		"(file\n  (macro inc ($x) (block (expr (binary + (var $x) (int 1)))))\n  (macro set (@m k) (block (assign = (map @m (ident k)) (int 1))))\n  (macro nop () (block))\n  (probe (attach \"BEGIN\") (block (expr (call inc (int 1))))))"},
	{"map declarations", "let @a = hash(10);\nlet @b = lruhash(100);\nlet @c = percpuarray(1);\nBEGIN { }",
		"(file\n  (mapdecl @a hash (int 10))\n  (mapdecl @b lruhash (int 100))\n  (mapdecl @c percpuarray (int 1))\n  (probe (attach \"BEGIN\") (block)))"},
	{"config", "config = { max_strlen = 100; stack_mode = perf; }\nBEGIN { }",
		"(file\n  (config (entry max_strlen (int 100)) (entry stack_mode (ident perf)))\n  (probe (attach \"BEGIN\") (block)))"},
	{"config without final semicolon", "config = { missing_probes = \"ignore\"; print_maps_on_exit = false }\nBEGIN { }",
		"(file\n  (config (entry missing_probes (str \"ignore\")) (entry print_maps_on_exit (bool false)))\n  (probe (attach \"BEGIN\") (block)))"},
	{"preamble",
		"#include <linux/sched.h>\n#define X 1\n#define Y \\\n  2\nstruct foo { int a; char b[4]; };\nunion u { int a; long b; };\nenum { A, B };\ntypedef unsigned int u32;\nstruct bar { int x; }\nstruct baz { int y; } __attribute__((packed));\nBEGIN { }",
		"(file\n  (cdef \"#include <linux/sched.h>\")\n  (cdef \"#define X 1\")\n  (cdef \"#define Y \\\\\\n  2\")\n  (cdef \"struct foo { int a; char b[4]; };\")\n  (cdef \"union u { int a; long b; };\")\n  (cdef \"enum { A, B };\")\n  (cdef \"typedef unsigned int u32;\")\n  (cdef \"struct bar { int x; }\")\n  (cdef \"struct baz { int y; } __attribute__((packed));\")\n  (probe (attach \"BEGIN\") (block)))"},
	{"all top-level kinds",
		"#!/bin/bpftrace\n#include <x.h>\nconfig = { a = 1 }\nmacro m() { 1 }\nlet @h = hash(1);\nBEGIN { }",
		"(file\n  (shebang \"#!/bin/bpftrace\")\n  (cdef \"#include <x.h>\")\n  (config (entry a (int 1)))\n  (macro m () (block (expr (int 1))))\n  (mapdecl @h hash (int 1))\n  (probe (attach \"BEGIN\") (block)))"},
	{"imports", "#include <x.h>\nimport \"stdlib/test\";\nconfig = { a = 1 }\nimport \"stdlib/task/task.bpf.c\";\nbegin { }",
		"(file\n  (cdef \"#include <x.h>\")\n  (config (entry a (int 1)))\n  (import \"stdlib/test\")\n  (import \"stdlib/task/task.bpf.c\")\n  (probe (attach \"begin\") (block)))"},
	{"empty file", "", "(file)"},
	{"only comments", "// nothing\n/* here */\n", "(file)"},
	{"cast in statement", "kprobe:tcp_connect { $sk = (struct sock *)arg0; @[$sk->__sk_common.skc_dport] = count(); }",
		probe("kprobe:tcp_connect", " (assign = (var $sk) (cast (type struct sock *) (ident arg0))) (assign = (map @ (field (field (var $sk) ->__sk_common) .skc_dport)) (call count))")},
	{"tracepoint args", "tracepoint:syscalls:sys_enter_openat { printf(\"%s %s\\n\", comm, str(args.filename)); }",
		probe("tracepoint:syscalls:sys_enter_openat", ` (expr (call printf (str "%s %s\n") (ident comm) (call str (field (ident args) .filename))))`)},
	{"hist", "kretprobe:vfs_read /retval > 0/ { @bytes = hist(retval); }",
		"(file\n  (probe (attach \"kretprobe:vfs_read\") (pred (binary > (ident retval) (int 0))) (block (assign = (map @bytes) (call hist (ident retval))))))"},
	{"interval", "interval:s:1 { print(@); clear(@); }", probe("interval:s:1", " (expr (call print (map @))) (expr (call clear (map @)))")},
}

func TestParseFile(t *testing.T) {
	for _, tt := range fileTests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := syntax.Parse("t.bt", tt.src)
			if err != nil {
				t.Fatalf("Parse(%q): %v\n%s", tt.src, err, syntax.Render(err, tt.src))
			}
			if got := ast.Dump(f); got != tt.want {
				t.Errorf("Parse(%q)\n got  %s\n want %s", tt.src, got, tt.want)
			}
			if f.Name != "t.bt" || f.Src != tt.src {
				t.Errorf("File.Name/Src = %q/%q", f.Name, f.Src)
			}
			checkSpans(t, tt.src, "t.bt", f)
		})
	}
}

func TestParseAttachPoints(t *testing.T) {
	for _, raw := range []string{
		"BEGIN", "begin", "END", "end",
		"tracepoint:syscalls:sys_enter_open*", "t:sched:sched_switch",
		"kprobe:vfs_read", "kprobe:do_sys_open+0x10", "kretprobe:vfs_*",
		"fentry:vmlinux:vfs_read", "fexit:vfs_read", "tp_btf:sched_switch",
		"uprobe:/bin/bash:readline", "uretprobe:/lib/x86_64-linux-gnu/libc.so.6:malloc",
		"usdt:/path:prov:name", "uprobe:/usr/lib/libc.so.6:0x1234",
		"interval:s:1", "i:ms:100", "profile:hz:99", "p:ms:1",
		"software:cpu-clock:1000000", "hardware:cache-misses:1000000",
		"rawtracepoint:sched_switch", "watchpoint:0x1234:8:rw",
		`uprobe:"/path with spaces":fn`, `uprobe:"/a,b{c}":fn`,
		"kprobe:vfs_{read,write}", "kprobe:vfs_rea?", "kprobe:*", "*:*",
		"uprobe:./a.out:main", "uprobe:../bin/x:f", "$1", "$2",
	} {
		for _, form := range []string{"%s { }", "%s{ }", "%s /1/ { }", "  %s\n{}"} {
			src := strings.Replace(form, "%s", raw, 1)
			f, err := syntax.Parse("t.bt", src)
			if err != nil {
				t.Errorf("Parse(%q): %v", src, err)
				continue
			}
			if len(f.Probes) != 1 || len(f.Probes[0].Attach) != 1 {
				t.Errorf("Parse(%q): got %s", src, ast.Dump(f))
				continue
			}
			ap := f.Probes[0].Attach[0]
			if ap.Raw != raw {
				t.Errorf("Parse(%q): Raw = %q, want %q", src, ap.Raw, raw)
			}
			start := strings.Index(src, raw)
			if ap.Start.Offset != start || ap.End.Offset != start+len(raw) || ap.Start.Column != start+1 {
				t.Errorf("Parse(%q): attach span %v-%v, want offset %d-%d", src, ap.Start, ap.End, start, start+len(raw))
			}
		}
	}
	// Several attach points, with and without spaces and newlines.
	src := "kprobe:a,kprobe:b, uprobe:/x/y:z,\n  tracepoint:c:d /pid/ { }"
	f, err := syntax.Parse("t.bt", src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ap := range f.Probes[0].Attach {
		got = append(got, ap.Raw)
		if src[ap.Start.Offset:ap.End.Offset] != ap.Raw {
			t.Errorf("span of %q covers %q", ap.Raw, src[ap.Start.Offset:ap.End.Offset])
		}
	}
	if want := []string{"kprobe:a", "kprobe:b", "uprobe:/x/y:z", "tracepoint:c:d"}; !reflect.DeepEqual(got, want) {
		t.Errorf("attach points = %q, want %q", got, want)
	}
}

var errorTests = []struct{ name, src, want string }{
	{"missing closing brace", "BEGIN { printf(\"x\");\n", `t.bt:2:1-2: ERROR: unexpected end of input, expected "}"`},
	{"missing assignment value", "BEGIN { @x = ; }", `t.bt:1:14-15: ERROR: unexpected token ";", expected expression`},
	{"extra closing brace", "BEGIN { @x = 1 }\n}", `t.bt:2:1-2: ERROR: unexpected token "}"`},
	{"missing semicolon", "BEGIN {\n  @x = 1\n  $y = 2\n}", `t.bt:3:3-4: ERROR: unexpected token "$y", expected ";"`},
	{"unterminated string", "BEGIN {\n  printf(\"abc);\n}", `t.bt:2:10-11: ERROR: unterminated string literal`},
	{"unterminated comment", "BEGIN { } /* abc\n\n", `t.bt:1:11-12: ERROR: unterminated comment`},
	{"missing block", "kprobe:f printf(\"x\") }", `t.bt:1:10-11: ERROR: unexpected token "printf", expected "{"`},
	{"bad attach point", ",BEGIN { }", `t.bt:1:1-2: ERROR: unexpected token ","`},
	{"block without attach point", "{ }", `t.bt:1:1-2: ERROR: unexpected token "{"`},
	{"missing attach point after comma", "BEGIN, { }", `t.bt:1:8-9: ERROR: unexpected token "{", expected attach point`},
	{"unterminated quoted attach point", "uprobe:\"/bin/x:f { }", `t.bt:1:8-9: ERROR: unterminated string literal`},
	{"if without condition", "BEGIN { if { } }", `t.bt:1:12-13: ERROR: unexpected token "{", expected expression`},
	{"if without block", "BEGIN { if x }", `t.bt:1:14-15: ERROR: unexpected token "}", expected "{"`},
	{"else without block", "BEGIN { if (1) { } else }", `t.bt:1:25-26: ERROR: unexpected token "}", expected "if" or "{"`},
	{"else after else", "BEGIN { if (1) { } else { } else { } }", `t.bt:1:29-30: ERROR: unexpected "else" after the final else block`},
	{"unbalanced paren", "BEGIN { $x = (1 + 2; }", `t.bt:1:20-21: ERROR: unexpected token ";", expected ")"`},
	{"missing operand", "BEGIN { $x = 1 +; }", `t.bt:1:17-18: ERROR: unexpected token ";", expected expression`},
	{"bad for", "BEGIN { for ($i : 1) {} }", `t.bt:1:19-20: ERROR: expected a map (for ($kv : @map)) or a range (for ($i : lo..hi))`},
	{"assign to literal", "BEGIN { 1 = 2; }", `t.bt:1:9-10: ERROR: cannot assign to this expression`},
	{"unterminated predicate", "kprobe:f /pid == 1 { }", `t.bt:1:20-21: ERROR: unexpected token "{", expected "/" closing the predicate`},
	{"empty predicate", "kprobe:f / / { }", `t.bt:1:12-13: ERROR: unexpected token "/", expected expression`},
	{"bad escape", `BEGIN { $x = "a\q"; }`, `t.bt:1:16-17: ERROR: invalid escape sequence "\q"`},
	{"bad escape after a newline in the string", "BEGIN { $x = \"a\n  \\q\"; }", `t.bt:2:3-4: ERROR: invalid escape sequence "\q"`},
	{"bad hex literal", "BEGIN { $x = 0x; }", `t.bt:1:14-15: ERROR: invalid integer literal "0x"`},
	{"bad suffix", "BEGIN { $x = 12abc; }", `t.bt:1:14-15: ERROR: invalid integer literal "12abc"`},
	{"bad octal", "BEGIN { $x = 09; }", `t.bt:1:14-15: ERROR: invalid integer literal "09"`},
	{"integer overflow", "BEGIN { $x = 18446744073709551616; }", `t.bt:1:14-15: ERROR: integer literal "18446744073709551616" out of range`},
	{"empty map key", "BEGIN { @x[] = 1; }", `t.bt:1:12-13: ERROR: empty map key: expected expression`},
	{"lone dollar", "BEGIN { $x = $; }", `t.bt:1:14-15: ERROR: expected a variable name after '$'`},
	{"positional zero", "BEGIN { $x = $0; }", `t.bt:1:14-15: ERROR: invalid positional parameter $0: parameters start at $1`},
	{"ternary without colon", "BEGIN { x ? 1 2 }", `t.bt:1:15-16: ERROR: unexpected token "2", expected ":"`},
	{"config missing semicolon", "config = { a = 1 b = 2 }", `t.bt:1:18-19: ERROR: unexpected token "b", expected ";"`},
	{"map decl missing semicolon", "let @m = hash(10) BEGIN {}", `t.bt:1:19-20: ERROR: unexpected token "BEGIN", expected ";"`},
	{"let without type", "BEGIN { let $x: = 1; }", `t.bt:1:17-18: ERROR: unexpected token "=", expected type`},
	{"probe without block at end", "BEGIN {} END", `t.bt:1:13-14: ERROR: unexpected end of input, expected "{"`},
	{"else without if", "BEGIN { else }", `t.bt:1:9-10: ERROR: unexpected token "else", expected "}"`},
	{"macro missing paren", "macro f( { }", `t.bt:1:10-11: ERROR: unexpected token "{", expected ")"`},
	{"missing field name", "BEGIN { $x.; }", `t.bt:1:12-13: ERROR: unexpected token ";", expected field name`},
	{"trailing comma in call", "BEGIN { f(1,); }", `t.bt:1:13-14: ERROR: unexpected token ")", expected expression`},
	{"return with two values", "BEGIN { return 1 2; }", `t.bt:1:18-19: ERROR: unexpected token "2", expected ";"`},
	{"cast without operand", "BEGIN { @x = (uint32); }", `t.bt:1:22-23: ERROR: unexpected token ";", expected expression`},
	{"unterminated C definition", "struct foo { int a;\nBEGIN { }", `t.bt:1:1-2: ERROR: unterminated C definition: missing ';'`},
	{"non-ASCII character", "BEGIN { $x = 1 é }", `t.bt:1:16-17: ERROR: unexpected character 'é'`},
	{"while without block", "BEGIN { while (1) }", `t.bt:1:19-20: ERROR: unexpected token "}", expected "{"`},
	{"unterminated char", "BEGIN { $x = 'a; }", `t.bt:1:14-15: ERROR: unterminated character literal`},
	{"duplicate config", "config = { a = 1 }\nconfig = { b = 2 }", `t.bt:2:1-2: ERROR: duplicate config block`},
	{"import after a probe", "BEGIN { }\nimport \"stdlib/test\";", `t.bt:2:1-2: ERROR: root imports must appear before probes and functions`},
	{"import without semicolon", "import \"stdlib/test\"\nBEGIN { }", `t.bt:2:1-2: ERROR: unexpected token "BEGIN", expected ";"`},
	{"C definition after an import", "import \"stdlib/test\";\n#include <x.h>\nBEGIN { }", `t.bt:2:1-2: ERROR: C definitions must appear before probes and functions`},
	{"nesting limit", "BEGIN { $x = " + strings.Repeat("(", 600) + "1" + strings.Repeat(")", 600) + "; }", `ERROR: expression nested too deeply`},
	{"unary nesting limit", "BEGIN { $x = " + strings.Repeat("!", 1200) + "1; }", `ERROR: expression nested too deeply`},
	{"chain limit", "BEGIN { $x = 1" + strings.Repeat(" + 1", 20001) + "; }", `ERROR: expression too long: more than 20000 operators in a chain`},
	{"million-term chain", "BEGIN { $x = 1" + strings.Repeat(" + 1", 1000000) + "; }", `t.bt:1:1000006-1000007: ERROR: program too long: more than 500000 tokens`},
	{"block nesting limit", "BEGIN " + strings.Repeat("{", 300) + strings.Repeat("}", 300), `ERROR: blocks nested too deeply`},
	{"directive after a probe", "#ifdef FOO\nBEGIN { }\n#else\nEND { }\n#endif", `t.bt:3:1-2: ERROR: C definitions must appear before probes and functions`},
	{"C definition after config", "config = { a = 1 }\n#include <x.h>\nBEGIN { }", `t.bt:2:1-2: ERROR: C definitions must appear before probes and functions`},
	{"directive in a block", "BEGIN {\n#ifdef FOO\n}", `t.bt:2:1-2: ERROR: unexpected character '#'`},
	{"tab-indented", "BEGIN {\n\t@x = ;\n}", `t.bt:2:7-8: ERROR: unexpected token ";", expected expression`},
}

func TestParseErrors(t *testing.T) {
	for _, tt := range errorTests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := syntax.Parse("t.bt", tt.src)
			if err == nil {
				t.Fatalf("Parse(%q) succeeded: %s", tt.src, ast.Dump(f))
			}
			var list syntax.ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("Parse(%q) error %T is not a syntax.ErrorList", tt.src, err)
			}
			got := list[0].Error()
			if !strings.Contains(got, tt.want) {
				t.Errorf("Parse(%q)\n got  %s\n want %s", tt.src, got, tt.want)
			}
			langtest.ErrorPos(t, tt.src, list)
		})
	}
}

func TestParseRenderUnderline(t *testing.T) {
	src := "BEGIN {\n\t@x = ;\n}"
	_, err := syntax.Parse("t.bt", src)
	if err == nil {
		t.Fatal("no error")
	}
	want := "t.bt:2:7-8: ERROR: unexpected token \";\", expected expression\n" +
		"    @x = ;\n" +
		"         ~\n"
	if got := syntax.Render(err, src); got != want {
		t.Errorf("Render:\n%s\nwant:\n%s", got, want)
	}

	src = "kprobe:f /pid == 1 { }"
	_, err = syntax.Parse("-e", src)
	want = "-e:1:20-21: ERROR: unexpected token \"{\", expected \"/\" closing the predicate\n" +
		src + "\n" +
		strings.Repeat(" ", 19) + "~\n"
	if got := syntax.Render(err, src); got != want {
		t.Errorf("Render:\n%s\nwant:\n%s", got, want)
	}

	src = "BEGIN { \"x\" + \"\\z\" }"
	_, err = syntax.Parse("-e", src)
	want = "-e:1:16-17: ERROR: invalid escape sequence \"\\z\"\n" + src + "\n" + strings.Repeat(" ", 15) + "~\n"
	if got := syntax.Render(err, src); got != want {
		t.Errorf("Render:\n%s\nwant:\n%s", got, want)
	}
}

func TestParseExprErrors(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"", "1:1-2: ERROR: unexpected end of input, expected expression"},
		{"1 +", "1:4-5: ERROR: unexpected end of input, expected expression"},
		{"1 2", `1:3-4: ERROR: unexpected token "2"`},
		{"if", `1:1-2: ERROR: unexpected token "if", expected expression`},
		{"if (a) { b }", `1:13-14: ERROR: an if used as a value needs an else branch`},
		{"if (a) { b } else c", `1:19-20: ERROR: unexpected token "c", expected "{"`},
		{"(1", `1:3-4: ERROR: unexpected end of input, expected ")"`},
		{"f(1", `1:4-5: ERROR: unexpected end of input, expected "," or ")"`},
		{"@x[1", `1:5-6: ERROR: unexpected end of input, expected "," or "]"`},
		{"(a=1, 2)", `1:7-8: ERROR: unexpected token "2", expected field name`},
		{"offsetof(struct x)", `1:18-19: ERROR: unexpected token ")", expected ","`},
		{"$x.\"a\"", `1:4-5: ERROR: unexpected token "\"a\"", expected field name`},
	} {
		_, err := syntax.ParseExpr(tt.src)
		if err == nil {
			t.Errorf("ParseExpr(%q) succeeded", tt.src)
			continue
		}
		if got := err.Error(); !strings.Contains(got, tt.want) {
			t.Errorf("ParseExpr(%q)\n got  %s\n want %s", tt.src, got, tt.want)
		}
	}
}

func TestParseSpans(t *testing.T) {
	src := "kprobe:f /pid > 1/ {\n  @x[comm, pid] = foo(1, 2) + $y->z;\n  if ($a) { $b++ } else { return }\n}\n"
	f, err := syntax.Parse("t.bt", src)
	if err != nil {
		t.Fatal(err)
	}
	checkSpans(t, src, "t.bt", f)
	text := func(n ast.Node) string {
		sp := n.GetSpan()
		return src[sp.Start.Offset:sp.End.Offset]
	}
	p := f.Probes[0]
	assign := p.Body.Stmts[0].(*ast.AssignStmt)
	bin := assign.Rhs.(*ast.Binary)
	call := bin.X.(*ast.Call)
	ifs := p.Body.Stmts[1].(*ast.IfStmt)
	for _, tt := range []struct {
		n         ast.Node
		want      string
		line, col int
	}{
		{p, src[:len(src)-1], 1, 1},
		{p.Pred, "pid > 1", 1, 11},
		{p.Body, src[19 : len(src)-1], 1, 20},
		{assign, "@x[comm, pid] = foo(1, 2) + $y->z", 2, 3},
		{assign.Lhs, "@x[comm, pid]", 2, 3},
		{bin, "foo(1, 2) + $y->z", 2, 19},
		{call, "foo(1, 2)", 2, 19},
		{call.Args[1], "2", 2, 26},
		{bin.Y, "$y->z", 2, 31},
		{ifs, "if ($a) { $b++ } else { return }", 3, 3},
		{ifs.Then.Stmts[0], "$b++", 3, 13},
		{ifs.Else, "{ return }", 3, 25},
	} {
		if got := text(tt.n); got != tt.want {
			t.Errorf("%T covers %q, want %q", tt.n, got, tt.want)
		}
		if s := tt.n.GetSpan().Start; s.Line != tt.line || s.Column != tt.col || s.Filename != "t.bt" {
			t.Errorf("%T starts at %v, want t.bt:%d:%d", tt.n, s, tt.line, tt.col)
		}
	}
}

// checkSpans walks every node under root and checks that its span is
// well formed, agrees with the source, and lies inside its parent's span.
func checkSpans(t *testing.T, src, name string, root ast.Node) {
	t.Helper()
	idx := langtest.NewLineIndex(src)
	var walk func(n ast.Node, parent srcpos.Span)
	walk = func(n ast.Node, parent srcpos.Span) {
		sp := n.GetSpan()
		for _, p := range []srcpos.Pos{sp.Start, sp.End} {
			if p.Filename != name {
				t.Errorf("%T: filename %q, want %q", n, p.Filename, name)
			}
			if p.Offset < 0 || p.Offset > len(src) {
				t.Errorf("%T: offset %d out of range", n, p.Offset)
				return
			}
			if l, c := idx.LineCol(p.Offset); l != p.Line || c != p.Column {
				t.Errorf("%T: offset %d is %d:%d, span says %d:%d", n, p.Offset, l, c, p.Line, p.Column)
			}
		}
		if sp.End.Offset < sp.Start.Offset {
			t.Errorf("%T: span %v-%v is reversed", n, sp.Start, sp.End)
		}
		if sp.End.Offset == sp.Start.Offset && len(src) > 0 {
			t.Errorf("%T: empty span at %v", n, sp.Start)
		}
		if sp.Start.Offset < parent.Start.Offset || sp.End.Offset > parent.End.Offset {
			t.Errorf("%T %q is outside its parent's span %q", n,
				src[sp.Start.Offset:sp.End.Offset], src[parent.Start.Offset:parent.End.Offset])
		}
		for _, c := range children(n) {
			walk(c, sp)
		}
	}
	walk(root, root.GetSpan())
}

var nodeType = reflect.TypeOf((*ast.Node)(nil)).Elem()

// children returns the non-nil child nodes of n, found by reflection.
func children(n ast.Node) []ast.Node {
	var out []ast.Node
	v := reflect.ValueOf(n).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch {
		case f.Kind() == reflect.Slice:
			for j := 0; j < f.Len(); j++ {
				if e := f.Index(j); e.Type().Implements(nodeType) && !e.IsNil() {
					out = append(out, e.Interface().(ast.Node))
				}
			}
		case (f.Kind() == reflect.Pointer || f.Kind() == reflect.Interface) && f.Type().Implements(nodeType):
			if !f.IsNil() {
				out = append(out, f.Interface().(ast.Node))
			}
		}
	}
	return out
}

func FuzzParse(f *testing.F) {
	for _, tt := range fileTests {
		f.Add(tt.src)
	}
	for _, tt := range errorTests {
		f.Add(tt.src)
	}
	for _, tt := range exprTests {
		f.Add("BEGIN { $x = " + tt.src + "; }")
	}
	for _, s := range fuzzwatch.Scripts(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		fuzzwatch.Run(t, fuzzwatch.Default, len(src), func() {
			file, err := syntax.Parse("f.bt", src)
			if err != nil {
				var list syntax.ErrorList
				if !errors.As(err, &list) || len(list) == 0 {
					t.Errorf("error %T %v is not a non-empty syntax.ErrorList", err, err)
					return
				}
				langtest.ErrorPos(t, src, list)
				_ = syntax.Render(err, src)
				return
			}
			_ = ast.Dump(file)
			checkSpans(t, src, "f.bt", file)
			if x, err := syntax.ParseExpr(src); err == nil {
				_ = ast.Dump(x)
			}
		})
	})
}
