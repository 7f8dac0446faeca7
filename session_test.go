package gotrace

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/gotrace/gotrace/lang/syntax"
)

// TestSessionSharedMaps adds two programs writing one map, rejects a third
// whose use of it disagrees (positioned, nothing created), detaches the
// first (its key stops growing) and checks the map printed at Close.
func TestSessionSharedMaps(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	var out, errOut bytes.Buffer
	sess, err := Open(context.Background(), Options{}, RunOptions{Stdout: &out, Stderr: &errOut, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	pid := os.Getpid()
	h1, err := sess.Add(fmt.Sprintf(`tracepoint:syscalls:sys_enter_getppid /pid == %d/ { @c["ppid"] = count(); }`, pid))
	if err != nil {
		t.Fatal(err)
	}
	h2, err := sess.Add(fmt.Sprintf(`tracepoint:syscalls:sys_enter_getpgid /pid == %d/ { @c["pgid"] = count(); }`, pid))
	if err != nil {
		t.Fatal(err)
	}
	if h1.ID() != 1 || h2.ID() != 2 {
		t.Errorf("handle ids %d, %d, want 1, 2", h1.ID(), h2.ID())
	}
	for range 2 {
		syscall.Getppid()
	}
	for range 3 {
		syscall.Getpgid(0)
	}
	m, err := sess.Map("@c")
	if err != nil {
		t.Fatal(err)
	}
	read := func() string {
		es, err := m.Read()
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, e := range es {
			parts = append(parts, fmt.Sprintf("%v=%v", e.Key, e.Value))
		}
		return strings.Join(parts, " ")
	}
	if got, want := read(), "[ppid]=2 [pgid]=3"; got != want {
		t.Errorf("Read: %s, want %s", got, want)
	}

	src := `BEGIN { @c = 5; @new = 1; }`
	_, err = sess.Add(src)
	var el syntax.ErrorList
	if err == nil || !strings.Contains(FormatError(err, src), "stdin:1:9") {
		t.Errorf("disagreeing entry: err %v, want a positioned error at 1:9", err)
	} else if !errorsAs(err, &el) {
		t.Errorf("disagreeing entry: %T, want a syntax.ErrorList", err)
	}
	t.Log(FormatError(err, src))
	if names := sess.MapNames(); len(names) != 1 {
		t.Errorf("maps after a rejected entry: %v", names)
	}
	if _, err := sess.Map("@new"); err == nil {
		t.Error("a rejected entry created @new")
	}

	if err := h1.Detach(); err != nil {
		t.Fatal(err)
	}
	syscall.Getppid()
	syscall.Getpgid(0)
	if got, want := read(), "[ppid]=2 [pgid]=4"; got != want {
		t.Errorf("Read after detaching 1: %s, want %s", got, want)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "\n\n@c[ppid]: 2\n@c[pgid]: 4\n"; got != want {
		t.Errorf("output %q, want %q (stderr %q)", got, want, errOut.String())
	}
}

func errorsAs(err error, el *syntax.ErrorList) bool {
	l, ok := err.(syntax.ErrorList)
	*el = l
	return ok
}
