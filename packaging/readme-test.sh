#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# README command 1 (and with --test command 2 and every README example) on a fresh Debian 12
# root, the way a new user meets the project: a debootstrap minbase chroot
# (packaging/base-image.txt) gets a `git clone` of this repository (its committed HEAD) as
# /root/stackscope with nothing beside it, then runs `bash packaging/run.sh` (no display: builds
# and evaluates headless) and, with --test, `bash packaging/test.sh` and then
# `bash packaging/readme-examples.sh build` (every command block of README.md as printed; the
# suite of command 2 runs it too, as readme.examples_run_as_printed, and this shows its log).
# Needs root, debootstrap and the Debian mirror; downloads ~1 GB of packages. Not in CTest.
# Usage: sudo bash packaging/readme-test.sh [--test] [WORKDIR]   (see fresh-root.sh for the
# STACKSCOPE_BASE_TARBALL and STACKSCOPE_KEEP_ROOT variables)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/.." && pwd)"
# shellcheck source=fresh-root.sh
source "$here/fresh-root.sh"

run_tests=0
if [[ "${1:-}" == --test ]]; then
  run_tests=1
  shift
fi
work="${1:-$(mktemp -d /var/tmp/stackscope-readme-test.XXXXXX)}"
mkdir -p "$work"
trap fresh_root_cleanup EXIT

t0=$SECONDS
fresh_root_make "$work/root"
fresh_root_check_base "$here/base-image.txt"
# A clone, as from the project's public home: committed files only, no build, nothing beside it
# (/root holds only the clone), so a test or example that reaches outside the repository fails.
git clone --quiet --no-hardlinks "$src" "$fresh_root_dir/root/stackscope"
echo "readme-test: clone of $(git -C "$src" rev-parse --short HEAD) in /root/stackscope;" \
     "beside it: $(ls -A "$fresh_root_dir/root" | tr '\n' ' ')"
echo "readme-test: root ready in $((SECONDS - t0)) s"

t1=$SECONDS
fresh_root_run bash -c 'cd /root/stackscope && bash packaging/run.sh' 2>&1 | tee "$work/run.log"
echo "readme-test: command 1 (bash packaging/run.sh) passed in $((SECONDS - t1)) s"
chroot "$fresh_root_dir" dpkg-query -W -f '${Package}\n' | wc -l |
  xargs echo "readme-test: packages in the root after install-deps:"
if ((run_tests)); then
  t2=$SECONDS
  fresh_root_run bash -c 'cd /root/stackscope && bash packaging/test.sh' 2>&1 | tee "$work/test.log"
  echo "readme-test: command 2 (bash packaging/test.sh) passed in $((SECONDS - t2)) s"
  t3=$SECONDS
  fresh_root_run bash -c 'cd /root/stackscope && bash packaging/readme-examples.sh build' 2>&1 |
    tee "$work/examples.log"
  echo "readme-test: README examples (packaging/readme-examples.sh) passed in $((SECONDS - t3)) s"
fi
