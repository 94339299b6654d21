#!/usr/bin/env bash
# helm-lint.sh lints the chart and renders it with the default values and
# every variant in charts/podnetwork-operator/ci/*-values.yaml, so a template
# error or a values-schema violation fails `make test`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HELM="${HELM:-${ROOT}/bin/helm}"
CHART="${ROOT}/charts/podnetwork-operator"
"${HELM}" lint --strict "${CHART}"
"${HELM}" template podnetwork-operator "${CHART}" --namespace podnetwork-system >/dev/null
for values in "${CHART}"/ci/*-values.yaml; do
  [[ -e "${values}" ]] || continue
  echo "helm-lint: rendering with $(basename "${values}")"
  "${HELM}" lint --strict "${CHART}" -f "${values}" >/dev/null
  "${HELM}" template podnetwork-operator "${CHART}" --namespace podnetwork-system -f "${values}" >/dev/null
done
# Bad values must be refused at install time by values.schema.json.
for values in "${ROOT}"/hack/testdata/bad-chart-values/*.yaml; do
  if "${HELM}" template podnetwork-operator "${CHART}" -f "${values}" >/dev/null 2>&1; then
    echo "helm-lint: $(basename "${values}") was accepted; values.schema.json must refuse it" >&2
    exit 1
  fi
done
echo "helm-lint: the schema refuses every bad values file"
echo "helm-lint: chart OK"
