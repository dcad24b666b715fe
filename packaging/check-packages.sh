#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Packaging check: every file that the configure and build in BUILD_DIR took from the system
# must belong to a Debian package that a fresh machine gets from packaging/install-deps.sh,
# i.e. to the dependency closure of (debian-packages.txt ∪ base-image.txt). A package that is
# installed here by chance but reached by no install step once let a missing dependency through
# (Qt6Charts' config needs Qt6OpenGL; qt6-charts-dev does not depend on libqt6opengl6-dev).
#
# Usage: bash packaging/check-packages.sh BUILD_DIR [PACKAGE_LIST [BASE_LIST]]
# BUILD_DIR: configured with Ninja and built. Exit 0: all covered; 1: files not covered (each is
# printed with its owning package); 2: usage or environment error (no verdict).
#
# Files checked:
# - CMake files the configure loaded: the inputs of build.ninja's RERUN_CMAKE edge (CMake lists
#   every file it read there, for re-running itself), plus the config files in every <Pkg>_DIR
#   of CMakeCache.txt;
# - headers: `ninja -t deps` (the compiler's own dependency output for every object built);
# - libraries: LINK_LIBRARIES in build.ninja (absolute paths; -lNAME resolved in the -L dirs and
#   the compiler's implicit link directories), and the compiler's implicit libraries;
# - tools: compiler, archiver, ninja, cmake and the Qt code generators the build runs.
# The compiler launcher (CMAKE_<LANG>_COMPILER_LAUNCHER, e.g. ccache) is a developer's choice,
# not a project dependency, and is not checked.
#
# The closure follows Depends and Pre-Depends only: install-deps.sh passes
# --no-install-recommends. For an alternative (a | b) it takes the first one installed here, as
# apt would on a fresh machine; for a virtual package, every installed provider.
set -euo pipefail
export LC_ALL=C

