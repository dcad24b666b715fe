#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs the Debian packages listed in packaging/debian-packages.txt that are missing.
# Idempotent: does nothing (and needs no network) when everything is installed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
list="$here/debian-packages.txt"

mapfile -t packages < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$list" | grep -v '^$')

missing=()
for p in "${packages[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages from debian-packages.txt are installed"
  exit 0
fi

if [[ "$(id -u)" -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "install-deps: error: missing packages (${missing[*]}) and not root; run as root" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${missing[*]}"
# A fresh machine has no package lists; a stale one may point at files the mirror dropped.
# So: update first when there are no lists, and update-and-retry once if the install fails.
if ! compgen -G "/var/lib/apt/lists/*_Packages*" >/dev/null; then
  "${sudo[@]}" apt-get update -q
fi
if ! "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"; then
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
