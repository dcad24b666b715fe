# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by install-test.sh and readme-test.sh: a clean Debian 12 root (the base image of
# packaging/base-image.txt) to run commands in as a fresh machine would. Needs root, debootstrap
# and the network to the Debian mirror this machine uses.
#
# The mirror and the apt sources are this machine's own, read at run time from
# /etc/apt/sources.list.d/debian.sources (deb822) or /etc/apt/sources.list: nothing of the host's
# set-up is written into the repository.
# STACKSCOPE_BASE_TARBALL=FILE.tar reuses a root made earlier (fresh_root_save) instead of
# running debootstrap again; STACKSCOPE_KEEP_ROOT=1 keeps the root after the run.

fresh_root_mirror() {
  local f=/etc/apt/sources.list.d/debian.sources
  if [[ -f "$f" ]]; then
    awk '/^URIs:/ { print $2; exit }' "$f"
  elif [[ -f /etc/apt/sources.list ]]; then
    awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list
  fi
}

fresh_root_mounts=()
fresh_root_dir=""

fresh_root_cleanup() {
  local i
  for ((i = ${#fresh_root_mounts[@]} - 1; i >= 0; i--)); do
    umount -l "${fresh_root_mounts[i]}" 2>/dev/null || true
  done
  fresh_root_mounts=()
  if [[ -n "$fresh_root_dir" && "${STACKSCOPE_KEEP_ROOT:-0}" != 1 ]]; then
    # Only once nothing is mounted below it, so no host file is ever removed through a mount.
    if ! grep -q " $fresh_root_dir/" /proc/self/mounts; then
      rm -rf --one-file-system "$fresh_root_dir"
    else
      echo "fresh-root: $fresh_root_dir still has mounts; left in place" >&2
    fi
  fi
}

fresh_root_mount() {  # fresh_root_mount [mount options...] SOURCE TARGET-INSIDE-ROOT
  local target="$fresh_root_dir${*: -1}"
  mkdir -p "$target"
  mount "${@:1:$#-1}" "$target"
  fresh_root_mounts+=("$target")
}

# fresh_root_make DIR: debootstrap (or unpack the cached tarball), then the host's apt sources,
# resolv.conf, and /proc, /sys, /dev mounted. Call fresh_root_cleanup on exit (trap).
fresh_root_make() {
  fresh_root_dir="$(realpath -m "$1")"
  [[ "$(id -u)" -eq 0 ]] || { echo "fresh-root: needs root (debootstrap, chroot)" >&2; return 1; }
  [[ ! -e "$fresh_root_dir" ]] || { echo "fresh-root: $fresh_root_dir exists" >&2; return 1; }
  mkdir -p "$fresh_root_dir"
  if [[ -n "${STACKSCOPE_BASE_TARBALL:-}" ]]; then
    echo "fresh-root: unpacking $STACKSCOPE_BASE_TARBALL"
    tar -xpf "$STACKSCOPE_BASE_TARBALL" -C "$fresh_root_dir"
  else
    if ! command -v debootstrap >/dev/null; then
      echo "fresh-root: apt-get install debootstrap" >&2
      return 1
    fi
    local mirror
    mirror="$(fresh_root_mirror)"
    if [[ -z "$mirror" ]]; then
      echo "fresh-root: no Debian mirror in this machine's apt sources" >&2
      return 1
    fi
    echo "fresh-root: debootstrap --variant=minbase bookworm (this machine's mirror)"
    local log="$fresh_root_dir.debootstrap.log"
    if ! debootstrap --variant=minbase bookworm "$fresh_root_dir" "$mirror" >"$log" 2>&1; then
      tail -20 "$log" >&2
      return 1
    fi
    rm -f "$log"
  fi
  # A fresh machine has the distribution's full sources (updates, security), as this one does.
  if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
    rm -f "$fresh_root_dir/etc/apt/sources.list"
    cp /etc/apt/sources.list.d/debian.sources "$fresh_root_dir/etc/apt/sources.list.d/"
  elif [[ -f /etc/apt/sources.list ]]; then
    cp /etc/apt/sources.list "$fresh_root_dir/etc/apt/sources.list"
  fi
  cp -L /etc/resolv.conf "$fresh_root_dir/etc/resolv.conf"
  fresh_root_mount -t proc proc /proc
  fresh_root_mount -t sysfs sysfs /sys
  fresh_root_mount --bind /dev /dev
  fresh_root_mount --bind /dev/pts /dev/pts
}

# fresh_root_save FILE.tar: the root as made (before mounts are used), for STACKSCOPE_BASE_TARBALL.
fresh_root_save() {
  tar -cpf "$1" -C "$fresh_root_dir" --one-file-system .
}

# fresh_root_check_base: the root's packages against packaging/base-image.txt (a difference is
# printed; it means the base image moved and base-image.txt needs regenerating).
fresh_root_check_base() {
  local want have
  want="$(sed -e 's/#.*//' -e '/^$/d' "$1" | LC_ALL=C sort)"
  have="$(chroot "$fresh_root_dir" dpkg-query -W -f '${Package}\n' | LC_ALL=C sort)"
  if [[ "$want" == "$have" ]]; then
    echo "fresh-root: base image = $(basename "$1") ($(echo "$have" | wc -l) packages)"
  else
    echo "fresh-root: WARNING: this root differs from $(basename "$1") (< list, > root):"
    diff <(echo "$want") <(echo "$have") | grep '^[<>]' || true
  fi
}

fresh_root_run() {  # fresh_root_run COMMAND...: as root inside, with a clean environment
  chroot "$fresh_root_dir" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
