package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// signalEnds starts gotrace with args, sends sig after delay, and returns
// its result; the run must end within 10 s of the signal (a hang check:
// gotrace ends at once).
func signalEnds(t *testing.T, delay time.Duration, sig syscall.Signal, args ...string) (result, *syscall.Rusage) {
	t.Helper()
	cmd := exec.Command(gotrace(t), args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	time.Sleep(delay)
	_ = cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("gotrace %q did not end within 10 s of %v; stderr:\n%s", args, sig, stderr.String())
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return result{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}, ru
}

// mkfifo makes a FIFO in a temporary directory.
func mkfifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFIFOScriptSignal: a script read from a FIFO that nobody writes
// waits, as bpftrace does, but the first SIGINT or SIGTERM ends gotrace,
// as a run stopped before it started: nothing ran, exit 0.
func TestFIFOScriptSignal(t *testing.T) {
	fifo := mkfifo(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		got, _ := signalEnds(t, 300*time.Millisecond, sig, fifo)
		wantOutput(t, got, "\n\n", 0)
	}
}

// TestSignalBeforeBegin: a signal while the script compiles (a long one)
// ends gotrace without waiting for the compile or the load, and BEGIN does
// not run afterwards. The script is made long enough that its compile
// (timed with --emit first) outlasts the signal's delay by far.
func TestSignalBeforeBegin(t *testing.T) {
	script := filepath.Join(t.TempDir(), "long.bt")
	var compile time.Duration
	for n := 5000; ; n *= 2 {
		src := `BEGIN { printf("begin\n"); ` + strings.Repeat("$x = 1; ", n) + `exit(); }`
		if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if got := run(t, "--emit", "asm", script); got.code != 0 {
			t.Fatalf("--emit of %d statements: exit %d, stderr %.500s", n, got.code, got.stderr)
		}
		if compile = time.Since(start); compile > time.Second || n >= 80000 {
			break
		}
	}
	got, _ := signalEnds(t, compile/3, syscall.SIGINT, script)
	if got.code != 0 || strings.Contains(got.stdout, "begin") {
		t.Errorf("signal after %v of a %v compile: exit %d, stdout %q, stderr %q", compile/3, compile, got.code, got.stdout, got.stderr)
	}
}

// TestCatNonBlocking: cat() opens without waiting: a FIFO nobody writes
// prints nothing, and the script goes on.
func TestCatNonBlocking(t *testing.T) {
	fifo := mkfifo(t)
	got := run(t, "-q", "-e", `BEGIN { cat("`+fifo+`"); printf("after\n"); exit(); }`)
	wantOutput(t, got, "after\n\n\n", 0)
}

// TestCatBounded: cat() of an endless file with a huge max_cat_bytes
// prints it in pieces, in bounded memory, and a signal ends it.
func TestCatBounded(t *testing.T) {
	got, ru := signalEnds(t, 2*time.Second, syscall.SIGINT, "-q", "-o", os.DevNull, "-e",
		`config = { max_cat_bytes = 1000000000000 } BEGIN { cat("/dev/zero"); exit(); }`)
	if got.code != 0 {
		t.Errorf("exit %d, stderr %q", got.code, got.stderr)
	}
	if ru != nil && ru.Maxrss > 512<<10 { // KB
		t.Errorf("gotrace used %d MB", ru.Maxrss>>10)
	}
}

// TestCatPieces: a file longer than one piece of cat()'s reading, ending
// in a character whose UTF-8 bytes straddle two pieces, comes out whole,
// in text and in JSON.
func TestCatPieces(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	content := strings.Repeat("a", 64<<10-1) + "é\"\n"
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `config = { max_cat_bytes = 100000 } BEGIN { cat("` + file + `"); exit(); }`
	wantOutput(t, run(t, "-q", "-e", script), content+"\n\n", 0)
	got := run(t, "-q", "-f", "json", "-e", script)
	var ev struct{ Type, Data string }
	if err := json.Unmarshal([]byte(strings.SplitN(got.stdout, "\n", 2)[0]), &ev); err != nil || ev.Type != "cat" || ev.Data != content {
		t.Errorf("JSON: %v, %q (%d bytes); stdout %.100q", err, ev.Type, len(ev.Data), got.stdout)
	}
}

// TestSignalDuringLoad: a SIGINT while the verifier works on a program
// ends gotrace as a run stopped before it started, without waiting for
// the load: exit 0 and nothing printed. The program takes this kernel's
// verifier seconds and is refused in the end (it explores a million
// instructions), so a gotrace that waited for the load would print the
// verifier's refusal and exit 1, as it did before; no loadable program
// keeps the verifier busy long enough to aim a signal at.
func TestSignalDuringLoad(t *testing.T) {
	var b strings.Builder
	b.WriteString("BEGIN { $c = 0;\n")
	// Each if doubles the states the verifier tells apart: seconds of
	// verification for a program that compiles in a fraction of one.
	for range 5000 {
		b.WriteString("if (nsecs > 5) { $c = $c + 1; }\n")
	}
	b.WriteString("printf(\"began %d\\n\", $c > 0); exit(); }\n")
	script := filepath.Join(t.TempDir(), "slowload.bt")
	if err := os.WriteFile(script, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if got := run(t, "--emit", "asm", script); got.code != 0 {
		t.Fatalf("--emit: exit %d, stderr %.500s", got.code, got.stderr)
	}
	compile := time.Since(start)
	// The signal comes when the compile is over, while the verifier runs.
	got, _ := signalEnds(t, compile+time.Second, syscall.SIGINT, script)
	if got.code != 0 || got.stdout != "\n\n" || strings.Contains(got.stderr, "verifier") {
		t.Errorf("SIGINT %v into the load: exit %d, stdout %q, stderr %q", time.Second, got.code, got.stdout, got.stderr)
	}
}
