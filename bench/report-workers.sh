#!/usr/bin/env bash
# What "robots report" gains from its workers (docs/report.md): the same log read with one
# worker on one core (taskset -c 0: the garbage collector has no other core either) and with
# the default workers on every core, alternating for ROUNDS rounds (default 9). Prints each
# round's wall and CPU times and the ratio of lines per second (2 cores over 1), then the
# median ratio; checks that both reports are identical. The goal on 2 idle cores: 1.8 or more.
#
#   bench/report-workers.sh                  # 1,000,000 lines in one file
#   FILES=4 LINES=2000000 bench/report-workers.sh   # the same lines cut into 4 files, one gzipped
set -euo pipefail
cd "$(dirname "$0")/.."
LINES=${LINES:-1000000}
ROUNDS=${ROUNDS:-9}
FILES=${FILES:-1}
OUT=bench/out/report-workers
mkdir -p "$OUT"
rm -f "$OUT"/access*.log*
go build -o "$OUT/robots" ./cmd/robots
go run ./bench/reportlog -n "$LINES" >"$OUT/access.log"
lines=$(wc -l <"$OUT/access.log")
logs=("$OUT/access.log")
if [ "$FILES" -gt 1 ]; then
	split -n "l/$FILES" -d "$OUT/access.log" "$OUT/access-part" && rm "$OUT/access.log"
	gzip "$OUT/access-part00"
	logs=("$OUT"/access-part*)
fi
echo "log: $lines lines in ${#logs[@]} file(s); $(nproc) cores"
# run OUT-FILE [taskset -c 0] -- ARGS: "wall cpu" seconds.
run() {
	local TIMEFORMAT='%R %U %S' t
	# report exits 1 when it finds violations.
	t=$({ time "$@" >/dev/null 2>&1 || true; } 2>&1)
	echo "$t" | awk '{printf "%s %.3f", $1, $2 + $3}'
}
ratios=()
for round in $(seq "$ROUNDS"); do
	read -r w1 c1 <<<"$(run taskset -c 0 "$OUT/robots" report --workers 1 --config logreport/testdata/site.json --format json -o "$OUT/one.json" "${logs[@]}")"
	read -r w2 c2 <<<"$(run "$OUT/robots" report --config logreport/testdata/site.json --format json -o "$OUT/all.json" "${logs[@]}")"
	cmp -s "$OUT/one.json" "$OUT/all.json" || { echo "round $round: the reports differ" >&2; exit 1; }
	r=$(echo "$w1 / $w2" | bc -l)
	ratios+=("$r")
	printf 'round %d: 1 core %.2f s wall (%.2f s CPU), every core %.2f s wall (%.2f s CPU): %.2fx the lines per second\n' "$round" "$w1" "$c1" "$w2" "$c2" "$r"
done
printf 'median: %.2fx the lines per second on %s cores of one worker on one core\n' "$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}')" "$(nproc)"
