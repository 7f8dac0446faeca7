package e2e

import (
	"strings"
	"testing"
)

// TestIter: iter:task runs once per task when gotrace reads the iterator
// (pid is the reader, gotrace itself), with ctx typed from the kernel's
// struct bpf_iter__task; task_file and task_vma give their objects; -l
// lists the iterators. A script with only iterators ends once they ran.
func TestIter(t *testing.T) {
	got := run(t, "-e", `iter:task { if (ctx.task->pid == pid) { printf("found %d\n", ctx.task.tgid == pid); } @tasks = count(); } interval:ms:100 { exit(); }`)
	if got.code != 0 || !strings.HasPrefix(got.stdout, "found 1\n\n\n@tasks: ") {
		t.Errorf("iter:task: exit %d, stdout %q, stderr %q", got.code, got.stdout, got.stderr)
	}
	got = run(t, "-e", `iter:task_file { @f = count(); @fd = max(ctx.fd); } iter:task_vma { @v = count(); @s = max(ctx.vma->vm_start); } interval:ms:100 { exit(); }`)
	if got.code != 0 || !strings.Contains(got.stdout, "\n@f: ") || !strings.Contains(got.stdout, "\n@v: ") {
		t.Errorf("iter:task_file, iter:task_vma: exit %d, stdout %q, stderr %q", got.code, got.stdout, got.stderr)
	}
	// Alone (with BEGIN and END), an iterator ends the run once read.
	got = run(t, "-e", `BEGIN { printf("begin\n"); } iter:task { if (ctx.task->pid == pid) { printf("self\n"); } } END { printf("end\n"); }`)
	wantOutput(t, got, "begin\nself\nend\n\n\n", 0)
	// exit() does not cut the iteration's output (bpftrace prints the whole
	// seq file); the final call without a task does nothing.
	got = run(t, "-e", `iter:task { if (ctx.task->pid == pid) { printf("self\n"); } @n = count(); exit(); }`)
	if got.code != 0 || !strings.HasPrefix(got.stdout, "self\n\n\n@n: ") || strings.Contains(got.stdout, "@n: 1\n") {
		t.Errorf("iter:task with exit(): exit %d, stdout %q, stderr %q", got.code, got.stdout, got.stderr)
	}
	got = run(t, "-l", "iter:task*")
	wantOutput(t, got, "iter:task\niter:task_file\niter:task_vma\n", 0)
	got = run(t, "-e", `iter:nosuch { exit(); }`)
	if got.code != 1 || !strings.Contains(got.stderr, "ERROR: iter nosuch not available for your kernel version.") {
		t.Errorf("iter:nosuch: exit %d, stderr %q", got.code, got.stderr)
	}
}

// TestCommFromPid: comm(pid) reads the comm of the task with that id
// through the kfunc bpf_task_from_pid (Linux 6.2+): gotrace's own from the
// iterator, kthreadd's for pid 2; a pid naming no task gives "N/A" and a
// warning; comm() is the comm variable.
func TestCommFromPid(t *testing.T) {
	got := run(t, "-e", `iter:task { @ = comm(pid); if (ctx.task->pid == 2) { printf("%s %s %d\n", comm(ctx.task->pid), comm(), sizeof(comm(2))); printf("%s\n", comm(0x7fffffff)); } exit() }`)
	wantOutput(t, got, "kthreadd gotrace 64\nN/A\n\n\n@: gotrace\n", 0)
	if !strings.Contains(got.stderr, "WARNING: No such process (pid=2147483647)") {
		t.Errorf("stderr %q lacks the warning for a pid naming no task", got.stderr)
	}
}