here="$(cd "$(dirname "$0")" && pwd)"
usage() {
  echo "usage: $0 BUILD_DIR [PACKAGE_LIST [BASE_LIST]]" >&2
  exit 2
}
die() {
  echo "check-packages: error: $*" >&2
  exit 2
}
(($# >= 1 && $# <= 3)) || usage
build="$(realpath -e "$1" 2>/dev/null)" || die "build directory '$1' does not exist"
list="${2:-$here/debian-packages.txt}"
base="${3:-$here/base-image.txt}"
cache="$build/CMakeCache.txt"
for f in "$cache" "$build/build.ninja" "$list" "$base"; do
  [[ -f "$f" ]] || die "'$f' not found (BUILD_DIR must be configured with -G Ninja)"
done
command -v dpkg-query >/dev/null || die "dpkg-query not found: this check runs on Debian"

cache_get() { sed -n "s/^$1:[A-Z]*=//p" "$cache" | head -n 1; }
src="$(cache_get CMAKE_HOME_DIRECTORY)"
[[ -n "$src" ]] || die "$cache has no CMAKE_HOME_DIRECTORY"
src="$(realpath -e "$src")"
ninja="$(cache_get CMAKE_MAKE_PROGRAM)"
[[ -x "$ninja" ]] || die "CMAKE_MAKE_PROGRAM '$ninja' is not executable"
cxx="$(cache_get CMAKE_CXX_COMPILER)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
files="$work/files"  # kind TAB path
: >"$files"

# Paths inside the source or build tree are the project's own.
add() {  # add KIND: absolute paths on stdin
  awk -v kind="$1" -v src="$src/" -v build="$build/" '
    /^\// && index($0, src) != 1 && index($0, build) != 1 { print kind "\t" $0 }' >>"$files"
}
# One logical ninja line per physical line ("$" + newline continues a line).
ninja_lines() { awk '{ while (/\$$/ && (getline nxt) > 0) { sub(/\$$/, ""); $0 = $0 nxt } print }' \
  "$build/build.ninja"; }

# CMake files loaded by the configure.
ninja_lines | awk '$1 == "build" && $2 == "build.ninja:" && $3 == "RERUN_CMAKE" {
  for (i = 4; i <= NF; i++) print $i }' | add cmake
n_rerun="$(grep -c . "$files" || true)"
((n_rerun > 0)) || die "build.ninja has no RERUN_CMAKE inputs from the system"
# find_package(X) in config mode reads X_DIR/XConfig.cmake or x-config.cmake and its version file.
while IFS=$'\t' read -r name dir; do
  lower="$(echo "$name" | tr '[:upper:]' '[:lower:]')"
  for f in "$name"Config.cmake "$name"ConfigVersion.cmake "$lower"-config.cmake \
    "$lower"-config-version.cmake; do
    if [[ -f "$dir/$f" ]]; then echo "$dir/$f"; fi
  done
done < <(sed -n 's/^\([A-Za-z0-9_.+-]*\)_DIR:PATH=\(\/.*\)$/\1\t\2/p' "$cache") | add cmake

# Headers the compiler read, for every object built.
"$ninja" -C "$build" -t deps 2>/dev/null | awk '/^    /{ print $1 }' | sort -u | add header
n_headers="$(awk -F'\t' '$1 == "header"' "$files" | wc -l)"
((n_headers > 0)) || die "ninja -t deps lists no system header: build $build first"

# Libraries linked.
implicit_cmake="$(ls "$build"/CMakeFiles/*/CMakeCXXCompiler.cmake 2>/dev/null | head -n 1)"
[[ -n "$implicit_cmake" ]] || die "no CMakeFiles/*/CMakeCXXCompiler.cmake in $build"
implicit_get() { sed -n "s/^set($1 \"\(.*\)\")$/\1/p" "$implicit_cmake" | tr ';' '\n'; }
mapfile -t libdirs < <(implicit_get CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
mapfile -t link_tokens < <(ninja_lines | awk '$1 == "LINK_LIBRARIES" || $1 == "LINK_PATH" {
  for (i = 3; i <= NF; i++) print $i }' | sort -u)
lnames=()
: >"$work/linked"
for t in "${link_tokens[@]}"; do
  case "$t" in
    -L/*) libdirs=("${t#-L}" "${libdirs[@]}") ;;
    -l*) lnames+=("${t#-l}") ;;
    /*) echo "$t" >>"$work/linked" ;;
  esac
done
add library <"$work/linked"
mapfile -t -O "${#lnames[@]}" lnames < <(implicit_get CMAKE_CXX_IMPLICIT_LINK_LIBRARIES)
for name in $(printf '%s\n' "${lnames[@]}" | sort -u); do
  found=""
  for d in "${libdirs[@]}"; do  # ld's order: first directory with a .so, else a .a
    for f in "$d/lib$name.so" "$d/lib$name.a"; do
      if [[ -e "$f" ]]; then found="$f"; break 2; fi
    done
  done
  if [[ -z "$found" && -n "$cxx" ]]; then
    f="$("$cxx" -print-file-name="lib$name.so")"
    [[ "$f" == /* ]] && found="$f"
  fi
  [[ -n "$found" ]] || die "cannot resolve -l$name in ${libdirs[*]}"
  echo "$found"
done | add library

# Tools.
for v in CMAKE_CXX_COMPILER CMAKE_AR CMAKE_RANLIB CMAKE_LINKER CMAKE_MAKE_PROGRAM CMAKE_COMMAND \
  CMAKE_CTEST_COMMAND CMAKE_CPACK_COMMAND; do
  cache_get "$v"
done | add tool
find "$build" -path '*/CMakeFiles/*' -name '*Info.json' -exec \
  sed -n 's/.*"[A-Z_]*_EXECUTABLE" *: *"\(\/[^"]*\)".*/\1/p' {} + | sort -u | add tool
for v in $(sed -n 's/^\(CMAKE_[A-Z]*_COMPILER_LAUNCHER\):[A-Z]*=..*/\1/p' "$cache"); do
  echo "check-packages: note: $v=$(cache_get "$v") is not checked (not a project dependency)"
done

sort -u -o "$files" "$files"

# Owners. dpkg's database names the path a package ships, which may be the /lib or the /usr/lib
# spelling (merged /usr) and not a symlink's target; so each file is looked up as given, as its
# realpath, and both with the /usr prefix toggled. Every spelling dpkg knows must be owned by a
# package of the allowed set (a -dev symlink and the library it points to are both needed).
cut -f2 "$files" | sort -u >"$work/paths"
xargs -d "\n" realpath -m -- <"$work/paths" | paste "$work/paths" - |
  awk -F"\t" -v OFS="\t" '{
    for (i = 1; i <= 2; i++) {
      c = $i; print $1, c
      if (substr(c, 1, 5) == "/usr/") print $1, substr(c, 5); else print $1, "/usr" c
    } }' | sort -u >"$work/candidates"
cut -f2 "$work/candidates" | sort -u | xargs -d '\n' dpkg-query -S 2>/dev/null |
  awk '!/^diversion by / {
    i = index($0, ": /"); pk = substr($0, 1, i - 1); path = substr($0, i + 2)
    gsub(/:[a-z0-9]+/, "", pk); gsub(/ /, "", pk); print path "\t" pk }' >"$work/owners" || true

# Allowed set: closure of the listed packages and the base image over installed packages.
strip_list() { sed -e 's/#.*//' -e 's/[[:space:]]//g' "$1" | grep -v '^$' || true; }
strip_list "$list" >"$work/roots"
n_listed="$(wc -l <"$work/roots")"
strip_list "$base" >>"$work/roots"
dpkg-query -W -f '${Package}\t${db:Status-Abbrev}\t${Depends}\t${Pre-Depends}\t${Provides}\n' \
  >"$work/db"
