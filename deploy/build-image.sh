#!/usr/bin/env bash
# build-image.sh builds gotrace's FROM-scratch image offline with buildah
# (or podman): a static binary, then deploy/Containerfile.
# Usage: deploy/build-image.sh [TAG]     (default gotrace:latest)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tag=${1:-gotrace:latest}
ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
(cd "$root" && CGO_ENABLED=0 go build -trimpath -ldflags=-s -o "$ctx/gotrace" ./cmd/gotrace)
if command -v buildah >/dev/null 2>&1; then
	buildah bud --pull=false -f "$root/deploy/Containerfile" -t "$tag" "$ctx"
else
	podman build --pull=false -f "$root/deploy/Containerfile" -t "$tag" "$ctx"
fi
