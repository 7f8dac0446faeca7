#!/usr/bin/env bash
# test.sh sets up a fresh Debian machine (as root) and runs every test:
#   1. pure tests (parser, checker, codegen golden dumps, output formats),
#   2. kernel e2e tests on this machine's kernel (tracepoints, interval,
#      profile, software, tp_btf, BEGIN/END), with the hostile-input corpus
#      (e2e/testdata/hostile: each case within 2 s of CPU and 512 MB),
#   3. the differential check against bpftrace 0.27.1 (cmd/btdiff,
#      GOTRACE_BTDIFF_N programs, 400), which scripts/bpftrace27.sh installs,
#   4. each fuzz target for a short budget (GOTRACE_FUZZTIME, 20s),
#   5. kernel e2e tests inside qemu on stock Debian kernels 6.12, 6.1 and
#      7.3 (trixie-backports)
#      (kprobe, kretprobe, kprobe_multi, fentry, fexit).
# Usage: scripts/test.sh            (from anywhere in the repository)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

if [ "$(id -u)" != 0 ]; then
	echo "test.sh: run as root: the kernel tests load BPF programs" >&2
	exit 1
fi

# Debian packages: qemu and busybox for the VM tests (vmtest/setup.sh
# installs them and downloads the kernels), bpftrace for side-by-side
# output comparisons, gcc for the traced C programs.
need=()
command -v bpftrace >/dev/null 2>&1 || need+=(bpftrace)
# gcc and the C library headers build the traced programs of the uprobe and
# usdt e2e tests.
command -v gcc >/dev/null 2>&1 || need+=(gcc)
# g++ builds the traced C++ program of e2e/cpp_test.go (C++ uprobes).
command -v g++ >/dev/null 2>&1 || need+=(g++)
[ -e /usr/include/stdlib.h ] || need+=(libc6-dev)
# prometheus (server and promtool) for the --metrics e2e test and the
# lint of scrapes; kubectl validates deploy/kubernetes offline.
command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
command -v kubectl >/dev/null 2>&1 || need+=(kubernetes-client)
# neovim drives the language server in e2e/lsp_nvim_test.go; man renders
# docs/gotrace.1 (docs/docs_test.go), which go-md2man makes.
command -v nvim >/dev/null 2>&1 || need+=(neovim)
command -v man >/dev/null 2>&1 || need+=(man-db)
command -v go-md2man >/dev/null 2>&1 || need+=(go-md2man)
if [ "${#need[@]}" -gt 0 ]; then
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
vmtest/setup.sh

# tracefs is not mounted at boot on some machines; gotrace mounts it itself,
# this only makes `ls /sys/kernel/tracing` work for humans reading logs.
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing || true

echo "=== gofmt, go vet"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change: $unformatted" >&2
	exit 1
fi
go vet ./...

echo "=== host tests (pure + kernel e2e on $(uname -r))"
go test -count=1 -timeout 45m ./...

echo "=== differential check against bpftrace 0.27.1 (${GOTRACE_BTDIFF_N:=400} programs)"
# scripts/bpftrace27.sh installs the reference in a Debian sid chroot (about
# 3 minutes the first time); docs/testing.md's "Differential check" gives the long run.
scripts/bpftrace27.sh
btdiff_dir=$(mktemp -d)
CGO_ENABLED=0 go build -o "$btdiff_dir/gotrace" ./cmd/gotrace
go build -o "$btdiff_dir/btdiff" ./cmd/btdiff
"$btdiff_dir/btdiff" -gotrace "$btdiff_dir/gotrace" -ref bpftrace27 -n "$GOTRACE_BTDIFF_N" -batch 400 -report "$btdiff_dir/report.txt" ||
	{ cat "$btdiff_dir/report.txt"; exit 1; }
# the same programs again, comparing -f json output
"$btdiff_dir/btdiff" -json -gotrace "$btdiff_dir/gotrace" -ref bpftrace27 -n "$GOTRACE_BTDIFF_N" -batch 400 -report "$btdiff_dir/report.txt" ||
	{ cat "$btdiff_dir/report.txt"; exit 1; }
rm -rf "$btdiff_dir"

echo "=== fuzz targets (${GOTRACE_FUZZTIME:=20s} each)"
for target in lang/syntax:FuzzParse lang/check:FuzzCheck lang/pretty:FuzzFormat codegen:FuzzCompile output:FuzzFormatPrintf output:FuzzWriteMap; do
	# Go's fuzzing engine can end a run that found nothing with "context
	# deadline exceeded" when the budget runs out mid-input on a loaded
	# machine: such a run is repeated once. A real failure writes its
	# input under testdata/fuzz and says so, and is never repeated.
	for try in 1 2; do
		if out=$(go test -run '^$' -fuzz "^${target#*:}\$" -fuzztime "$GOTRACE_FUZZTIME" "./${target%%:*}" 2>&1); then
			printf '%s\n' "$out"
			break
		fi
		printf '%s\n' "$out"
		if [ "$try" = 2 ] || ! grep -q 'context deadline exceeded' <<<"$out" || grep -q 'Failing input written' <<<"$out"; then
			exit 1
		fi
		echo "=== $target: the fuzzing engine timed out without a failing input; once more"
	done
done

echo "=== VM tests (stock Debian kernels under qemu)"
cache=${GOTRACE_VM_CACHE:-$root/.cache/vm}
mkdir -p "$cache"
CGO_ENABLED=0 go build -o "$cache/gotrace" ./cmd/gotrace
export GOTRACE_BIN=$cache/gotrace
export GOTRACE_EXAMPLES=$root/examples
export GOTRACE_VM_FILES=$cache/gotrace:$root/examples
# e2e/vm starts gotrace ~30 times per kernel (each start parses vmlinux BTF
# under emulation, ~5 s) and runs beside ./vmtest/smoke/ on 2 CPUs.
export GOTRACE_VM_TIMEOUT=${GOTRACE_VM_TIMEOUT:-1200s}
vmtest/run.sh ./vmtest/smoke/ ./e2e/vm/
