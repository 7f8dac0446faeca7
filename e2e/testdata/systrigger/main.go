// Command systrigger runs systrigger.Run: known syscalls with known
// arguments, for the syscall tracepoint tests.
package main

import "github.com/gotrace/gotrace/internal/systrigger"

func main() { systrigger.Run() }
