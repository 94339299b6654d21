#!/usr/bin/env bash
# consumers.sh builds the real consumers of node pod CIDRs that our tests run
# and that do not come from k8s.io/kubernetes (kube-proxy is built by
# control-plane.sh): today flanneld, flannel's own main package built unmodified
# from the hack/tools/flannel module, which pins github.com/flannel-io/flannel
# in its go.mod (see hack/tools/flannel/README.md). Like control-plane.sh it
# builds from the Go module proxy, once, into the per-user cache
# (PODNETWORK_CACHE_DIR, default ~/.cache/podnetwork-operator) under
# consumers/<name>-<version>/, writing a temporary file and renaming it so an
# interrupted build never leaves a half binary behind, and links the result
# into bin/.
#
# Usage: hack/consumers.sh [binary...]
#   binary: flanneld (the default)
# Prints the path of each binary on stdout.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_DIR="${PODNETWORK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/podnetwork-operator}"

log() { echo "consumers: $*" >&2; }

# build_flanneld builds flanneld unless the cache holds one from the same
# recipe, and links it into bin/.
build_flanneld() {
  local module_dir="${ROOT}/hack/tools/flannel" version
  # go.mod is the one place the flannel version is pinned.
  version="$(cd "${module_dir}" && go list -m -f '{{.Version}}' github.com/flannel-io/flannel)"
  local dir="${CACHE_DIR}/consumers/flannel-${version}"
  local target="${dir}/flanneld"
  # Upstream stamps the release the same way, so --version reports it.
  local ldflags="-X github.com/flannel-io/flannel/pkg/version.Version=${version}"
  # cgo as upstream's Makefile sets it: on amd64 flannel's udp backend is
  # written in C, so its main package needs cgo (and a C compiler) there;
  # elsewhere it builds without.
  local cgo=0
  if [[ "$(go env GOARCH)" == amd64 ]]; then
    cgo=1
  fi
  # The recipe: its format version (bump it when the way flanneld is built
  # changes), the flannel version, the build settings, and a hash of what
  # picks the sources: go.mod, go.sum and the stand-in modules they replace
  # (names and contents). A cached flanneld from another recipe is rebuilt.
  local recipe sources
  sources="$(cd "${module_dir}" && {
    for f in go.mod go.sum $(find unavailable -type f | LC_ALL=C sort); do
      printf '== %s\n' "${f}"
      cat "${f}"
    done
  } | sha256sum | cut -d' ' -f1)"
  recipe="recipe=2 ${version} CGO_ENABLED=${cgo} ${ldflags} ${sources}"
  local stamp="${dir}/.flanneld.recipe"
  mkdir -p "${dir}"
  if [[ -x "${target}" && "$(cat "${stamp}" 2>/dev/null)" != "${recipe}" ]]; then
    log "rebuilding flanneld: its build recipe changed"
    rm -f "${target}"
  fi
  if [[ ! -x "${target}" ]]; then
    log "building flanneld ${version} from the Go module proxy, first time only (~3 min on 2 cores) ..."
    local tmp="${dir}/.flanneld.$$.tmp" start=${SECONDS} cc
    cc="$(go env CC)"
    if [[ ${cgo} == 1 ]] && ! command -v "${cc%% *}" >/dev/null 2>&1; then
      log "building flanneld needs a C compiler (${cc}): flannel's udp backend uses cgo on amd64; install gcc"
      return 1
    fi
    # The package is flannel's module root, named by the tool directive in
    # go.mod; building it from inside the module uses that go.mod's versions
    # and replace.
    if ! (cd "${module_dir}" && CGO_ENABLED=${cgo} go build -ldflags "${ldflags}" -o "${tmp}" github.com/flannel-io/flannel); then
      rm -f "${tmp}"
      log "building flanneld failed"
      return 1
    fi
    mv -f "${tmp}" "${target}"
    echo "${recipe}" >"${stamp}"
    log "built flanneld in $((SECONDS - start))s -> ${target}"
  fi
  mkdir -p "${ROOT}/bin"
  ln -sfn "${target}" "${ROOT}/bin/flanneld"
  echo "${ROOT}/bin/flanneld"
}

wanted=("$@")
if [[ ${#wanted[@]} -eq 0 ]]; then
  wanted=(flanneld)
fi
for b in "${wanted[@]}"; do
  case "${b}" in
    flanneld) build_flanneld ;;
    *)
      log "unknown binary ${b}"
      exit 2
      ;;
  esac
done
