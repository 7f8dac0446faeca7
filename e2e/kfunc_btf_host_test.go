package e2e

import (
	"fmt"
	"os"
	"regexp"
	"syscall"
	"testing"
	"time"
)

// TestRawTracepointBTF: tp_btf probes with typed args (direct BTF loads),
// argN, curtask chains and casts to kernel types, on this kernel.
func TestRawTracepointBTF(t *testing.T) {
	script := `rawtracepoint:sys_enter /args.regs != 0 && pid == $1/ {
	@id[args.id] = count();
	@arg1[arg1] = count();
	@comm[curtask->comm] = count();
	@same = count();
	if (((struct task_struct *)curtask)->pid == tid) { @tid_ok = count(); }
	if (curtask->group_leader->pid == pid) { @tgid_ok = count(); }
}`
	s := startNoWait(t, "-e", script, fmt.Sprint(os.Getpid()))
	s.waitLinks(1, 20*time.Second)
	getppidN(5)
	got := s.stop(syscall.SIGINT)
	if got.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", got.code, got.stderr)
	}
	for _, re := range []string{
		`(?m)^@id\[110\]: ([5-9]|\d\d+)$`,   // getppid
		`(?m)^@arg1\[110\]: ([5-9]|\d\d+)$`, // arg1 is the syscall number
		`(?m)^@comm\[e2e\.test\]: \d+$`,
		`(?m)^@tid_ok: \d+$`,
		`(?m)^@tgid_ok: \d+$`,
	} {
		if !regexp.MustCompile(re).MatchString(got.stdout) {
			t.Errorf("output lacks %s:\n%s", re, got.stdout)
		}
	}
	// Every probe hit passed both identity checks.
	m := regexp.MustCompile(`(?m)^@same: (\d+)$`).FindStringSubmatch(got.stdout)
	if m == nil || !regexp.MustCompile(`(?m)^@tid_ok: `+m[1]+`$`).MatchString(got.stdout) {
		t.Errorf("curtask->pid did not always equal tid:\n%s", got.stdout)
	}
}

// TestRawTracepointArgsValue: args as a whole value of a BTF probe: printed,
// a map value and a map key, each a record of the prototype's arguments.
func TestRawTracepointArgsValue(t *testing.T) {
	script := `rawtracepoint:sys_enter /pid == $1 && args.id == 110/ { print(args); @v = args; @k[args] = count(); }`
	s := startNoWait(t, "-e", script, fmt.Sprint(os.Getpid()))
	s.waitLinks(1, 20*time.Second)
	getppidN(3)
	got := s.stop(syscall.SIGINT)
	if got.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", got.code, got.stderr)
	}
	rec := `\{ \.regs = 0x[0-9a-f]+, \.id = 110 \}`
	for _, re := range []string{
		`(?m)^` + rec + `$`,
		`(?m)^@v: ` + rec + `$`,
		`(?m)^@k\[` + rec + `\]: [1-3]$`,
	} {
		if !regexp.MustCompile(re).MatchString(got.stdout) {
			t.Errorf("output lacks %s:\n%s", re, got.stdout)
		}
	}
}
