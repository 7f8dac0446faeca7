// Package smoke holds the VM harness's smoke tests: they load and attach
// kprobe, kretprobe, kprobe_multi and fentry/fexit programs with
// cilium/ebpf and check that they fire. They only run inside the vmtest VM
// (GOTRACE_IN_VM=1, set by the guest's /init) and skip elsewhere:
//
//	CGO_ENABLED=0 go test -exec "go run github.com/gotrace/gotrace/cmd/vmexec -kernel 6.12" ./vmtest/smoke/
//
// Expected outcomes: everything passes on Debian 6.12; on Debian 6.1
// kprobe_multi attach must fail with ebpf.ErrNotSupported (no CONFIG_FPROBE).
package smoke
