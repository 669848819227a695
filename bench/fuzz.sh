#!/usr/bin/env bash
# Runs every fuzz target of the repository for FUZZTIME each (default 10m), JOBS at a time
# (default 2, one per core), and prints a line per target: execs, new corpus entries, result.
# A crash leaves its input under the package's testdata/fuzz/<Target>/, which the normal test
# run then replays: commit it with the fix.
#
#   bench/fuzz.sh                       # all targets, 10 minutes each
#   FUZZTIME=60s bench/fuzz.sh FuzzInjector FuzzParse
set -uo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-10m}
JOBS=${JOBS:-2}
OUT=bench/out/fuzz
mkdir -p "$OUT"
targets=()
for pkg in robotsgen tagemit usage crawlers mimetype logreport; do
	for t in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' $pkg/*_test.go | sed 's/^func //'); do
		if [ $# -eq 0 ] || [[ " $* " == *" $t "* ]]; then targets+=("$pkg:$t"); fi
	done
done
run() {
	local pkg=${1%%:*} t=${1##*:}
	go test -run='^$' -fuzz="^$t\$" -fuzztime="$FUZZTIME" -parallel=1 "./$pkg/" >"$OUT/$t.log" 2>&1
	local rc=$? last
	last=$(grep '^fuzz: elapsed' "$OUT/$t.log" | tail -n 1)
	printf '%-22s %-10s %s %s\n' "$t" "$pkg" "$([ $rc = 0 ] && echo PASS || echo "FAIL(see $OUT/$t.log)")" "$last"
}
for target in "${targets[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 1; done
	run "$target" &
done
wait
