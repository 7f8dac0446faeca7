package main

import (
	"context"
	"io"
	"os"
	"slices"
	"testing"

	"github.com/gotrace/gotrace"
)

// TestCompleteKinds checks completion for each kind of name: commands,
// probe types, tracepoints (tracefs), kernel functions (kprobe's listing
// and fentry's, from BTF), a binary's symbols (uprobe), builtins and
// functions, $variables of the entry, and the session's maps.
func TestCompleteKinds(t *testing.T) {
	c := &completer{}
	check := func(word, context, want string) {
		t.Helper()
		got := c.candidates(word, context)
		if !slices.Contains(got, want) {
			t.Errorf("completing %q after %q: %d candidates without %q (first: %q)", word, context, len(got), want, got[:min(len(got), 5)])
		}
	}
	check(`\pro`, "", `\probes`)
	check(`\de`, "", `\detach`)
	check("tracep", "", "tracepoint:")
	check("BEG", "", "BEGIN")
	check("nse", "BEGIN { ", "nsecs")
	check("prin", "kprobe:f { ", "printf(")
	check("$a", "BEGIN { $abc = 1; $xyz = 2; ", "$abc")

	// Do returns the rest of each candidate and the word's length.
	rest, n := c.Do([]rune(`x \watc`), len(`x \watc`))
	if n != len(`\watc`) || len(rest) != 1 || string(rest[0]) != "h" {
		t.Errorf(`Do("x \watc"): %q, %d`, rest, n)
	}

	if os.Geteuid() != 0 {
		t.Skip("listing attach points and opening a session need root")
	}
	check("tracepoint:sysc", "", "tracepoint:syscalls:")
	check("tracepoint:syscalls:sys_enter_getpp", "", "tracepoint:syscalls:sys_enter_getppid")
	check("t:syscalls:sys_enter_getpp", "", "t:syscalls:sys_enter_getppid")
	check("kprobe:vfs_rea", "", "kprobe:vfs_read")
	check("fentry:vfs_rea", "", "fentry:vfs_read")
	// A binary's symbols: bash's readline.
	if _, err := os.Stat("/bin/bash"); err == nil {
		check("uprobe:/bin/bash:readl", "", "uprobe:/bin/bash:readline")
		// Do keeps an attach point's '/' and '.' in the word.
		line := "uprobe:/bin/bash:readli"
		if rest, _ := c.Do([]rune(line), len(line)); !slices.ContainsFunc(rest, func(r []rune) bool { return string(r) == "ne" }) {
			t.Errorf("Do(%q): %q", line, rest)
		}
	}

	sess, err := gotrace.Open(context.Background(), gotrace.Options{}, gotrace.RunOptions{Stdout: io.Discard, Stderr: io.Discard, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	h, err := sess.Add(`BEGIN { @hello[1] = 2; exit(); }`)
	if err != nil {
		t.Fatal(err)
	}
	<-h.Done()
	c.r = &replSession{sess: sess}
	check("@he", "", "@hello")
	check("@", `\print `, "@hello")
}
