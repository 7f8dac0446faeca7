package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/peterh/liner"

	"github.com/gotrace/gotrace"
	"github.com/gotrace/gotrace/lang"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/runtime"
)

const replHelp = `gotrace REPL: enter a program, or a statement or expression to run once.
  tracepoint:syscalls:sys_enter_openat { @[comm] = count(); }   runs until Ctrl-C
  @x = 6 * 7                                                     runs in BEGIN
  nsecs / 1000                                                   prints the value
  \asm PROGRAM   show the BPF instructions     \help   this text     \q   quit
A program continues on the next line while its braces are open.
`

// repl reads programs interactively (github.com/peterh/liner) and runs
// each one: until Ctrl-C for probes, once for a statement or expression.
func repl(ctx context.Context, cfg *config, stdout, stderr io.Writer) int {
	line := liner.NewLiner()
	defer line.Close()
	line.SetCtrlCAborts(true)
	history := ""
	if home, err := os.UserHomeDir(); err == nil {
		history = filepath.Join(home, ".gotrace_history")
		if f, err := os.Open(history); err == nil {
			_, _ = line.ReadHistory(f)
			f.Close()
		}
	}
	defer func() {
		if history == "" {
			return
		}
		if f, err := os.Create(history); err == nil {
			_, _ = line.WriteHistory(f)
			f.Close()
		}
	}()
	fmt.Fprint(stderr, replHelp)
	var pending strings.Builder
	for {
		prompt := "gotrace> "
		if pending.Len() > 0 {
			prompt = "     ... "
		}
		l, err := line.Prompt(prompt)
		switch {
		case errors.Is(err, liner.ErrPromptAborted):
			pending.Reset()
			continue
		case errors.Is(err, io.EOF):
			return 0
		case err != nil:
			fmt.Fprintf(stderr, "gotrace: %v\n", err)
			return 1
		}
		pending.WriteString(l + "\n")
		if !balanced(pending.String()) {
			continue
		}
		input := strings.TrimSpace(pending.String())
		pending.Reset()
		if input == "" {
			continue
		}
		line.AppendHistory(input)
		switch {
		case input == `\q` || input == "quit" || input == "exit":
			return 0
		case input == `\help` || input == "help":
			fmt.Fprint(stderr, replHelp)
			continue
		}
		emitAsm := false
		if rest, ok := strings.CutPrefix(input, `\asm`); ok {
			emitAsm, input = true, strings.TrimSpace(rest)
		}
		src := replProgram(input)
		script, err := gotrace.Compile("<repl>", src, compileOptions(cfg))
		if err != nil {
			fmt.Fprint(stderr, gotrace.FormatError(err, src))
			continue
		}
		if emitAsm {
			printAsm(stdout, script.Program)
			continue
		}
		if _, err := script.Run(ctx, runtime.Options{Stdout: stdout, Stderr: stderr, Quiet: true, Unsafe: cfg.out.unsafe}); err != nil {
			fmt.Fprint(stderr, script.FormatError(err))
		}
	}
}

// replProgram turns REPL input into a script: a program is kept; an
// expression is printed from BEGIN; anything else runs as statements in
// BEGIN.
func replProgram(input string) string {
	if _, err := lang.Parse("<repl>", input); err == nil {
		return input
	}
	if e, err := lang.ParseExpr(input); err == nil {
		if _, isCall := e.(*ast.Call); !isCall {
			return "BEGIN { print(" + input + "); exit(); }"
		}
	}
	return "BEGIN { " + strings.TrimSuffix(input, ";") + "; exit(); }"
}

// balanced reports whether every brace and parenthesis of src outside
// strings and comments is closed.
func balanced(src string) bool {
	depth := 0
	inStr := false
	for i := 0; i < len(src); i++ {
		ch := src[i]
		switch {
		case inStr:
			if ch == '\\' {
				i++
			} else if ch == '"' {
				inStr = false
			}
		case ch == '"':
			inStr = true
		case ch == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case ch == '{' || ch == '(':
			depth++
		case ch == '}' || ch == ')':
			depth--
		}
	}
	return depth <= 0 && !inStr
}
