#!/usr/bin/env bash
# golangci-lint.sh builds the project's one lint binary and links it into
# bin/golangci-lint: golangci-lint with kube-api-linter (KAL) compiled in as
# the module plugin "kubeapilinter", so the same binary runs .golangci.yml
# (the whole tree) and .golangci-kal.yml (api/ only).
#
# What gets built is KAL's own golangci-lint build, the main package
# sigs.k8s.io/kube-api-linter/cmd/golangci-lint-kube-api-linter (golangci-lint's
# unmodified command plus a blank import of KAL's plugin), compiled from inside
# the hack/tools/golangci-kal module, whose go.mod is the one place the
# golangci-lint release and the KAL pseudo-version are pinned. This is what
# `golangci-lint custom` would produce, without its `git clone` of
# golangci-lint (see hack/tools/golangci-kal/README.md).
#
# Like control-plane.sh it builds from the Go module proxy, once, into the
# per-user cache (PODNETWORK_CACHE_DIR, default ~/.cache/podnetwork-operator)
# under tools/golangci-lint-<version>-kal-<revision>/, writing a temporary file
# and renaming it so an interrupted build never leaves a half binary behind.
# A cached binary built from another recipe (versions, go.sum, Go toolchain,
# flags) is rebuilt.
#
# Usage: hack/golangci-lint.sh
# Prints the path of the binary on stdout.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_DIR="${PODNETWORK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/podnetwork-operator}"
MODULE_DIR="${ROOT}/hack/tools/golangci-kal"
PKG="sigs.k8s.io/kube-api-linter/cmd/golangci-lint-kube-api-linter"

log() { echo "golangci-lint: $*" >&2; }

mod_version() { (cd "${MODULE_DIR}" && go list -m -f '{{.Version}}' "$1"); }
golangci_version="$(mod_version github.com/golangci/golangci-lint/v2)"
kal_version="$(mod_version sigs.k8s.io/kube-api-linter)"
# A pseudo-version ends in -<yyyymmddhhmmss>-<12-hex revision>.
kal_revision="${kal_version##*-}"
kal_time="${kal_version%-*}"
kal_time="${kal_time##*-}"
kal_date="${kal_time:0:4}-${kal_time:4:2}-${kal_time:6:2}T${kal_time:8:2}:${kal_time:10:2}:${kal_time:12:2}Z"

# The version string `golangci-lint version` prints: KAL's main reports the
# golangci-lint release from its build info and the KAL version stamped here.
ldflags="-X main.version=${kal_version} -X main.commit=${kal_revision} -X main.date=${kal_date}"

dir="${CACHE_DIR}/tools/golangci-lint-${golangci_version}-kal-${kal_revision}"
target="${dir}/golangci-lint"
stamp="${dir}/.golangci-lint.recipe"
# The recipe: its format version (bump it when the way the binary is built
# changes), the Go toolchain (golangci-lint refuses code newer than the Go it
# was built with), the flags and a hash of go.mod and go.sum.
sources="$(cd "${MODULE_DIR}" && cat go.mod go.sum | sha256sum | cut -d' ' -f1)"
recipe="recipe=1 $(go env GOVERSION) ${ldflags} ${sources}"

mkdir -p "${dir}"
if [[ -x "${target}" && "$(cat "${stamp}" 2>/dev/null)" != "${recipe}" ]]; then
  log "rebuilding: its build recipe changed"
  rm -f "${target}"
fi
if [[ ! -x "${target}" ]]; then
  log "building golangci-lint ${golangci_version} with kube-api-linter ${kal_version} from the Go module proxy, first time only (~5 min on 2 cores) ..."
  tmp="${dir}/.golangci-lint.$$.tmp"
  start=${SECONDS}
  # A progress line a minute, so a newcomer sees the build is alive; whole
  # lines, because make test-assets runs other builds beside this one.
  (while sleep 60; do log "still building ($((SECONDS - start))s)"; done) &
  ticker=$!
  if ! (cd "${MODULE_DIR}" && go build -trimpath -ldflags "${ldflags}" -o "${tmp}" "${PKG}"); then
    kill "${ticker}" 2>/dev/null || true
    rm -f "${tmp}"
    log "build failed"
    exit 1
  fi
  kill "${ticker}" 2>/dev/null || true
  mv -f "${tmp}" "${target}"
  echo "${recipe}" >"${stamp}"
  log "built in $((SECONDS - start))s -> ${target}"
fi
mkdir -p "${ROOT}/bin"
ln -sfn "${target}" "${ROOT}/bin/golangci-lint"
echo "${target}"
