// Package vm holds end-to-end tests of kernel-function probes (kprobe,
// kretprobe, kprobe_multi, fentry, fexit, rawtracepoint), and of
// watchpoints (qemu emulates the debug registers the development host's
// hypervisor never fires), that run the gotrace binary inside stock
// Debian kernels under qemu (see vmtest).
// Outside the VM the tests skip. scripts/test.sh runs them on 6.12, 6.1 and 7.3:
//
//	CGO_ENABLED=0 go build -o .cache/vm/gotrace ./cmd/gotrace
//	GOTRACE_BIN=$PWD/.cache/vm/gotrace GOTRACE_VM_FILES=$PWD/.cache/vm/gotrace \
//	    vmtest/run.sh ./e2e/vm/
//
// $GOTRACE_BIN is the statically linked gotrace binary (built with
// CGO_ENABLED=0 and copied into the guest through GOTRACE_VM_FILES).
// Debian's 6.12 and 7.3 have kprobe_multi; 6.1 lacks CONFIG_FPROBE, so
// wildcards there go through separate kprobes and trampolines.
package vm
