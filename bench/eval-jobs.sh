#!/usr/bin/env bash
# Times the ten tasks of evals/ (basic and long-session, scripted models)
# with --jobs 1 and --jobs 2, and prints the speed-up. Target (issue 9):
# --jobs 2 takes about half the wall time of --jobs 1 on an idle machine
# with two cores or more. On a busy machine the ratio shows how much CPU
# was to be had; go test's BenchmarkJobsWaiting (tasks that sleep) shows
# how far the runner overlaps runs regardless.
#
#   bash bench/eval-jobs.sh [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

CGO_ENABLED=0 go build -o "$tmp/godwit" ./cmd/godwit
if ! "$tmp/godwit" eval --help >/dev/null 2>&1; then
  echo "this godwit has no eval command yet; timing through go test instead" >&2
  exec go test ./internal/eval -run '^$' -bench BenchmarkJobs -benchtime "${rounds}x"
fi
export GODWIT_HOME="$tmp/home"
# One untimed run warms the Go build cache the go tasks compile with.
"$tmp/godwit" eval run evals --jobs 2 --out "$tmp/warm.json" >/dev/null 2>&1

ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
declare -A total=([1]=0 [2]=0)
for r in $(seq "$rounds"); do
  for j in 1 2; do
    start=$(date +%s%N)
    "$tmp/godwit" eval run evals --jobs "$j" --out "$tmp/r$j.json" >/dev/null 2>&1
    t=$(ms "$start")
    total[$j]=$(( total[$j] + t ))
    echo "round $r --jobs $j: ${t} ms"
  done
done
one=$(( total[1] / rounds )) two=$(( total[2] / rounds ))
echo "mean over $rounds rounds: --jobs 1 ${one} ms, --jobs 2 ${two} ms; jobs 2 / jobs 1 = $(awk -v a="$two" -v b="$one" 'BEGIN { printf "%.2f", a / b }')"
