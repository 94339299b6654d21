#!/usr/bin/env bash
# boilerplate.sh lists the Go files that do not open with the license header
# of hack/boilerplate.go.txt (the goheader linter's template in .golangci.yml),
# and with --fix adds it.
#
# `golangci-lint run --fix` must not be used for this: goheader's fix writes
# the header as // comments, replaces a file's first comment when that is the
# package doc comment, and prints its year pattern literally.
#
# --fix puts the header, with the year the file was first committed (this
# year for a new file), and a blank line at the top of the file, below only a
# leading //go:build line (gofmt keeps that line first, as controller-gen
# does in zz_generated files), so a package doc comment stays as it was.
# goheader reports nothing for a file that opens with //go:build, so
# `make lint-go` runs this script's check as well.
# Generated files ("Code generated ... DO NOT EDIT.") and the tool modules
# under hack/tools/ are left alone.
#
# Usage: hack/boilerplate.sh [--fix]
# Exits 1 when, without --fix, a file lacks the header.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
fix=false
[[ "${1:-}" == --fix ]] && fix=true

# build_lines FILE: how many lines a leading //go:build line and the blank
# line after it take (0 when the file does not open with one).
build_lines() {
  awk 'NR == 1 && !/^\/\/go:build / { n = 0; exit }
       NR == 1 { n = 1; next }
       { n = (/^$/ ? 2 : 1); exit }
       END { print n + 0 }' "$1"
}

# has_header FILE: the header comment opens the file, after build_lines.
has_header() {
  [[ "$(tail -n +"$(($(build_lines "$1") + 1))" "$1" | head -n 2)" =~ ^/\*$'\n'Copyright\ 20[0-9][0-9]\ The\ podnetwork-operator\ Authors\.$ ]]
}

missing=()
while IFS= read -r f; do
  [[ -f "${f}" ]] || continue
  grep -q '^// Code generated .* DO NOT EDIT\.$' "${f}" && continue
  has_header "${f}" || missing+=("${f}")
done < <(git ls-files '*.go' | grep -v '^hack/tools/')

if [[ "${fix}" != true ]]; then
  [[ ${#missing[@]} -eq 0 ]] && exit 0
  echo "boilerplate: ${#missing[@]} Go files lack the license header of hack/boilerplate.go.txt (hack/boilerplate.sh --fix adds it):" >&2
  printf '%s\n' "${missing[@]}"
  exit 1
fi

for f in "${missing[@]}"; do
  year="$(git log --diff-filter=A --follow --format=%ad --date=format:%Y -- "${f}" | tail -n 1)"
  year="${year:-$(date +%Y)}"
  tmp="${f}.boilerplate.tmp"
  n="$(build_lines "${f}")"
  {
    head -n "${n}" "${f}"
    sed "s/^Copyright 20[0-9][0-9] /Copyright ${year} /" hack/boilerplate.go.txt
    echo
    tail -n +"$((n + 1))" "${f}"
  } >"${tmp}"
  mv -f "${tmp}" "${f}"
  echo "${f}"
done
