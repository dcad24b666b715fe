#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Install test of the .deb on a clean root: builds stackscope and stackscope-cli in BUILD_DIR
# (configured Release without tests if it is not configured yet), runs cpack -G DEB, makes a
# fresh Debian 12 minbase root (packaging/fresh-root.sh, packaging/base-image.txt), and inside it
#   apt-get install --no-install-recommends ./stackscope_*.deb
# (no Recommends of the libraries either, so the package's Depends alone must suffice), then
# checks that no installed binary has an unresolved library, runs `stackscope-cli evaluate` (the
# builtin default project), `stackscope-cli serve` on the installed Azure trace
# (/usr/share/stackscope/data) and `stackscope --screenshots DIR` on Qt's offscreen platform from
# the installed files, and requires every screenshot to be a non-empty PNG.
# Needs root, debootstrap and the Debian mirror (~100 MB of packages); about 5 minutes beyond
# the build. Not in CTest's default run (network, root): run by hand, or `ctest -L install`
# where STACKSCOPE_INSTALL_TEST=ON registered it (tests/packaging/CMakeLists.txt).
# Usage: sudo bash packaging/install-test.sh [BUILD_DIR [WORKDIR]]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/.." && pwd)"
# shellcheck source=fresh-root.sh
source "$here/fresh-root.sh"

build="$(realpath -m "${1:-$src/build-deb}")"
work="${2:-$(mktemp -d /var/tmp/stackscope-install-test.XXXXXX)}"
mkdir -p "$work"
trap fresh_root_cleanup EXIT
fail() {
  echo "install-test: FAIL: $*" >&2
  exit 1
}

t0=$SECONDS
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTACKSCOPE_BUILD_TESTS=OFF \
    -DSTACKSCOPE_BUILD_BENCHMARKS=OFF
fi
# cpack runs the preinstall target, which builds `all` unless this is set; the package holds only
# the two programs, so only they are built.
cmake -S "$src" -B "$build" -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON >/dev/null
cmake --build "$build" --parallel "${STACKSCOPE_JOBS:-$(nproc)}" --target stackscope stackscope-cli
rm -f "$build"/stackscope_*.deb
if ! (cd "$build" && cpack -G DEB >"$work/cpack.log" 2>&1); then
  cat "$work/cpack.log" >&2
  fail "cpack"
fi
debs=("$build"/stackscope_*.deb)
[[ -f "${debs[0]}" && ${#debs[@]} -eq 1 ]] || fail "cpack made no single stackscope_*.deb"
deb="${debs[0]}"
echo "install-test: built $(basename "$deb") ($(stat -c %s "$deb") bytes) in $((SECONDS - t0)) s"
dpkg-deb -f "$deb" Package Version Architecture Maintainer Section Installed-Size Depends \
  Suggests Homepage | sed 's/^/  /'
[[ -z "$(dpkg-deb -f "$deb" Homepage)" ]] || fail "the package names a Homepage"
dpkg-deb -c "$deb" | awk '$NF !~ /\/$/ { print "  " $3 "\t" $NF }'

t1=$SECONDS
fresh_root_make "$work/root"
fresh_root_check_base "$here/base-image.txt"
fresh_root_run dpkg-query -W -f '${Package}\n' | sort >"$work/packages-before"
cp "$deb" "$fresh_root_dir/root/"
echo "install-test: clean root ready in $((SECONDS - t1)) s"

t2=$SECONDS
fresh_root_run bash -c 'export DEBIAN_FRONTEND=noninteractive; cd /root &&
  apt-get update -q && apt-get install -y -q --no-install-recommends ./stackscope_*.deb' \
  >"$work/apt.log" 2>&1 || { tail -30 "$work/apt.log" >&2; fail "apt-get install ./${deb##*/}"; }
fresh_root_run dpkg-query -W -f '${Package}\n' | sort >"$work/packages-after"
pulled="$(comm -13 "$work/packages-before" "$work/packages-after" | grep -vx stackscope |
  tr '\n' ' ')"
echo "install-test: apt-get install took $((SECONDS - t2)) s and added $(echo "$pulled" | wc -w)" \
  "packages besides stackscope:"
echo "$pulled" | fold -s -w 98 | sed 's/^/  /'

for exe in /usr/bin/stackscope /usr/bin/stackscope-cli; do
  [[ -x "$fresh_root_dir$exe" ]] || fail "$exe is not installed"
  if fresh_root_run ldd "$exe" | grep 'not found'; then fail "$exe: unresolved libraries"; fi
done
for f in /usr/share/applications/io.stackscope.StackScope.desktop \
  /usr/share/metainfo/io.stackscope.StackScope.metainfo.xml \
  /usr/share/icons/hicolor/scalable/apps/io.stackscope.StackScope.svg \
  /usr/share/doc/stackscope/LICENSE \
  /usr/share/stackscope/data/README.md \
  /usr/share/stackscope/data/azure-llm-2023/LICENSE \
  /usr/share/stackscope/data/azure-llm-2023/conv.csv.gz; do
  [[ -s "$fresh_root_dir$f" ]] || fail "$f is not installed"
done

fresh_root_run bash -c 'cd /tmp && stackscope-cli evaluate' >"$work/evaluate.out" 2>&1 ||
  { cat "$work/evaluate.out" >&2; fail "stackscope-cli evaluate"; }
grep -q '^feasible ' "$work/evaluate.out" ||
  { cat "$work/evaluate.out" >&2; fail "evaluate printed no feasibility line"; }
echo "install-test: stackscope-cli evaluate: OK ($(wc -l <"$work/evaluate.out") lines)"
# The shipped data sets are usable from the installed copy: the Azure conversation trace (gzip).
fresh_root_run bash -c 'cd /tmp && stackscope-cli serve --model llama-3.1-8b --hardware h100-sxm \
  --devices 1 --tp 1 --trace /usr/share/stackscope/data/azure-llm-2023/conv.csv.gz' \
  >"$work/serve.out" 2>&1 || { cat "$work/serve.out" >&2; fail "stackscope-cli serve --trace"; }
grep -q '^completed  19366 of 19366' "$work/serve.out" ||
  { cat "$work/serve.out" >&2; fail "serve did not complete the installed trace's 19366 requests"; }
echo "install-test: stackscope-cli serve on /usr/share/stackscope/data: OK"

t3=$SECONDS
fresh_root_run bash -c 'cd /tmp && rm -rf shots &&
  QT_QPA_PLATFORM=offscreen stackscope --screenshots /tmp/shots' >"$work/screenshots.out" 2>&1 ||
  { cat "$work/screenshots.out" >&2; fail "stackscope --screenshots"; }
rm -rf "$work/screenshots"
cp -r "$fresh_root_dir/tmp/shots" "$work/screenshots"
mapfile -t shots < <(find "$work/screenshots" -name '*.png' | sort)
((${#shots[@]} > 0)) || fail "stackscope --screenshots wrote no PNG"
for s in "${shots[@]}"; do
  [[ -s "$s" ]] || fail "$(basename "$s") is empty"
  [[ "$(head -c 8 "$s" | od -An -tx1 | tr -d ' \n')" == 89504e470d0a1a0a ]] ||
    fail "$(basename "$s") is not a PNG"
done
echo "install-test: stackscope --screenshots: ${#shots[@]} non-empty PNGs in $((SECONDS - t3)) s" \
  "(copied to $work/screenshots)"
echo "install-test: PASS in $((SECONDS - t0)) s"
