package gotrace_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"syscall"

	"github.com/gotrace/gotrace"
)

// ExampleSession adds a tracepoint probe to a live session, reads its map
// twice while it runs, detaches it and closes the session.
func ExampleSession() {
	sess, err := gotrace.Open(context.Background(), gotrace.Options{}, gotrace.RunOptions{Stdout: io.Discard, Quiet: true})
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()
	// Count this process's getppid calls.
	h, err := sess.Add(fmt.Sprintf(`tracepoint:syscalls:sys_enter_getppid /pid == %d/ { @calls = count(); }`, os.Getpid()))
	if err != nil {
		log.Fatal(err)
	}
	calls, err := sess.Map("@calls")
	if err != nil {
		log.Fatal(err)
	}
	for round := 1; round <= 2; round++ {
		for range 3 {
			syscall.Getppid()
		}
		entries, err := calls.Read()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("round", round, "calls", entries[0].Value)
	}
	if err := h.Detach(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// round 1 calls 3
	// round 2 calls 6
}
