package main

import (
	"context"
	"fmt"
	"io"

	"github.com/gotrace/gotrace"
	"github.com/gotrace/gotrace/lsp"
)

const lspUsage = `USAGE: gotrace lsp
    runs the language server on stdin and stdout (Language Server Protocol);
    editors start it (docs/editors.md). It needs no privileges.
`

// lspMain is `gotrace lsp`: the language server on stdin and stdout,
// checking scripts against this machine's kernel.
func lspMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	for _, a := range args {
		switch a {
		case "-h", "--help":
			io.WriteString(stdout, lspUsage)
			return 0
		case "--stdio": // the flag VS Code's client passes
		default:
			fmt.Fprintf(stderr, "ERROR: unknown argument %q\n%s", a, lspUsage)
			return 1
		}
	}
	s := lsp.NewServer(gotrace.NewKernelEnv())
	if err := s.Serve(context.Background(), stdio{stdin, stdout}); err != nil {
		fmt.Fprintf(stderr, "ERROR: %v\n", err)
		return 1
	}
	return 0
}

// stdio is the server's stream: stdin and stdout.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }
