package e2e

import "testing"

// TestIncludeFlags runs a script whose macros come from user headers found
// through -I and --include, next to kernel macros of an #include <...>.
func TestIncludeFlags(t *testing.T) {
	prog := `#include <ports.h>
#include <linux/socket.h>
BEGIN /AF_INET == 2/ { printf("%d %s %d\n", PORT, GREETING, AF_INET); exit(); }`
	got := run(t, "-I", "testdata/include", "--include", "testdata/include/forced.h", "-e", prog)
	wantOutput(t, got, "8080 hi from a forced include 2\n\n\n", 0)
}
