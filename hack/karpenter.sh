#!/usr/bin/env bash
# karpenter.sh builds the Karpenter our tests run: Karpenter's kwok cloud
# provider, the unmodified main package sigs.k8s.io/karpenter/kwok, from the
# hack/tools/karpenter module, which pins sigs.k8s.io/karpenter in its go.mod
# (see hack/tools/karpenter/README.md). Like consumers.sh it builds from the
# Go module proxy, once, into the per-user cache (PODNETWORK_CACHE_DIR,
# default ~/.cache/podnetwork-operator) under tools/karpenter-<version>/,
# writing a temporary file and renaming it so an interrupted build never
# leaves a half binary behind. Karpenter's CRDs (NodePool, NodeClaim,
# NodeOverlay, CapacityBuffer and the KWOKNodeClass) are copied from the same
# module into crds/ next to the binary. It links bin/karpenter-kwok and
# bin/karpenter-crds to them.
#
# Karpenter's go.mod asks for a newer Go than the one this project needs
# (its `go` line, which hack/tools/karpenter/go.mod repeats), so the go
# commands below, and only these, run with GOTOOLCHAIN set to that release:
# the go command downloads it through the module proxy the first time.
#
# Usage: hack/karpenter.sh
# Prints the path of the binary on stdout.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_DIR="${PODNETWORK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/podnetwork-operator}"
MODULE_DIR="${ROOT}/hack/tools/karpenter"

log() { echo "karpenter: $*" >&2; }

# The toolchain is the module's `go` line: the one place it is pinned.
toolchain="go$(sed -n 's/^go \([0-9.]*\)$/\1/p' "${MODULE_DIR}/go.mod")"
if [[ "${toolchain}" == go ]]; then
  log "no go line in ${MODULE_DIR}/go.mod"
  exit 1
fi

# kgo runs the go command on the tool module with the toolchain it asks for.
kgo() { (cd "${MODULE_DIR}" && GOTOOLCHAIN="${toolchain}" go "$@"); }

version="$(kgo list -m -f '{{.Version}}' sigs.k8s.io/karpenter)"
dir="${CACHE_DIR}/tools/karpenter-${version}"
target="${dir}/karpenter-kwok"
# Karpenter's own release build stamps the version the same way.
ldflags="-X sigs.k8s.io/karpenter/pkg/operator.Version=${version}"
# The recipe: its format version (bump it when the way the binary is built
# changes), the version, the toolchain, the build settings and a hash of
# go.mod and go.sum. A cached binary from another recipe is rebuilt.
sources="$(cat "${MODULE_DIR}/go.mod" "${MODULE_DIR}/go.sum" | sha256sum | cut -d' ' -f1)"
recipe="recipe=1 ${version} ${toolchain} CGO_ENABLED=0 ${ldflags} ${sources}"
stamp="${dir}/.karpenter-kwok.recipe"
mkdir -p "${dir}"
if [[ -x "${target}" && "$(cat "${stamp}" 2>/dev/null)" != "${recipe}" ]]; then
  log "rebuilding karpenter-kwok: its build recipe changed"
  rm -f "${target}"
fi
if [[ ! -x "${target}" || ! -d "${dir}/crds" ]]; then
  log "building Karpenter's kwok provider ${version} with ${toolchain} from the Go module proxy, first time only (3 to 9 min on 2 cores, with the ${toolchain} download) ..."
  tmp="${dir}/.karpenter-kwok.$$.tmp"
  start=${SECONDS}
  # The package is named by the tool directive in go.mod; building it from
  # inside the module uses that go.mod's versions.
  if ! kgo build -trimpath -ldflags "${ldflags}" -o "${tmp}" sigs.k8s.io/karpenter/kwok; then
    rm -f "${tmp}"
    log "building karpenter-kwok failed"
    exit 1
  fi
  # The CRDs the chart of the kwok provider installs, and the KWOKNodeClass.
  src="$(kgo list -m -f '{{.Dir}}' sigs.k8s.io/karpenter)"
  crds="${dir}/.crds.$$.tmp"
  rm -rf "${crds}"
  mkdir -p "${crds}"
  cp "${src}"/kwok/charts/crds/*.yaml "${src}"/kwok/apis/crds/*.yaml "${crds}/"
  chmod 0644 "${crds}"/*.yaml
  rm -rf "${dir}/crds"
  mv -f "${crds}" "${dir}/crds"
  mv -f "${tmp}" "${target}"
  echo "${recipe}" >"${stamp}"
  log "built karpenter-kwok in $((SECONDS - start))s -> ${target}"
fi
mkdir -p "${ROOT}/bin"
ln -sfn "${target}" "${ROOT}/bin/karpenter-kwok"
ln -sfn "${dir}/crds" "${ROOT}/bin/karpenter-crds"
echo "${ROOT}/bin/karpenter-kwok"
