#!/usr/bin/env bash
# go-install.sh installs a pinned Go tool into the per-user cache
# (PODNETWORK_CACHE_DIR, default ~/.cache/podnetwork-operator) and links it
# into bin/, the way kubebuilder's Makefile pins its tools, so a fresh clone
# reuses what this machine already built.
#
# Usage: hack/go-install.sh NAME PACKAGE VERSION [TAGS]
#   TAGS: build tags, comma-separated (they name the cached build too).
set -euo pipefail

name="$1" pkg="$2" version="$3" tags="${4:-}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_DIR="${PODNETWORK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/podnetwork-operator}"
dir="${CACHE_DIR}/tools/${name}-${version}${tags:+-${tags//,/-}}"
if [[ ! -x "${dir}/${name}" ]]; then
  echo "go-install: installing ${name} ${version}${tags:+ (tags ${tags})} from the Go module proxy (first time only) ..." >&2
  tmp="$(mktemp -d "${CACHE_DIR}/tools/.${name}.XXXXXX" 2>/dev/null || { mkdir -p "${CACHE_DIR}/tools"; mktemp -d "${CACHE_DIR}/tools/.${name}.XXXXXX"; })"
  GOBIN="${tmp}" go install -tags "${tags}" "${pkg}@${version}"
  built="$(ls "${tmp}")"
  mkdir -p "${dir}"
  mv -f "${tmp}/${built}" "${dir}/${name}"
  rm -rf "${tmp}"
fi
mkdir -p "${ROOT}/bin"
ln -sfn "${dir}/${name}" "${ROOT}/bin/${name}"
