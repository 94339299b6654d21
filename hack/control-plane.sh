#!/usr/bin/env bash
# control-plane.sh builds the Kubernetes control-plane binaries our tests run
# against (kube-apiserver, etcd, and on request kube-controller-manager,
# kube-scheduler and kubectl), and kube-proxy, a real consumer of node pod
# CIDRs that our tests run, from their Go modules, because no download site
# for release binaries is reachable from our machines or CI. Only the Go module
# proxy is.
#
# Binaries are built once into a per-user cache outside the clone
# (PODNETWORK_CACHE_DIR, default ~/.cache/podnetwork-operator) and linked into
# bin/k8s/<version>/, so a fresh clone on a machine that already built them
# reuses them. Each build writes a temporary file and renames it, so an
# interrupted build never leaves a half binary behind.
#
# Usage: hack/control-plane.sh [binary...]
#   binary: kube-apiserver etcd kube-controller-manager kube-scheduler kubectl
#           kube-proxy
#   (default: kube-apiserver etcd, all that envtest needs)
# Prints the directory holding the binaries on the last line of stdout.
#
# If KUBEBUILDER_ASSETS is set and holds kube-apiserver and etcd, it is used as
# is and nothing is built.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.37.2}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_DIR="${PODNETWORK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/podnetwork-operator}"
CACHE_BIN="${CACHE_DIR}/k8s/${K8S_VERSION}"
LINK_DIR="${ROOT}/bin/k8s/${K8S_VERSION}"

log() { echo "control-plane: $*" >&2; }

wanted=("$@")
if [[ ${#wanted[@]} -eq 0 ]]; then
  wanted=(kube-apiserver etcd)
fi

if [[ -n "${KUBEBUILDER_ASSETS:-}" && -x "${KUBEBUILDER_ASSETS}/kube-apiserver" && -x "${KUBEBUILDER_ASSETS}/etcd" ]]; then
  only_envtest=true
  for b in "${wanted[@]}"; do
    [[ -x "${KUBEBUILDER_ASSETS}/${b}" ]] || only_envtest=false
  done
  if [[ "${only_envtest}" == true ]]; then
    log "using KUBEBUILDER_ASSETS=${KUBEBUILDER_ASSETS}"
    echo "${KUBEBUILDER_ASSETS}"
    exit 0
  fi
fi

mkdir -p "${CACHE_BIN}" "${LINK_DIR}"

# The Kubernetes binaries come from one module and share most of their
# packages: build every missing one in a single `go build`, which compiles each
# shared package once and links one binary while it compiles the next, rather
# than one `go build` after another, each ending in a link that leaves a core
# idle.
k8s_ldflags() {
  local version="$1" minor
  minor="${version#v1.}"
  minor="${minor%%.*}"
  # Stamp the release into the binaries, as the Kubernetes build does, so
  # /version reports it (Helm charts check kubeVersion against it); and strip
  # the symbol table and DWARF, as its release build does too (-s -w): the
  # linker's slowest part, and no test reads them.
  echo "-s -w -X k8s.io/component-base/version.gitVersion=${version} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor} -X k8s.io/component-base/version.gitTreeState=clean" \
    "-X k8s.io/client-go/pkg/version.gitVersion=${version} -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=${minor}"
}

# stale NAME RECIPE removes a cached binary built from another recipe (the
# stamp beside it), so that a change of build flags rebuilds it; it succeeds
# when the binary must be built.
stale() {
  local name="$1" recipe="$2" target="${CACHE_BIN}/$1" stamp="${CACHE_BIN}/.$1.recipe"
  if [[ -x "${target}" && "$(cat "${stamp}" 2>/dev/null)" != "${recipe}" ]]; then
    log "rebuilding ${name}: its build recipe changed"
    rm -f "${target}"
  fi
  [[ ! -x "${target}" ]]
}

# exec_name PACKAGE is the file go build -o DIR/ writes for a main package: the
# last element of its path, or the one before a major version suffix
# (go.etcd.io/etcd/server/v3 is "server").
exec_name() {
  local base="${1##*/}"
  if [[ "${base}" =~ ^v[0-9]+$ ]]; then
    base="${1%/*}"
    base="${base##*/}"
  fi
  echo "${base}"
}

# build MODULE_DIR LDFLAGS ESTIMATE RECIPE NAME=PACKAGE... builds the named binaries
# in one `go build` into a temporary directory, then renames each into the
# cache with the recipe stamp beside it.
build() {
  local module_dir="$1" ldflags="$2" estimate="$3" recipe="$4"
  shift 4
  local names=() pkgs=() spec
  for spec in "$@"; do
    names+=("${spec%%=*}")
    pkgs+=("${spec#*=}")
  done
  log "building ${names[*]} from the Go module proxy, first time only (${estimate}) ..."
  local tmp="${CACHE_BIN}/.build.$$.tmp" start=${SECONDS}
  rm -rf "${tmp}"
  mkdir -p "${tmp}"
  # A progress line a minute, so a newcomer sees the build is alive; whole
  # lines, because make test-assets runs other builds beside this one.
  (while sleep 60; do log "still building ${names[*]} ($((SECONDS - start))s)"; done) &
  local ticker=$!
  if ! (cd "${module_dir}" && go build -ldflags "${ldflags}" -o "${tmp}/" "${pkgs[@]}"); then
    kill "${ticker}" 2>/dev/null || true
    rm -rf "${tmp}"
    log "building ${names[*]} failed"
    return 1
  fi
  kill "${ticker}" 2>/dev/null || true
  local i
  for i in "${!names[@]}"; do
    mv -f "${tmp}/$(exec_name "${pkgs[i]}")" "${CACHE_BIN}/${names[i]}"
    echo "${recipe}" >"${CACHE_BIN}/.${names[i]}.recipe"
  done
  rm -rf "${tmp}"
  log "built ${names[*]} in $((SECONDS - start))s -> ${CACHE_BIN}"
}

k8s=() etcd=()
ldflags="$(k8s_ldflags "${K8S_VERSION}")"
k8s_recipe="${K8S_VERSION} ${ldflags}" etcd_recipe="${ETCD_VERSION} "
for b in "${wanted[@]}"; do
  case "${b}" in
    kube-apiserver | kube-controller-manager | kube-scheduler | kubectl | kube-proxy)
      if stale "${b}" "${k8s_recipe}"; then
        k8s+=("${b}=k8s.io/kubernetes/cmd/${b}")
      fi
      ;;
    etcd)
      if stale etcd "${etcd_recipe}"; then
        etcd=("etcd=go.etcd.io/etcd/server/v3")
      fi
      ;;
    *)
      log "unknown binary ${b}"
      exit 2
      ;;
  esac
done
if [[ ${#k8s[@]} -gt 0 ]]; then
  build "${ROOT}/hack/tools/k8s" "${ldflags}" \
    "~10 min on 2 cores the first time, a few minutes once the Go build cache is warm" \
    "${k8s_recipe}" "${k8s[@]}"
fi
if [[ ${#etcd[@]} -gt 0 ]]; then
  build "${ROOT}/hack/tools/etcd" "" "~1 min" "${etcd_recipe}" "${etcd[@]}"
fi
for b in "${wanted[@]}"; do
  ln -sfn "${CACHE_BIN}/${b}" "${LINK_DIR}/${b}"
done
echo "${LINK_DIR}"
