package builtin

import (
	"regexp"
	"strings"
)

// Doc documents a builtin for people: its signature and what it does.
// Editors show it (the language server's completion and hover); the table
// test checks that every builtin has one.
type Doc struct {
	Sig  string // e.g. "printf(fmt: string, args...)" or "pid: uint32"
	Text string
}

// Docs returns the documentation of the builtin function or variable
// name, with its definition's Example; a name that is both (comm, pid,
// kstack...) has the function's signature and the variable's.
func Docs(name string) Doc {
	d := docs[name]
	var ex string
	if f := LookupFunc(name); f != nil {
		ex = f.Example
		if f.Doc.Sig != "" {
			d = f.Doc
		}
	} else if v := LookupVar(name); v != nil {
		ex = v.Example
	}
	if argNName.MatchString(name) {
		d = Doc{Sig: name + ": uint64", Text: "Argument " + name[3:] + " of the probed function, in its register (kprobe, uprobe, usdt)."}
	}
	if ex != "" {
		d.Text = strings.TrimSpace(d.Text + "\n\nExample: `" + ex + "`")
	}
	return d
}

var argNName = regexp.MustCompile(`^arg[0-9]+$`)

// Markdown renders the documentation for an editor.
func (d Doc) Markdown() string {
	if d.Sig == "" {
		return d.Text
	}
	return "```\n" + d.Sig + "\n```\n" + d.Text
}