awk -F'\t' -v nlisted="$n_listed" '
  function bare(s) { sub(/\(.*/, "", s); gsub(/[ \t]/, "", s); sub(/:.*/, "", s); return s }
  FILENAME == ARGV[1] {
    if ($2 !~ /^.i/) next
    inst[$1] = 1; deps[$1] = $3 ", " $4
    n = split($5, pv, ",")
    for (i = 1; i <= n; i++) { v = bare(pv[i]); if (v != "") prov[v] = prov[v] " " $1 }
    next
  }
  { root[++nroots] = $1 }
  function resolve(name,   out) {  # installed packages that satisfy name, "" if none
    if (name in inst) return name
    return (name in prov) ? prov[name] : ""
  }
  function visit(p,   n, groups, g, alts, k, a, sat, m, ps, j) {
    if (p in allowed) return
    allowed[p] = 1
    n = split(deps[p], groups, ",")
    for (g = 1; g <= n; g++) {
      k = split(groups[g], alts, "|")
      for (a = 1; a <= k; a++) {
        sat = resolve(bare(alts[a]))
        if (sat != "") break
      }
      m = split(sat, ps, " ")
      for (j = 1; j <= m; j++) visit(ps[j])
    }
  }
  END {
    for (r = 1; r <= nroots; r++) {
      sat = resolve(root[r])
      if (sat == "") {
        if (r <= nlisted) { print "MISSING\t" root[r]; continue }
        allowed[root[r]] = 1  # a base package not installed here: nothing of it is used
        continue
      }
      m = split(sat, ps, " ")
      for (j = 1; j <= m; j++) visit(ps[j])
    }
    for (p in allowed) print "ALLOWED\t" p
  }' "$work/db" "$work/roots" >"$work/closure"
missing="$(awk -F'\t' '$1 == "MISSING" { printf " %s", $2 }' "$work/closure")"
[[ -z "$missing" ]] || die "listed but not installed here:$missing (run packaging/install-deps.sh)"
n_allowed="$(grep -c '^ALLOWED' "$work/closure")"

# Verdict per file.
awk -F'\t' '
  FILENAME == ARGV[1] { if ($1 == "ALLOWED") ok[$2] = 1; next }
  FILENAME == ARGV[2] { owners[$1] = $2; next }
  FILENAME == ARGV[3] { cand[$1] = cand[$1] "\t" $2; next }
  {
    kind = $1; p = $2; n = split(substr(cand[p], 2), cs, "\t"); known = 0; bad = ""; seen = ""
    for (i = 1; i <= n; i++) {
      c = cs[i]
      if (!(c in owners)) continue
      known = 1
      m = split(owners[c], os, ",")
      good = 0
      for (j = 1; j <= m; j++) if (os[j] in ok) good = 1
      if (!good && index(" " bad " ", " " owners[c] " ") == 0)
        bad = bad (bad == "" ? "" : " ") owners[c]
      for (j = 1; j <= m; j++) pk[os[j]] = 1
    }
    if (!known) { print "UNOWNED\t" kind "\t" p; next }
    if (bad != "") { print "UNCOVERED\t" kind "\t" p "\t" bad; next }
    print "OK\t" kind "\t" p
  }' "$work/closure" "$work/owners" "$work/candidates" "$files" >"$work/verdict"

awk -F'\t' '{ n[$1]++; k[$2]++ } END {
  printf "check-packages: %d files from the system (", NR
  printf "%d CMake files, %d headers, %d libraries, %d tools)",
    k["cmake"], k["header"], k["library"], k["tool"]
  print "" }' "$work/verdict"
echo "check-packages: allowed set: $n_allowed packages, the closure of $(basename "$list")" \
  "($n_listed) and $(basename "$base")"
status=0
if grep -q '^UNCOVERED' "$work/verdict"; then
  status=1
  awk -F'\t' '$1 == "UNCOVERED" {
    printf "check-packages: not covered: %s %s (package %s)\n", $2, $3, $4 }' \
    "$work/verdict"
  pkgs="$(awk -F'\t' '$1 == "UNCOVERED" { n = split($4, a, "[ ,]"); for (i = 1; i <= n; i++)
    if (a[i] != "") print a[i] }' "$work/verdict" | sort -u | tr '\n' ' ')"
  echo "check-packages: FAIL: a fresh machine would lack these packages: ${pkgs% }"
  echo "check-packages: add them (or a package that depends on them) to $list"
fi
if grep -q '^UNOWNED' "$work/verdict"; then
  status=1
  awk -F'\t' '$1 == "UNOWNED" {
    printf "check-packages: no Debian package owns: %s %s\n", $2, $3 }' \
    "$work/verdict"
  echo "check-packages: FAIL: files installed by hand are absent on a fresh machine"
fi
((status != 0)) || echo "check-packages: OK: every file is in the allowed set"
exit "$status"
