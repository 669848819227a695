#!/usr/bin/env bash
# Runs every test in every module of the repository, with the race detector.
# This is the README's test command; .ci/run calls it and nothing else.
set -uo pipefail
cd "$(dirname "$0")"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
for mod in $(find . -name go.mod -not -path './bench/out/*' -exec dirname {} \; | sort); do
	echo "== go vet and go test -race ./... in $mod"
	(cd "$mod" && go vet ./... && go test -race -count=1 -timeout 30m ./...) 2>&1 | tee -a "$log" || status=1
done
passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^FAIL	' "$log")
echo "packages: $passed passed, $failed failed"
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
	echo "go vet or the build failed: see above"
fi
exit "$status"
