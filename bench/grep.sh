#!/usr/bin/env bash
# Times godwit's grep tool against ripgrep on the Go source tree, same
# patterns, same ignore rules: ripgrep is told to search hidden files (as
# godwit does) and to skip vendor/ and node_modules/ (as godwit does);
# GOROOT/src is not a git repository, so neither applies .gitignore files
# outside the skipped folders.
#
# The figure is CPU time (user + system, process start included), the
# median of RUNS runs of each command: on a shared machine it moves less
# than wall time. The default patterns are two sets: "literal" (every
# match holds a literal the search can look for first) and "no-literal"
# (none does: the regexp engine itself is what is timed). Each has fewer
# matches than godwit's cap of 5,000 matching lines, so both tools search
# the whole tree.
#
# Usage: bench/grep.sh [PATTERN...]   (from the repository root)
#   RUNS=5 (runs per command), FSGREP=path (a prebuilt bench/fsgrep, to
#   measure another build; default: build this tree's).
# Needs: ripgrep (apt-get install ripgrep), /usr/bin/time (apt-get install time).
set -euo pipefail
runs=${RUNS:-5}
src=$(go env GOROOT)/src
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${FSGREP:-}
if [ -z "$bin" ]; then
	bin=$tmp/fsgrep
	go build -o "$bin" ./bench/fsgrep
fi

literal=('func \w+Marshal' '(?i)unmarshaltext' '\w+_test\(' '[A-Z][a-z]+Error\b\(' '^\s*func \(\w+ \*Reader\)')
no_literal=('[A-Z]{4}[0-9]{4}' '\s+$' '^[a-z]+\s*$' '\b[a-z]{20,}\b' '[a-z]{3}[0-9]{3}[a-z]{3}' '[\x{4e00}-\x{9fff}]' '(?i)\b[a-z]{3}[0-9]{5}\b')
if [ $# -gt 0 ]; then
	sets=(given)
	given=("$@")
else
	sets=(literal no_literal)
fi

rg_args=(--hidden -g '!vendor/' -g '!node_modules/')

# rgpat PATTERN: the pattern for ripgrep with Go's meaning. Go's \b \B \w
# \s \d are ASCII, ripgrep's Unicode unless (?-u:...) says otherwise
# (Unicode \b also keeps ripgrep off its DFA, which would flatter godwit).
rgpat() { sed -E 's/\\([bBwWsSdD])/(?-u:\\\1)/g' <<<"$1"; }

# cpu CMD...: the median user+system seconds of $runs runs of CMD.
cpu() {
	"$@" >/dev/null 2>&1 || true # warm the page cache
	for _ in $(seq "$runs"); do
		/usr/bin/time -f '%U %S' -o "$tmp/t" "$@" >/dev/null 2>&1 || true
		awk '{printf "%.3f\n", $1 + $2}' "$tmp/t"
	done | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}

echo "cores: $(nproc); load before: $(cut -d' ' -f1-3 /proc/loadavg); $runs runs each, median CPU (user+sys) in seconds"
printf '%-11s %-34s %8s %8s %8s %6s %s\n' set pattern rg_lines rg_cpu gw_cpu ratio gw_lines
for set in "${sets[@]}"; do
	declare -n pats=$set
	for p in "${pats[@]}"; do
		# Same matches first: the comparison is only fair if both find the
		# same. godwit's output is cut at 64 KB, so its count is the lines
		# it printed; "cut" marks a cut output (the search still ran whole).
		rp=$(rgpat "$p")
		rg_n=$(rg "${rg_args[@]}" -c -- "$rp" "$src" | awk -F: '{s += $NF} END {print s + 0}')
		out=$("$bin" -- "$p" "$src" || true)
		fs_n=$(grep -cE '^[0-9]+:' <<<"$out" || true)
		grep -q '^\[output cut' <<<"$out" && fs_n="$fs_n(cut)"
		rg_cpu=$(cpu rg "${rg_args[@]}" -- "$rp" "$src")
		fs_cpu=$(cpu "$bin" -- "$p" "$src")
		ratio=$(awk -v a="$fs_cpu" -v b="$rg_cpu" 'BEGIN {if (b > 0) printf "%.1fx", a / b; else print "-"}')
		printf '%-11s %-34s %8s %8s %8s %6s %s\n' "$set" "$p" "$rg_n" "$rg_cpu" "$fs_cpu" "$ratio" "$fs_n"
	done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
