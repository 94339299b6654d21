#!/usr/bin/env bash
# kwok-stages.sh writes bin/kwok-stages.yaml: the stage definitions kwok needs
# (passed with --config) to mark fake nodes Ready, keep their heartbeats and
# run, complete and delete their pods. They ship inside kwok's Go module, so
# they are taken from the module cache at the pinned version.
set -euo pipefail
version="$1"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$(go mod download -json "sigs.k8s.io/kwok@${version}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
if [[ -z "${dir}" ]]; then
  echo "kwok-stages: could not locate sigs.k8s.io/kwok@${version} in the module cache" >&2
  exit 1
fi
out="${ROOT}/bin/kwok-stages.yaml"
mkdir -p "${ROOT}/bin"
first=true
{
  for f in node/fast/node-initialize.yaml node/heartbeat/node-heartbeat.yaml \
    pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
    [[ "${first}" == true ]] || echo "---"
    first=false
    cat "${dir}/kustomize/stage/${f}"
  done
} >"${out}.tmp"
mv -f "${out}.tmp" "${out}"
