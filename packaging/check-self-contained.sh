#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The repository is the whole product: no file in it may point to a path outside it (a sibling
# folder of reference data, a build machine's work directory, someone's home directory). Checks
# every tracked file of REPO (default: this script's repository; every file outside .git and
# build*/ when REPO is not a git work tree or git is missing) and prints, per finding,
#   FILE:LINE: RULE: the line
# then exits 1; exits 0 when there is none. Run by the `packaging.no_paths_outside_the_repository`
# test; `packaging.self_contained_check_catches_each_rule` shows it catches every rule below.
#
# The patterns are written so that this file does not match them itself (`[k]`, `(a|b)`).
set -euo pipefail

repo=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
cd "$repo"

# name|extended regular expression (grep -E), one rule per line.
rules=(
  'a sibling folder (a shared folder beside the clone)|\.\./share[d]([/"'"'"' ]|$)'
  'reference data beside the repository (its shared reference or seeds folder)|(^|[^A-Za-z0-9_-])shared/(reference|seeds)([/ .,;:)"`'"'"']|$)'
  "the old reference data tree (data/ holds what is shipped)|(^|[^A-Za-z0-9_-])reference/(README\.md|traces|moe-traces|measured-gpu|serving-measured|collectives|datasheets|dram-timings|hdmoe-setup|deepstack-published|aic-silicon|h200-measured|hotspot/)"
  'a build machine work directory (/work)|(^|[^A-Za-z0-9_.~-])/wor[k]/'
  'a home directory (/home, /Users, ~user)|(^|[^A-Za-z0-9_.-])(/hom[e]/[A-Za-z0-9_.-]+|/User[s]/[A-Za-z0-9_.-]+|~[a-z_][a-z0-9_-]*/)'
  'a Windows user directory (C:\Users)|[A-Za-z]:(\\+|/)User[s](\\+|/)'
)

if command -v git > /dev/null && git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  mapfile -d '' files < <(git ls-files -z)
else
  mapfile -d '' files < <(find . -path ./.git -prune -o -path './build*' -prune -o -type f -print0 |
                            sed -z 's|^\./||')
fi

found=0
for rule in "${rules[@]}"; do
  name=${rule%%|*}
  regex=${rule#*|}
  # -I: text files only (the gzip data and PNG screenshots cannot name a path as text);
  # -n: line numbers; -H: always the file name.
  while IFS= read -r hit; do
    [[ -z $hit ]] && continue
    file=${hit%%:*}
    rest=${hit#*:}
    line=${rest%%:*}
    text=${rest#*:}
    printf '%s:%s: %s: %s\n' "$file" "$line" "$name" "${text:0:200}"
    found=$((found + 1))
  done < <(printf '%s\0' "${files[@]}" | xargs -0 -r grep -IHnE -e "$regex" -- 2> /dev/null || true)
done

if ((found > 0)); then
  echo "check-self-contained: $found reference(s) to paths outside the repository in $repo" >&2
  exit 1
fi
echo "check-self-contained: ${#files[@]} files, no path outside the repository"
