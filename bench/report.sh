#!/usr/bin/env bash
# Compares the speed of "robots report" (cmd/robots) with GoAccess's on the same Combined Log
# Format file, both pinned to one core (taskset -c 0), in ROUNDS alternations (default 3),
# and prints lines per second of each and the ratio. GoAccess is Debian's package goaccess.
#
#   bench/report.sh              # 2,000,000 lines
#   LINES=500000 ROUNDS=5 bench/report.sh
set -euo pipefail
cd "$(dirname "$0")/.."
LINES=${LINES:-2000000}
ROUNDS=${ROUNDS:-3}
OUT=bench/out/report
mkdir -p "$OUT"
command -v goaccess >/dev/null || { echo "goaccess is not installed (apt-get install goaccess)" >&2; exit 1; }
go build -o "$OUT/robots" ./cmd/robots
go run ./bench/reportlog -n "$LINES" >"$OUT/access.log"
lines=$(wc -l <"$OUT/access.log")
echo "log: $lines lines, $(du -h "$OUT/access.log" | cut -f1); goaccess $(goaccess --version | head -n 1)"
# secs CMD...: the wall-clock seconds the command takes, on core 0.
secs() {
	local s e
	s=$(date +%s.%N)
	taskset -c 0 "$@" >/dev/null 2>&1 || true # report exits 1 when it finds violations
	e=$(date +%s.%N)
	echo "$e - $s" | bc -l
}
best_r=0 best_g=0
for round in $(seq "$ROUNDS"); do
	r=$(secs "$OUT/robots" report --config logreport/testdata/site.json --format json -o "$OUT/report.json" "$OUT/access.log")
	g=$(secs goaccess --log-format=COMBINED --no-global-config -o "$OUT/goaccess.json" "$OUT/access.log")
	printf 'round %d: robots report %.2f s (%.0f lines/s), goaccess %.2f s (%.0f lines/s)\n' "$round" "$r" "$(echo "$lines / $r" | bc -l)" "$g" "$(echo "$lines / $g" | bc -l)"
	if [ "$(echo "$best_r == 0 || $r < $best_r" | bc -l)" = 1 ]; then best_r=$r; fi
	if [ "$(echo "$best_g == 0 || $g < $best_g" | bc -l)" = 1 ]; then best_g=$g; fi
done
printf 'best: robots report %.0f lines/s, goaccess %.0f lines/s, ratio %.2f\n' "$(echo "$lines / $best_r" | bc -l)" "$(echo "$lines / $best_g" | bc -l)" "$(echo "$best_g / $best_r" | bc -l)"
