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

# build_one NAME builds one binary into the cache unless it is already there.
build_one() {
  local name="$1" module_dir pkg version estimate
  case "${name}" in
    kube-apiserver | kube-controller-manager | kube-scheduler | kubectl | kube-proxy)
      module_dir="${ROOT}/hack/tools/k8s"
      pkg="k8s.io/kubernetes/cmd/${name}"
      version="${K8S_VERSION}"
      estimate="~10 min on 2 cores the first time, a few minutes once the Go build cache is warm"
      ;;
    etcd)
      module_dir="${ROOT}/hack/tools/etcd"
      pkg="go.etcd.io/etcd/server/v3"
      version="${ETCD_VERSION}"
      estimate="~1 min"
      ;;
    *)
      log "unknown binary ${name}"
      return 2
      ;;
  esac
  local target="${CACHE_BIN}/${name}"
  local ldflags=""
  if [[ "${module_dir}" == */k8s ]]; then
    # Stamp the release into the binaries, as the Kubernetes build does, so
    # /version reports it (Helm charts check kubeVersion against it).
    local minor="${version#v1.}"
    minor="${minor%%.*}"
    ldflags="-X k8s.io/component-base/version.gitVersion=${version} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor} -X k8s.io/component-base/version.gitTreeState=clean"
    ldflags="${ldflags} -X k8s.io/client-go/pkg/version.gitVersion=${version} -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=${minor}"
  fi
  # The recipe stamp makes a change of build flags rebuild cached binaries.
  local recipe="${version} ${ldflags}"
  local stamp="${CACHE_BIN}/.${name}.recipe"
  if [[ -x "${target}" && "$(cat "${stamp}" 2>/dev/null)" != "${recipe}" ]]; then
    log "rebuilding ${name}: its build recipe changed"
    rm -f "${target}"
  fi
  if [[ ! -x "${target}" ]]; then
    log "building ${name} ${version} from the Go module proxy, first time only (${estimate}) ..."
    local tmp="${CACHE_BIN}/.${name}.$$.tmp"
    local start=${SECONDS}
    # Progress dots so a newcomer sees the build is alive.
    ( while sleep 30; do printf '.' >&2; done ) &
    local ticker=$!
    if ! (cd "${module_dir}" && go build -ldflags "${ldflags}" -o "${tmp}" "${pkg}"); then
      kill "${ticker}" 2>/dev/null || true
      rm -f "${tmp}"
      log "building ${name} failed"
      return 1
    fi
    kill "${ticker}" 2>/dev/null || true
    mv -f "${tmp}" "${target}"
    echo "${recipe}" >"${stamp}"
    echo >&2
    log "built ${name} in $((SECONDS - start))s -> ${target}"
  fi
  ln -sfn "${target}" "${LINK_DIR}/${name}"
}

for b in "${wanted[@]}"; do
  build_one "${b}"
done
echo "${LINK_DIR}"
