// Command vmexec runs a statically linked program, typically a Go test
// binary, inside a stock Debian kernel under qemu and exits with its exit
// status. It is meant for go test's -exec flag:
//
//	CGO_ENABLED=0 go test -exec "go run github.com/gotrace/gotrace/cmd/vmexec -kernel 6.12" ./pkg/
//	CGO_ENABLED=0 go test -exec "/abs/path/vmexec -kernel 6.1" ./pkg/
//
// Usage:
//
//	vmexec [flags] PROGRAM [ARGS...]
//
// PROGRAM is copied into the guest at its host path and run in the current
// directory's path; ./testdata and the files listed in GOTRACE_VM_FILES
// (colon separated, copied to the same absolute paths) come along.
// GOTRACE_* variables (and GOTRACEBACK, GODEBUG, GOMAXPROCS) are exported in
// the guest, plus GOTRACE_IN_VM=1 and GOTRACE_VM_KERNEL=<kernel name>.
// PROGRAM's stdout and stderr are streamed back unchanged.
//
// Exit status: the guest program's, 124 if the VM timed out, 125 if the VM
// could not be run or stopped without reporting a status (the tail of the
// guest console is printed on stderr).
//
// Flags (each defaults to the environment variable shown):
//
//	-kernel NAME   kernel name (6.12, 6.1, 7.3) or vmlinuz path [GOTRACE_VM_KERNEL, else 6.12]
//	-timeout D     bound on the whole VM run, e.g. 300s [GOTRACE_VM_TIMEOUT]
//	-mem MB        guest memory [GOTRACE_VM_MEM]
//	-smp N         guest CPUs [GOTRACE_VM_SMP]
//	-accel A       auto, tcg or kvm [GOTRACE_VM_ACCEL]
//	-append S      extra kernel command line [GOTRACE_VM_APPEND]
//	-v             copy the guest console to stderr [GOTRACE_VM_VERBOSE=1]
//
// Kernels are looked up in $GOTRACE_VM_CACHE or <module root>/.cache/vm,
// filled by vmtest/setup.sh.
package main
