package main

import (
	"fmt"
	"io"
)

// lspMain is `gotrace lsp`: the language server on stdin and stdout.
func lspMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "gotrace lsp: not yet")
	return 1
}
