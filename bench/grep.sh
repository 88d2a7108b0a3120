#!/usr/bin/env bash
# Times godwit's grep tool against ripgrep on the Go source tree, same
# pattern, same ignore rules: ripgrep is told to search hidden files (as
# godwit does) and to skip vendor/ and node_modules/ (as godwit does);
# GOROOT/src is not a git repository, so neither applies .gitignore files
# outside the skipped folders.
#
# Usage: bench/grep.sh [PATTERN]   (from the repository root)
# Needs: ripgrep (apt-get install ripgrep); hyperfine if available.
set -euo pipefail
pattern=${1:-'func \w+Marshal'}
src=$(go env GOROOT)/src
bin=$(mktemp -d)/fsgrep
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./bench/fsgrep

rg_cmd="rg --hidden -g '!vendor/' -g '!node_modules/' '$pattern' $src"
fs_cmd="$bin '$pattern' $src"

# Same matches first: the comparison is only fair if both find the same.
rg_n=$(eval "rg --hidden -g '!vendor/' -g '!node_modules/' -c '$pattern' $src" | awk -F: '{s+=$NF} END {print s+0}')
fs_n=$(eval "$fs_cmd" | grep -cE '^[0-9]+:' || true)
echo "matching lines: ripgrep $rg_n, godwit $fs_n"

echo "cores: $(nproc)"
if command -v hyperfine >/dev/null; then
	hyperfine --warmup 2 --runs 10 -N "$rg_cmd" "$fs_cmd" 2>/dev/null || hyperfine --warmup 2 --runs 10 "$rg_cmd" "$fs_cmd"
else
	for c in "$rg_cmd" "$fs_cmd"; do
		echo "== $c"
		eval "$c" >/dev/null # warm the page cache
		time (for _ in 1 2 3 4 5; do eval "$c" >/dev/null; done)
	done
fi
