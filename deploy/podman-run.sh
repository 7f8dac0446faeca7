#!/usr/bin/env bash
# podman-run.sh runs gotrace's image as the DaemonSet runs it: CAP_BPF and
# CAP_PERFMON only, the host's pid namespace, no seccomp filter, a
# read-only root, and the host's /sys/kernel/btf, /sys/kernel/tracing,
# /sys/fs/bpf and /proc (at /host/proc). With --metrics the port is
# published on the host's network.
# Usage: deploy/podman-run.sh [GOTRACE ARGS...]
#   e.g. deploy/podman-run.sh --metrics :9435 -e 'tracepoint:syscalls:sys_enter_openat { @[comm] = count(); }'
# IMAGE (default localhost/gotrace:latest) is the image; PODMAN_FLAGS adds
# podman flags (on a host with cgroup v1 and v2 controllers mixed, crun
# refuses to run: PODMAN_FLAGS="--runtime runc"), PODMAN_RUN_FLAGS flags of
# podman run (where root may not raise its rlimits, podman's defaults
# fail: PODMAN_RUN_FLAGS="--ulimit nofile=20000:20000 --ulimit nproc=4096:4096").
set -euo pipefail
image=${IMAGE:-localhost/gotrace:latest}
script=()
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
	# A script file given by path is mounted where the DaemonSet mounts
	# the ConfigMap.
	if [ -f "${args[i]}" ] && [[ "${args[i]}" == *.bt ]]; then
		script=(-v "$(realpath "${args[i]}"):/etc/gotrace/script.bt:ro")
		args[i]=/etc/gotrace/script.bt
	fi
done
# shellcheck disable=SC2086
exec podman ${PODMAN_FLAGS:-} run ${PODMAN_RUN_FLAGS:-} --rm --network host \
	--cap-drop=all --cap-add=CAP_BPF,CAP_PERFMON \
	--pid=host --security-opt seccomp=unconfined --read-only \
	-v /sys/kernel/btf:/sys/kernel/btf:ro \
	-v /sys/kernel/tracing:/sys/kernel/tracing:ro \
	-v /sys/fs/bpf:/sys/fs/bpf \
	-v /proc:/host/proc:ro \
	"${script[@]}" "$image" "${args[@]}"
