#!/usr/bin/env bash
# CPU time per operation of Go benchmarks, from perf's task-clock (the time the process ran on
# a CPU, not wall time), so a pair can be compared on a loaded machine where ns/op from
# `go test -bench` moves by 2-5x with other processes' load.
#
#   bench/cputime.sh ./nethttp EnforceBrowserRequest NoEnforceBrowserRequest
#   N=3000000 ROUNDS=7 bench/cputime.sh ./crawlers MatchBrowser
#
# For each round and benchmark (alternating), runs the test binary once with -benchtime=1x and
# once with N iterations on one CPU, and prints (task-clock(N) - task-clock(1)) / N in ns, then
# the median of the rounds. Needs perf (linux-tools); the benchmark must do the same work per
# iteration (b.Loop).
set -euo pipefail
cd "$(dirname "$0")/.."
pkg=$1
shift
N=${N:-3000000}
ROUNDS=${ROUNDS:-5}
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
go test -c -o "$bin" "$pkg"
cd "$pkg"
tc() { perf stat -x, -e task-clock "$bin" -test.run '^$' -test.bench "^Benchmark$1\$" -test.benchtime "$2x" -test.cpu 1 2>&1 >/dev/null | awk -F, '/task-clock/ {print $1}'; }
declare -A runs
for ((r = 1; r <= ROUNDS; r++)); do
	for b in "$@"; do
		base=$(tc "$b" 1)
		full=$(tc "$b" "$N")
		runs[$b]+="$(echo "$full $base $N" | awk '{printf "%.1f", ($1 - $2) * 1e6 / $3}') "
	done
done
for b in "$@"; do
	printf '%-32s median %7s ns/op CPU   rounds: %s\n' "$b" \
		"$(echo "${runs[$b]}" | tr ' ' '\n' | grep . | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}')" "${runs[$b]}"
done
