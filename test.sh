#!/usr/bin/env bash
# Runs every test in every module of the repository with the race detector (the property
# tests at a tenth of their size there, as raceEnabled says), the root module's tests again
# without it (the property tests at full size), then the allocation tests without it, and the
# static checks. Prints how long each part took.
# This is the README's test command; .ci/run calls it and nothing else.
#
# Allocation tests: a test whose name contains "Alloc" (e.g. TestAllocationBudget) checks
# allocation counts, which the race detector changes, so it skips itself under -race. The
# second pass runs exactly those tests, without -race, in the packages that have them, and
# fails if one of them skips.
set -uo pipefail
cd "$(dirname "$0")"
log=$(mktemp)
alog=$(mktemp)
trap 'rm -f "$log" "$alog"' EXIT
status=0
start=$SECONDS
timings=()
# timed LABEL: records how long the part that ended now took since $part.
part=$SECONDS
timed() {
	timings+=("$(printf '%5d s  %s' $((SECONDS - part)) "$1")")
	part=$SECONDS
}
mods=$(find . -name go.mod -not -path './bench/out/*' -exec dirname {} \; | sort)
for mod in $mods; do
	echo "== go vet and go test -race ./... in $mod"
	(cd "$mod" && go vet ./... && go test -race -count=1 -timeout 30m ./...) 2>&1 | tee -a "$log" || status=1
	timed "go vet and go test -race in $mod"
done
# The property tests at full size, once, where they are: the root module.
echo "== go test ./... without -race in . (property tests at full size)"
go test -count=1 -timeout 30m ./... 2>&1 | tee -a "$log" || status=1
timed "go test without -race in . (full-size property tests)"
for mod in $mods; do
	# Packages of this module (not of a nested one) with an allocation test.
	pkgs=$(cd "$mod" && grep -rlE --include='*_test.go' '^func Test[A-Za-z0-9_]*Alloc' . |
		while read -r f; do
			d=$(dirname "$f")
			nested=0
			p=$d
			while [ "$p" != "." ]; do
				[ -f "$p/go.mod" ] && nested=1
				p=$(dirname "$p")
			done
			[ "$nested" -eq 0 ] && echo "$d"
		done | sort -u)
	[ -z "$pkgs" ] && continue
	echo "== allocation tests without -race in $mod: $(echo $pkgs)"
	# shellcheck disable=SC2086
	(cd "$mod" && go test -count=1 -v -run 'Alloc' $pkgs) >"$alog.out" 2>&1
	rc=$?
	grep -E '^(--- |ok |FAIL|panic)' "$alog.out"
	cat "$alog.out" >>"$alog"
	if [ "$rc" -ne 0 ]; then
		status=1
	fi
	if grep -q -- '--- SKIP' "$alog.out"; then
		echo "an allocation test skipped outside -race: see above"
		status=1
	fi
	rm -f "$alog.out"
done
timed "allocation tests without -race"
# Static checks: formatting, tidy modules, staticcheck (pinned, fetched by the go command).
staticcheck=honnef.co/go/tools/cmd/staticcheck@v0.7.0
for mod in $mods; do
	echo "== gofmt, go mod tidy -diff and staticcheck in $mod"
	unformatted=$(cd "$mod" && gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
	if [ -n "$unformatted" ]; then
		echo "gofmt would change: $unformatted"
		status=1
	fi
	(cd "$mod" && go mod tidy -diff) || { echo "go.mod/go.sum in $mod are not tidy"; status=1; }
	(cd "$mod" && go run "$staticcheck" ./...) || { echo "staticcheck found problems in $mod"; status=1; }
done
timed "gofmt, go mod tidy -diff and staticcheck"
echo "== time per part"
printf '%s\n' "${timings[@]}"
printf '%5d s  in all\n' $((SECONDS - start))
passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^FAIL	' "$log")
apassed=$(grep -c '^ok ' "$alog")
afailed=$(grep -c '^FAIL	' "$alog")
echo "packages: $passed passed, $failed failed (race, and the root module without it); allocation tests: $apassed packages passed, $afailed failed"
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ] && [ "$afailed" -eq 0 ]; then
	echo "go vet, the build or a skipped allocation test failed: see above"
fi
exit "$status"
