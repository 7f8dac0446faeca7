// Package vmtest runs programs — usually Go test binaries — inside stock
// Debian kernels under qemu, so tests for kprobe, kretprobe, kprobe_multi,
// fentry and fexit run on real kernels even where the host kernel lacks
// them. cmd/vmexec wraps Run for go test's -exec flag:
//
//	vmtest/setup.sh   # once: qemu-system-x86, busybox-static, kernels
//	CGO_ENABLED=0 go test -exec "go run github.com/gotrace/gotrace/cmd/vmexec -kernel 6.12" ./pkg/
//	vmtest/run.sh     # setup + the smoke tests on 6.12, 6.1 and 7.3
//
// (Use the import path, not ./cmd/vmexec: go test starts the -exec command
// in the package directory.)
//
// The guest boots from an uncompressed newc initramfs that Run builds for
// every run: static busybox with its applets, the program at its host path,
// the working directory's testdata/, and Config.Files at their host paths.
// /init mounts proc, sysfs, devtmpfs, devpts, tracefs (/sys/kernel/tracing),
// debugfs, bpffs (/sys/fs/bpf) and cgroup2, sets ulimit -l unlimited,
// exports GOTRACE_IN_VM=1, GOTRACE_VM_KERNEL and Config.Env, runs the
// program in Config.Dir with stdin /dev/null, reports its exit status on a
// dedicated serial port and powers off. The program's stdout and stderr go
// to their own serial ports in raw mode and are streamed back unchanged
// (about 300 KB/s under TCG: fine for test output, slow for bulk data).
// Files the program writes in the guest (e.g. -test.coverprofile) are lost.
//
// Requirements:
//   - qemu-system-x86_64 and a static busybox (Debian: qemu-system-x86,
//     busybox-static), installed by setup.sh.
//   - Kernel images from setup.sh in $GOTRACE_VM_CACHE or
//     <module root>/.cache/vm as vmlinuz-6.12, vmlinuz-6.1 and vmlinuz-7.3:
//     Debian's linux-image-6.12-cloud-amd64 has kprobe, kprobe_multi,
//     fentry/fexit; linux-image-cloud-amd64 (6.1) has the same except
//     kprobe_multi/kretprobe_multi/uprobe_multi (no CONFIG_FPROBE);
//     trixie-backports' linux-image-cloud-amd64 (7.3) adds tracing_multi
//     links (one fentry/fexit program on many functions).
//   - Statically linked programs: build tests with CGO_ENABLED=0. Run
//     rejects dynamically linked ELF files.
//
// Acceleration: KVM is used only when /dev/kvm opens and the host CPU shows
// vmx or svm; otherwise single-threaded TCG (multi-threaded TCG hangs or
// oopses now and then while kernel text is patched). Under TCG a boot costs
// about 5–8 s and CPU-bound guest work is 10–20× slower than on the host.
// Every run is bounded by Config.Timeout (default 300 s); qemu is killed
// when it expires or when the calling process dies.
package vmtest
