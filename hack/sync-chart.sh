#!/usr/bin/env bash
# sync-chart.sh copies the generated CRDs and ClusterRole into the chart, and
# writes the adapters' ClusterRole from internal/adapters/registry (hack/chartgen).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
go run ./hack/chartgen config charts/podnetwork-operator
