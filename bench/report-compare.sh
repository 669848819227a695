#!/usr/bin/env bash
# Compares "robots report" (cmd/robots) built from another commit (BASE, default the merge
# base with main) with the working tree's, on the same Combined Log Format file written by
# bench/reportlog, both pinned to core 0, alternating for ROUNDS rounds (default 5); prints
# per round the CPU time (user + system: what other load on a shared machine hardly moves)
# and the wall time of each, then the best of each and their ratio.
#
#   bench/report-compare.sh                    # BASE=$(git merge-base HEAD main), 2,000,000 lines
#   BASE=5c43dd5 LINES=500000 ROUNDS=9 bench/report-compare.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${BASE:-$(git merge-base HEAD main)}
LINES=${LINES:-2000000}
ROUNDS=${ROUNDS:-5}
OUT=bench/out/report-compare
mkdir -p "$OUT"
# The base's tree goes outside the repository, where no go command or test of this tree sees it.
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
git archive "$BASE" | tar -x -C "$src"
(cd "$src" && go build -o "$OLDPWD/$OUT/robots-base" ./cmd/robots)
go build -o "$OUT/robots-new" ./cmd/robots
go run ./bench/reportlog -n "$LINES" >"$OUT/access.log"
lines=$(wc -l <"$OUT/access.log")
echo "log: $lines lines, $(du -h "$OUT/access.log" | cut -f1); base $(git rev-parse --short "$BASE"), new $(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes')"
# cpu CMD...: "wall user+sys" seconds of the command, on core 0.
cpu() {
	local TIMEFORMAT='%R %U %S' t
	# report exits 1 when it finds violations.
	t=$({ time taskset -c 0 "$@" >/dev/null 2>&1 || true; } 2>&1)
	echo "$t" | awk '{printf "%s %.3f", $1, $2 + $3}'
}
best_b=0 best_n=0
for round in $(seq "$ROUNDS"); do
	read -r bw bc_ <<<"$(cpu "$OUT/robots-base" report --config logreport/testdata/site.json --format json -o "$OUT/base.json" "$OUT/access.log")"
	read -r nw nc <<<"$(cpu "$OUT/robots-new" report --config logreport/testdata/site.json --format json -o "$OUT/new.json" "$OUT/access.log")"
	printf 'round %d: base %.2f s CPU (%.2f s wall), new %.2f s CPU (%.2f s wall)\n' "$round" "$bc_" "$bw" "$nc" "$nw"
	if [ "$(echo "$best_b == 0 || $bc_ < $best_b" | bc -l)" = 1 ]; then best_b=$bc_; fi
	if [ "$(echo "$best_n == 0 || $nc < $best_n" | bc -l)" = 1 ]; then best_n=$nc; fi
done
printf 'best: base %.0f lines per CPU second, new %.0f; new/base CPU time %.3f\n' "$(echo "$lines / $best_b" | bc -l)" "$(echo "$lines / $best_n" | bc -l)" "$(echo "$best_n / $best_b" | bc -l)"
