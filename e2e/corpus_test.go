package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gotrace/gotrace/internal/txtar"
)

// The hostile-input corpus (testdata/hostile/*.txt): scripts, command
// lines and signal timings that once hung gotrace, exhausted its memory or
// harmed another process or file. Each case must end with the right
// answer or a positioned error, within corpusTimeout and corpusMaxRSS.
//
// A case is a txtar archive:
//
//	-- args --     gotrace's arguments, one a line, run in a fresh directory
//	               ($DIR): $FIFO is a FIFO there, $NULLDEV a character
//	               device (1:3, /dev/null's) there, $ADD the uprobe test
//	               program (testdata/uprobe/add.c, built there)
//	-- file NAME -- a file written to $DIR first; {{repeat N|TEXT|}} stands
//	               for TEXT N times (a 1M-term chain in a few bytes)
//	-- signals --  "SIGNAL DELAY" a line: sent that long after the start
//	-- exit --     the exit status (0 when absent)
//	-- stdout --   the whole standard output (unchecked when absent)
//	-- stderr --   a regular expression the standard error must match
//	-- after --    "regular PATH" or "fifo PATH" or "chardev PATH": what
//	               must still be at PATH afterwards
//
// The bounds are what the corpus promises on any machine of the project's
// kind: 2 s of CPU time and 512 MB resident, whatever the load, and an
// exit within 10 s of wall time (GOTRACE_CORPUS_TIMEOUT changes it), which
// a hang never meets and a case on a loaded machine always does (2 s of
// wall time failed cases whose CPU time was 0.3 s on a host at load 30). A
// case past them is a hang or a runaway, not a slow run.
const corpusMaxRSS = 512 << 20

// corpusTimeout is the time a case may take, from its start to its exit.
func corpusTimeout() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("GOTRACE_CORPUS_TIMEOUT")); err == nil {
		return d
	}
	return 10 * time.Second
}

var repeatRe = regexp.MustCompile(`\{\{repeat (\d+)\|(.*?)\|\}\}`)

// expandRepeats expands {{repeat N|TEXT|}}.
func expandRepeats(s string) string {
	return repeatRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := repeatRe.FindStringSubmatch(m)
		n, _ := strconv.Atoi(sub[1])
		return strings.Repeat(sub[2], n)
	})
}

func TestHostileCorpus(t *testing.T) {
	bin := gotrace(t)
	cases, err := filepath.Glob("testdata/hostile/*.txt")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	add := "" // the uprobe test program, built once for the cases naming it
	for _, path := range cases {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		a := txtar.Parse(string(data))
		if args, _ := a.Get("args"); strings.Contains(args, "$ADD") && add == "" {
			add = buildAdd(t)
		}
		t.Run(name, func(t *testing.T) { runCorpusCase(t, bin, a, add) })
	}
}

func runCorpusCase(t *testing.T, bin string, a txtar.Archive, add string) {
	dir := t.TempDir()
	fifo, nulldev := filepath.Join(dir, "fifo"), filepath.Join(dir, "nulldev")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mknod(nulldev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Fatal(err)
	}
	subst := strings.NewReplacer("$DIR", dir, "$FIFO", fifo, "$NULLDEV", nulldev, "$ADD", add)
	for _, f := range a.Files {
		if name, ok := strings.CutPrefix(f.Name, "file "); ok {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(subst.Replace(expandRepeats(f.Data))), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	argText, _ := a.Get("args")
	var args []string
	for _, l := range strings.Split(strings.TrimSuffix(argText, "\n"), "\n") {
		args = append(args, subst.Replace(l))
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	sigText, _ := a.Get("signals")
	for _, l := range strings.Split(strings.TrimSpace(sigText), "\n") {
		if l == "" {
			continue
		}
		var sig string
		var delay time.Duration
		if f := strings.Fields(l); len(f) == 2 {
			sig = f[0]
			delay, _ = time.ParseDuration(f[1])
		}
		select {
		case <-done:
		case <-time.After(time.Until(start.Add(delay))):
			s := map[string]syscall.Signal{"SIGINT": syscall.SIGINT, "SIGTERM": syscall.SIGTERM}[sig]
			if s == 0 {
				t.Fatalf("bad signal line %q", l)
			}
			_ = cmd.Process.Signal(s)
		}
	}
	limit := corpusTimeout()
	select {
	case <-done:
	case <-time.After(time.Until(start.Add(limit))):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("gotrace %q did not end within %v\nstderr:\n%s", args, limit, stderr.String())
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss<<10 > corpusMaxRSS {
		t.Errorf("gotrace %q used %d MB", args, ru.Maxrss>>10)
	}
	// The CPU time holds to 2 s on a loaded machine too.
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if cpu > 2*time.Second {
		t.Errorf("gotrace %q used %v of CPU", args, cpu)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		t.Logf("%v to exit, %v of CPU, %d MB", time.Since(start).Round(time.Millisecond), cpu.Round(time.Millisecond), ru.Maxrss>>10)
	}
	wantExit := 0
	if e, ok := a.Get("exit"); ok {
		wantExit, _ = strconv.Atoi(strings.TrimSpace(e))
	}
	if code := cmd.ProcessState.ExitCode(); code != wantExit {
		t.Errorf("gotrace %q: exit %d, want %d\nstdout:\n%.2000s\nstderr:\n%.2000s", args, code, wantExit, stdout.String(), stderr.String())
	}
	if want, ok := a.Get("stdout"); ok && stdout.String() != subst.Replace(want) {
		t.Errorf("gotrace %q: stdout\n%.2000q\nwant\n%q", args, stdout.String(), subst.Replace(want))
	}
	if want, ok := a.Get("stderr"); ok {
		q := regexp.QuoteMeta
		reSubst := strings.NewReplacer("$DIR", q(dir), "$FIFO", q(fifo), "$NULLDEV", q(nulldev), "$ADD", q(add))
		re, err := regexp.Compile(reSubst.Replace(strings.TrimSuffix(want, "\n")))
		if err != nil {
			t.Fatalf("stderr pattern: %v", err)
		}
		if !re.MatchString(stderr.String()) {
			t.Errorf("gotrace %q: stderr\n%.2000s\ndoes not match\n%s", args, stderr.String(), re)
		}
	}
	if after, ok := a.Get("after"); ok {
		for _, l := range strings.Split(strings.TrimSpace(after), "\n") {
			kind, p, _ := strings.Cut(l, " ")
			p = subst.Replace(p)
			fi, err := os.Lstat(p)
			want := map[string]os.FileMode{"regular": 0, "fifo": os.ModeNamedPipe, "chardev": os.ModeDevice | os.ModeCharDevice}[kind]
			if err != nil || fi.Mode().Type() != want {
				t.Errorf("after gotrace %q: %s is %v %v, want %s", args, p, fi, err, kind)
			}
		}
	}
}
