#!/usr/bin/env bash
# Compares the speed of "robots report" (cmd/robots) with GoAccess's on the same Combined Log
# Format file, both pinned to one core (taskset -c 0), in ROUNDS alternations (default 3),
# and prints lines per second of each and the ratio: per CPU second (user + system time of the
# process, which other load on the machine hardly changes) and per wall-clock second. GoAccess
# is Debian's package goaccess.
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
# cpu CMD...: "wall user+sys" seconds of the command, on core 0.
cpu() {
	local TIMEFORMAT='%R %U %S' t
	# report exits 1 when it finds violations.
	t=$({ time taskset -c 0 "$@" >/dev/null 2>&1 || true; } 2>&1)
	echo "$t" | awk '{printf "%s %.3f", $1, $2 + $3}'
}
best_r=0 best_g=0
for round in $(seq "$ROUNDS"); do
	read -r rw rc <<<"$(cpu "$OUT/robots" report --config logreport/testdata/site.json --format json -o "$OUT/report.json" "$OUT/access.log")"
	read -r gw gc <<<"$(cpu goaccess --log-format=COMBINED --no-global-config -o "$OUT/goaccess.json" "$OUT/access.log")"
	printf 'round %d: robots report %.0f lines/CPU-s (%.2f s CPU, %.2f s wall), goaccess %.0f lines/CPU-s (%.2f s CPU, %.2f s wall)\n' \
		"$round" "$(echo "$lines / $rc" | bc -l)" "$rc" "$rw" "$(echo "$lines / $gc" | bc -l)" "$gc" "$gw"
	if [ "$(echo "$best_r == 0 || $rc < $best_r" | bc -l)" = 1 ]; then best_r=$rc; fi
	if [ "$(echo "$best_g == 0 || $gc < $best_g" | bc -l)" = 1 ]; then best_g=$gc; fi
done
printf 'best: robots report %.0f lines per CPU second, goaccess %.0f, ratio %.1f\n' "$(echo "$lines / $best_r" | bc -l)" "$(echo "$lines / $best_g" | bc -l)" "$(echo "$best_g / $best_r" | bc -l)"