// docs holds, by name, what each builtin is; the signatures use
// bpftrace's documentation's notation.
var docs = map[string]Doc{
	// Output.
	"printf":   {"printf(fmt: string, args...)", "Prints a formatted string (C printf conversions, with %s for strings, %r for buffers)."},
	"errorf":   {"errorf(fmt: string, args...)", "Prints a formatted error message, with the probe's location, to stderr."},
	"warnf":    {"warnf(fmt: string, args...)", "Prints a formatted warning, with the probe's location, to stderr."},
	"debugf":   {"debugf(fmt: string, args...)", "Writes a formatted message to the kernel's trace pipe (bpf_trace_printk)."},
	"system":   {"system(fmt: string, args...)", "Runs a shell command (needs --unsafe)."},
	"cat":      {"cat(fmt: string, args...)", "Prints the contents of the named file."},
	"print":    {"print(@map [, top [, div]]) | print(value)", "Prints a map, or a value, now."},
	"time":     {"time([fmt: string])", "Prints the current time with strftime's format (default \"%H:%M:%S\\n\")."},
	"join":     {"join(argv: char *[] [, sep: string])", "Prints an array of strings (e.g. execve's argv) joined by sep (default \" \")."},
	"strftime": {"strftime(fmt: string, nsecs: uint64): timestamp", "Formats a timestamp (nanoseconds since boot) with strftime's conversions, when printed with %s."},
	"exit":     {"exit([code: int])", "Ends the program: runs END probes, prints the maps, exits with code."},
	// Maps.
	"clear":   {"clear(@map)", "Deletes every element of a map."},
	"zero":    {"zero(@map)", "Sets every value of a map to zero."},
	"delete":  {"delete(@map, key): bool", "Deletes one element of a map; true when it was there."},
	"has_key": {"has_key(@map, key): bool", "Reports whether a map has a key."},
	"len":     {"len(@map | stack): int64", "The number of elements of a map, or of frames of a stack."},
	"find":    {"find(@map, key, $value): bool", "Looks a key up, storing its value in a variable; true when found."},
	// Aggregations.
	"count":   {"@m = count()", "Counts the events."},
	"sum":     {"@m = sum(value: int)", "Sums values."},
	"avg":     {"@m = avg(value: int)", "Averages values."},
	"min":     {"@m = min(value: int)", "Keeps the smallest value."},
	"max":     {"@m = max(value: int)", "Keeps the largest value."},
	"stats":   {"@m = stats(value: int)", "Keeps count, average and total of values."},
	"hist":    {"@m = hist(value: int [, k: int])", "A power-of-two histogram of values (k: 2^k buckets per power)."},
	"lhist":   {"@m = lhist(value: int, min: int, max: int, step: int)", "A linear histogram of values."},
	"tseries": {"@m = tseries(value: int, interval: duration, num: int [, agg])", "A time series of values over intervals."},
	// Strings and buffers.
	"str":         {"str(ptr [, len: int]): string", "Reads a NUL-terminated string from memory (kernel or user, from the pointer's address space)."},
	"buf":         {"buf(ptr, len: int): buffer", "Reads len bytes of memory as a buffer (%r prints it)."},
	"strlen":      {"strlen(s: string): int64", "The length of a string."},
	"strncmp":     {"strncmp(a: string, b: string, n: int): int64", "Compares the first n bytes of two strings (0 when equal)."},
	"strcontains": {"strcontains(haystack: string, needle: string): bool", "Reports whether a string contains another."},
	"strstr":      {"strstr(haystack: string, needle: string): int64", "The index of needle in haystack, or -1."},
	"str_concat":  {"str_concat(a: string, b: string, ...): string", "Concatenates strings."},
	"strcap":      {"strcap(s: string): string", "The string with its first letter capitalised."},
	"strerror":    {"strerror(errno: int): strerror", "An errno value, printed as its message with %s."},
	"memcmp":      {"memcmp(a, b, n: int): int64", "Compares n bytes of two values."},
	"assert_str":  {"assert_str(s)", "Checks at compile time that a value is a string."},
	// Addresses and symbols.
	"ksym":          {"ksym(addr: uint64): ksym", "A kernel address, printed as its symbol name."},
	"usym":          {"usym(addr: uint64): usym", "A user address, printed as its symbol name."},
	"kaddr":         {"kaddr(name: string): uint64", "The address of a kernel symbol."},
	"uaddr":         {"uaddr(name: string): pointer", "The address of a symbol of the probed user binary."},
	"percpu_kaddr":  {"percpu_kaddr(name: string [, cpu: int]): uint64", "The address of a per-CPU kernel variable on this (or the given) CPU."},
	"kptr":          {"kptr(ptr): pointer", "Marks a pointer as a kernel address."},
	"uptr":          {"uptr(ptr): pointer", "Marks a pointer as a user address."},
	"reg":           {"reg(name: string): uint64", "The value of a register of the probed context (\"ip\", \"sp\", ...)."},
	"kstack":        {"kstack([mode] [, limit: int]): kstack", "The kernel stack (mode: bpftrace, perf, raw)."},
	"ustack":        {"ustack([mode] [, limit: int]): ustack", "The user stack (mode: bpftrace, perf, raw)."},
	"ntop":          {"ntop([af: int,] addr): inet", "An IPv4 or IPv6 address, printed in text form."},
	"pton":          {"pton(addr: string): uint8[4] | uint8[16]", "Converts a literal IP address to bytes."},
	"macaddr":       {"macaddr(addr): macaddr", "A MAC address, printed as aa:bb:cc:dd:ee:ff."},
	"cgroupid":      {"cgroupid(path: string): uint64", "The id of a cgroup v2 directory."},
	"cgroup_path":   {"cgroup_path(id: uint64 [, filter: string]): cgroup_path", "The path of a cgroup, printed with %s."},
	"path":          {"path(path: struct path *): string", "The path of a struct path (fentry/fexit and some iterators)."},
	"bswap":         {"bswap(n: int): int", "Reverses the bytes of an integer."},
	"socket_cookie": {"socket_cookie(sk: struct sock *): uint64", "The cookie of a socket."},
	"skboutput":     {"skboutput(path: string, skb, len: int, offset: int): uint32", "Writes packets to a pcap file."},
	"syscall_name":  {"syscall_name(nr: int): string", "The name of a system call by number."},
	"signal_name":   {"signal_name(sig: int): string", "The name of a signal by number."},
	// Process control.
	"signal":        {"signal(sig: string | int)", "Sends a signal to the current process (needs --unsafe)."},
	"signal_thread": {"signal_thread(sig: string | int)", "Sends a signal to the current thread (needs --unsafe)."},
	"override":      {"override(rc: int)", "Overrides the return value of the probed kernel function (kprobe, needs --unsafe)."},
	"write_user":    {"write_user(ptr, value)", "Writes to user memory (needs --unsafe)."},
	// Compile time.
	"sizeof":              {"sizeof(type | expr): uint64", "The size of a type or expression."},
	"static_assert":       {"static_assert(cond [, msg: string])", "Fails the compile when cond is false."},
	"assert":              {"assert(cond, msg: string)", "Ends the program with msg when cond is false."},
	"fail":                {"fail(fmt: string, args...)", "Fails the compile with a message."},
	"comptime":            {"comptime expr", "Evaluates an expression at compile time."},
	"is_array":            {"is_array(x): bool", "Whether x is an array (at compile time)."},
	"is_integer":          {"is_integer(x): bool", "Whether x is an integer (at compile time)."},
	"is_unsigned_integer": {"is_unsigned_integer(x): bool", "Whether x is an unsigned integer (at compile time)."},
	"is_literal":          {"is_literal(x): bool", "Whether x is a literal (at compile time)."},
	"is_ptr":              {"is_ptr(x): bool", "Whether x is a pointer (at compile time)."},
	"is_str":              {"is_str(x): bool", "Whether x is a string (at compile time)."},
	"is_err":              {"is_err(ptr): bool", "Whether a kernel pointer is an error value (IS_ERR)."},
	"kfunc_allowed":       {"kfunc_allowed(name: string): bool", "Whether this probe may call the kernel function name."},
	"kfunc_exist":         {"kfunc_exist(name: string): bool", "Whether the kernel has the kfunc name."},
	"getopt":              {"getopt(name: string [, default]): value", "A named parameter (--name=value after --), or its default."},
	"config":              {"config: record", "The script's configuration values."},
	"__always_true":       {"__always_true(): bool", "Always true (bpftrace's internal builtin)."},
	// Variables.
	"pid":         {"pid: uint32", "The process id (tgid) of the current task."},
	"tid":         {"tid: uint32", "The thread id of the current task."},
	"ppid":        {"ppid: uint32", "The parent's process id."},
	"uid":         {"uid: uint32", "The user id."},
	"gid":         {"gid: uint32", "The group id."},
	"username":    {"username: username", "The user name of uid."},
	"comm":        {"comm: string[16]", "The name of the current thread."},
	"pcomm":       {"pcomm: string[16]", "The name of the parent process."},
	"leader_comm": {"leader_comm: string[16]", "The name of the thread group leader."},
	"leader_tid":  {"leader_tid: uint32", "The thread id of the thread group leader."},
	"cpu":         {"cpu: uint32", "The CPU the probe runs on."},
	"ncpus":       {"ncpus: uint64", "The number of CPUs."},
	"numaid":      {"numaid: uint32", "The NUMA node the probe runs on."},
	"nsecs":       {"nsecs: uint64", "Nanoseconds since boot (nsecs(monotonic|boot|tai|sw_tai) picks the clock)."},
	"elapsed":     {"elapsed: uint64", "Nanoseconds since the program started."},
	"jiffies":     {"jiffies: uint64", "The kernel's jiffies."},
	"rand":        {"rand: uint32", "A pseudo-random number."},
	"cgroup":      {"cgroup: uint64", "The cgroup v2 id of the current task."},
	"curtask":     {"curtask: struct task_struct *", "The current task."},
	"ctx":         {"ctx: pointer", "The probe's context (pt_regs or the tracepoint record)."},
	"args":        {"args: record", "The probe's arguments by name: tracepoint fields, function parameters (fentry, kprobe with BTF, uprobe with DWARF)."},
	"retval":      {"retval: int", "The return value (kretprobe, uretprobe, fexit)."},
	"func":        {"func: string", "The name of the probed function."},
	"probe":       {"probe: string", "The name of the probe (its attach point)."},
	"probetype":   {"probetype: string", "The provider of the probe (\"kprobe\", ...)."},
	"usermode":    {"usermode: uint8", "1 when the probe fired in user mode."},
	"cpid":        {"cpid: uint32", "The pid of the -c command."},
	"has_cpid":    {"has_cpid: bool", "Whether a -c command runs."},
}
