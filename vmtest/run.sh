#!/usr/bin/env bash
# run.sh installs the VM harness (setup.sh), builds cmd/vmexec and runs Go
# tests inside each guest kernel:
#
#   vmtest/run.sh                      # ./vmtest/smoke/ on 6.12, 6.1 and 7.3
#   vmtest/run.sh -v ./vmtest/smoke/   # arguments go to go test as given
#
# GOTRACE_VM_KERNELS overrides the kernel list (default "6.12 6.1 7.3"). Every
# VM run, and go test's own -timeout, is bounded by GOTRACE_VM_TIMEOUT
# (default 300 s). Exits non-zero if
# any kernel's run fails, after running all of them.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"

"$here/setup.sh"

cache=${GOTRACE_VM_CACHE:-$root/.cache/vm}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
export GOTRACE_VM_CACHE=$cache
vmexec=$cache/vmexec
go build -o "$vmexec" ./cmd/vmexec

if [ "$#" -eq 0 ]; then
	set -- ./vmtest/smoke/
fi

status=0
for k in ${GOTRACE_VM_KERNELS:-6.12 6.1 7.3}; do
	echo "=== vmtest: kernel $k: go test $*"
	start=$(date +%s.%N)
	if CGO_ENABLED=0 go test -count=1 -timeout "${GOTRACE_VM_TIMEOUT:-300s}" -exec "$vmexec -kernel $k" "$@"; then
		result=ok
	else
		result=FAIL
		status=1
	fi
	end=$(date +%s.%N)
	awk -v k="$k" -v r="$result" -v s="$start" -v e="$end" \
		'BEGIN { printf "=== vmtest: kernel %s: %s (%.1fs)\n", k, r, e - s }'
done
exit "$status"
