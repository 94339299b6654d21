#!/usr/bin/env bash
# host-packages.sh installs the Debian packages whose commands the real
# consumers exec, when those commands are missing (CI starts on a fresh Debian
# machine with only Go):
#   - iptables (iptables, iptables-save, iptables-restore, ip6tables...): the
#     iptables mode of kube-proxy, and flanneld's --ip-masq and forward rules;
#   - nftables (nft): the nftables mode of kube-proxy (knftables runs nft);
#   - iproute2 (ip): the network namespaces the tests run them in.
# conntrack is not needed: kube-proxy v1.37 clears conntrack entries over
# netlink, not with the conntrack command.
#
# Usage: hack/host-packages.sh   (as root, or with sudo available)
set -euo pipefail

log() { echo "host-packages: $*" >&2; }

# have CMD tells whether CMD exists, also in the sbin directories that a
# non-root PATH often lacks.
have() {
  command -v "$1" >/dev/null 2>&1 || [[ -x "/usr/sbin/$1" || -x "/sbin/$1" ]]
}

declare -A package_of=(
  [iptables]=iptables [iptables-save]=iptables [iptables-restore]=iptables
  [ip6tables]=iptables [ip6tables-save]=iptables [ip6tables-restore]=iptables
  [nft]=nftables
  [ip]=iproute2
)

missing=()
for cmd in "${!package_of[@]}"; do
  if ! have "${cmd}"; then
    pkg="${package_of[${cmd}]}"
    [[ " ${missing[*]} " == *" ${pkg} "* ]] || missing+=("${pkg}")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  log "missing packages ${missing[*]}, and no apt-get to install them; install them by hand"
  exit 1
fi
sudo=()
if [[ ${EUID} -ne 0 ]]; then
  command -v sudo >/dev/null 2>&1 || { log "missing packages ${missing[*]}: run as root to install them"; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists yet: update them first.
log "apt-get update"
"${sudo[@]}" apt-get update -qq >&2
log "apt-get install ${missing[*]}"
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
