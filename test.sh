#!/usr/bin/env bash
# Runs every test in every module of the repository, with the race detector.
# This is the README's test command; .ci/run calls it and nothing else.
set -euo pipefail
cd "$(dirname "$0")"
for mod in $(find . -name go.mod -not -path './bench/out/*' -exec dirname {} \; | sort); do
	echo "== go test -race ./... in $mod"
	(cd "$mod" && go vet ./... && go test -race -count=1 -timeout 30m ./...)
done
