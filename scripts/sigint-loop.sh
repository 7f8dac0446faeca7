#!/usr/bin/env bash
# sigint-loop.sh runs a busy script N times (default 200) under
# `timeout --preserve-status -s INT`, which signals gotrace and then its
# whole process group, at moments from before the attach to well after it.
# Every run must exit 0 with its map printed; the script prints the runs
# that did not and exits 1 if there were any.
# Usage: scripts/sigint-loop.sh [N] [GOTRACE_BINARY]
set -uo pipefail
n=${1:-200}
bin=${2:-}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "$bin" ]; then
	bin=$(mktemp -d)/gotrace
	(cd "$root" && CGO_ENABLED=0 go build -o "$bin" ./cmd/gotrace) || exit 1
fi
script='tracepoint:raw_syscalls:sys_enter { @[tid] = count(); } interval:ms:100 { @ticks = count(); }'
durations=(0.3 0.5 0.7 1 1.5 2)
bad=0 noMap=0
out=$(mktemp)
for ((i = 0; i < n; i++)); do
	d=${durations[i % ${#durations[@]}]}
	timeout --preserve-status -s INT "$d" "$bin" -e "$script" >"$out" 2>&1
	rc=$?
	if [ "$rc" != 0 ]; then
		bad=$((bad + 1))
		echo "run $i (timeout $d): exit $rc"
		sed 's/^/    /' "$out" | tail -5
	elif ! grep -q '^@\[' "$out" && [ "$d" != 0.3 ]; then
		# At 0.3 s the signal may arrive before any event: only exit 0
		# is asked of those runs.
		noMap=$((noMap + 1))
		echo "run $i (timeout $d): no map printed"
	fi
done
rm -f "$out"
echo "$n runs: $((n - bad)) exited 0, $bad did not; $noMap printed no map"
[ "$bad" = 0 ] && [ "$noMap" = 0 ]
