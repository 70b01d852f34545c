#!/usr/bin/env bash
# Builds the real Kubernetes control plane of executor-svc's tests from source, through the Go
# module proxy: kube-apiserver (k8s.io/kubernetes, staging modules pinned in go.mod) and etcd
# (go.etcd.io/etcd/server/v3 at the version kubernetes requires), into <tideline-home>/kube/bin.
#
#   build.sh <tideline-home> [extra go packages, e.g. k8s.io/kubernetes/cmd/kubectl]
#
# Module and build caches live under <tideline-home>/go (git-ignored), so a clean clone really
# starts empty. A stamp of go.mod, go.sum and this script makes a second run a no-op.
# Without Go it says so and builds nothing (the real-API tests then skip with that reason);
# under CI (CI=true) a missing Go is an error: CI must run those tests.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
HOME_DIR="${1:?usage: build.sh <tideline-home> [packages...]}"
shift
BIN="$HOME_DIR/kube/bin"
KUBE_VERSION=v1.37.2

if [[ "${TIDELINE_SKIP_TESTS:-false}" == "true" ]]; then
  echo "tests skipped: kube-apiserver and etcd not built"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  msg="Go is not installed: kube-apiserver and etcd for executor-svc's real-API tests are not built (install Go 1.26+)"
  if [[ "${CI:-}" == "true" ]]; then echo "ERROR: $msg; CI (CI=true) must run those tests, so the build fails" >&2; exit 1; fi
  echo "WARNING: $msg; those tests will be skipped (with CI=true this is an error)" >&2
  exit 0
fi

stamp="$(cat "$HERE/go.mod" "$HERE/go.sum" "$HERE/build.sh" "$HERE"/cmd/*/*.go | sha256sum | cut -c1-16) $(go env GOVERSION) $*"
if [[ -x "$BIN/kube-apiserver" && -x "$BIN/etcd" && "$(cat "$BIN/.stamp" 2>/dev/null)" == "$stamp" ]]; then
  echo "kube-apiserver and etcd are current in $BIN"
  exit 0
fi

mkdir -p "$BIN" "$HOME_DIR/go"
export GOMODCACHE="$HOME_DIR/go/mod" GOCACHE="$HOME_DIR/go/cache" GOFLAGS="-buildvcs=false -mod=readonly"
export CGO_ENABLED=0
ldflags="-s -w"
for v in gitVersion=$KUBE_VERSION gitMajor=1 gitMinor=37 gitTreeState=clean; do
  ldflags+=" -X k8s.io/component-base/version.$v -X k8s.io/client-go/pkg/version.$v"
done
start=$(date +%s)
echo "building kube-apiserver $KUBE_VERSION and etcd into $BIN (first build: several minutes; caches in $HOME_DIR/go)"
(cd "$HERE" && go build -trimpath -ldflags "$ldflags" -o "$BIN/" \
  k8s.io/kubernetes/cmd/kube-apiserver ./cmd/etcd "$@")
echo "$stamp" > "$BIN/.stamp"
echo "built in $(( $(date +%s) - start )) s: $(ls "$BIN" | tr '\n' ' ')"
