#!/usr/bin/env bash
# Times a one-shot `godwit run` answered "ok" by a local endpoint
# (bench/okserver), and reports its peak RSS. Targets (issue 2): under
# 30 ms wall and 25 MiB peak RSS. Then the same for bench/floor, the
# least a run must do with godwit's required dependencies linked, so the
# figure can be read against what is possible.
#
#   bash bench/startup.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
tmp=$(mktemp -d)
srv=""
trap '[ -n "$srv" ] && kill "$srv" 2>/dev/null; rm -rf "$tmp"' EXIT

CGO_ENABLED=0 go build -ldflags "-s -w" -o "$tmp/godwit" ./cmd/godwit
CGO_ENABLED=0 go build -ldflags "-s -w" -o "$tmp/floor" ./bench/floor
go build -o "$tmp/okserver" ./bench/okserver
"$tmp/okserver" >"$tmp/addr" &
srv=$!
for _ in $(seq 50); do [ -s "$tmp/addr" ] && break; sleep 0.05; done
addr=$(cat "$tmp/addr")

export GODWIT_HOME="$tmp/home"
mkdir -p "$GODWIT_HOME" "$tmp/ws"
cat >"$GODWIT_HOME/config.yaml" <<YAML
providers:
  local:
    type: openai-chat
    base_url: http://$addr/v1
    no_key: true
YAML
cd "$tmp/ws"
cmd="$tmp/godwit run --model local/bench --prompt hi"
$cmd >/dev/null # creates the database, as any first run does

measure() {
  echo "== $1"
  if command -v hyperfine >/dev/null; then
    hyperfine --warmup 3 --runs "$runs" --shell=none "$2"
  else
    start=$(date +%s%N)
    for _ in $(seq "$runs"); do $2 >/dev/null; done
    echo "mean wall: $(( ($(date +%s%N) - start) / runs / 1000000 )) ms over $runs runs"
  fi
  peak=0
  for _ in $(seq 5); do
    kb=$(/usr/bin/time -f '%M' $2 2>&1 >/dev/null | tail -1)
    [ "$kb" -gt "$peak" ] && peak=$kb
  done
  echo "peak RSS: $((peak / 1024)) MiB ($peak KiB), the largest of 5 runs"
}
measure "godwit run" "$cmd"
cp "$GODWIT_HOME/godwit.db" "$tmp/floor.db"
measure "floor (bench/floor: required dependencies, least work)" "$tmp/floor $tmp/floor.db http://$addr/v1/chat/completions"
