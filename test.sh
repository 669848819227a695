#!/usr/bin/env bash
# Runs every test in every module of the repository with the race detector (the property
# tests at a tenth of their size there or less, as raceEnabled says) and, without it and beside
# it, in the packages marked by a test file built only without it (a *_test.go file with
# "//go:build !race", usually the raceEnabled constant), the tests that read raceEnabled: the
# property tests at full size, and the allocation and memory tests, which skip under the race
# detector as it changes their counts; go vet and staticcheck over every module. Each module's checks run in a lane of
# their own, the lanes side by side; then gofmt and go mod tidy. Prints how long each part
# took.
# This is the README's test command; .ci/run calls it and nothing else.
set -uo pipefail
cd "$(dirname "$0")"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
start=$SECONDS
timings=()
# timed LABEL: records how long the part that ended now took since $part.
part=$SECONDS
timed() {
	timings+=("$(printf '%5d s  %s' $((SECONDS - part)) "$1")")
	part=$SECONDS
}
# -trimpath: compiled packages are cached by content, not by the checkout's directory, so a
# fresh clone (CI's, or a second worktree) reuses the build cache of an earlier run instead
# of compiling every package of the modules again. Exported, it reaches the go commands the
# tests run too (caddymodule builds the caddy-robots binary and, in TestReleaseScript, the
# module in a clone).
GOFLAGS="$(go env GOFLAGS) -trimpath"
# -ldflags=-w: the test binaries are linked without DWARF (no debugger reads them; stack
# traces and the race detector's reports come from the symbol table Go keeps anyway): a
# race-built Caddy test binary links in about 20% less CPU time.
GOFLAGS="$GOFLAGS -ldflags=-w"
export GOFLAGS
mods=$(find . -name go.mod -not -path './bench/out/*' -exec dirname {} \; | sort)
# The packages whose tests run again without -race (full-size property tests, allocation
# tests), marked by a test file with that build constraint.
norace_pkgs() {
	# Packages of the module in . (not of a nested one) with a test file built only without -race.
	grep -rlE --include='*_test.go' '^//go:build !race$' . | while read -r f; do
		d=$(dirname "$f")
		p=$d
		while [ "$p" != "." ]; do
			[ -f "$p/go.mod" ] && continue 2
			p=$(dirname "$p")
		done
		echo "$d"
	done | sort -u
}
# norace_run DIR: the -run pattern of the tests that DIR's run without -race must run: the
# tests of its files built only without -race, if any, and the tests whose code reads
# raceEnabled (to run at full size, or, for allocation counts and memory bounds, to run at
# all: they skip under -race), directly or through helpers (functions
# that are not tests and read it, or call one that does: the tests that call them); every
# other test runs with -race, and running it twice checks nothing more. Empty, meaning every
# test, when such a helper is a method or is called by no function: which tests it sizes is
# then not known here.
norace_run() {
	local dir=$1 names f helpers h callers
	# The functions of DIR's test files built with -race too, as "NAME<TAB>BODY ON ONE LINE".
	local funcs
	funcs=$(for f in "$dir"/*_test.go; do
		case "$(head -1 "$f")" in
		'//go:build !race' | '//go:build race') ;;
		*) awk '/^func /{ if (fn != "") print fn "\t" body; fn=$2; sub(/\(.*/, "", fn); if ($2 ~ /^\(/) fn="(method)"; body="" }
			fn != "" { line = $0; gsub(/\t/, " ", line); body = body " " line }
			/^(const|var|type) / { if (fn != "") print fn "\t" body; fn="" }
			END { if (fn != "") print fn "\t" body }' "$f" ;;
		esac
	done)
	reads() { awk -F'\t' '$2 ~ /[^A-Za-z0-9_][rR]aceEnabled/ && $1 != "init" { print $1 }'; }
	names=$(
		for f in "$dir"/*_test.go; do
			if [ "$(head -1 "$f")" = '//go:build !race' ]; then
				sed -n 's/^func \(\(Test\|Fuzz\)[A-Za-z0-9_]*\)(.*/\1/p' "$f"
			fi
		done
		echo "$funcs" | reads | grep -E '^(Test|Fuzz)'
	)
	# The helpers, and the helpers calling them, until only tests call them.
	helpers=$(echo "$funcs" | reads | grep -vE '^(Test|Fuzz)')
	local seen=" "
	while [ -n "$helpers" ]; do
		# shellcheck disable=SC2086
		set -- $helpers
		[ $# -eq 0 ] && break
		h=$1
		shift
		helpers="$*"
		[ -z "$h" ] && continue
		case "$seen" in *" $h "*) continue ;; esac
		seen="$seen$h "
		[ "$h" = "(method)" ] && return
		callers=$(echo "$funcs" | awk -F'\t' -v h="$h" '$1 != h && index($2, h "(") { print $1 }')
		[ -z "$callers" ] && return
		names=$(printf '%s\n%s' "$names" "$(echo "$callers" | grep -E '^(Test|Fuzz)')")
		# (A benchmark's or an example's call sizes nothing go test runs here.)
		helpers="$helpers $(echo "$callers" | grep -vE '^(Test|Fuzz|Benchmark|Example)' | tr '\n' ' ')"
	done
	names=$(echo "$names" | grep . | sort -u)
	[ -z "$names" ] && return
	echo "^($(echo $names | tr ' ' '|'))\$"
}
# test_gogc DIR: the GOGC the tests of the packages in DIR (and below) run with. The property
# tests allocate much and keep little: with GOGC=400 the garbage collector runs a quarter as
# often (robotsgen's full-size run: 40% less CPU time, TestMergeProperty 51 s, 30 s; under
# -race about 6% less). Allocation counts (testing.AllocsPerRun) do not depend on it; a
# test that measures the heap (runtime.ReadMemStats, webbotauth's memory bounds) could, so
# a package with such a test file keeps the default.
test_gogc() {
	if grep -rqs --include='*_test.go' 'ReadMemStats' "$1"; then
		echo 100
	else
		echo 400
	fi
}
# analysis_flags MOD: the build flags go vet analyses MOD with (staticcheck uses -race
# everywhere: see lane). A module none of whose test files is built only without -race is
# vetted with -race: the packages compiled for it are those go test -race compiles (for the
# Caddy module, Caddy is compiled once instead of three times on an empty build cache). A
# module with such files is vetted without it, so that they are read, and so that its run
# without -race finds its packages compiled.
analysis_flags() {
	if [ -z "$(cd "$1" && norace_pkgs)" ]; then
		echo "-race"
	fi
}
# lane MOD: everything a module's tests need. First go vet, which compiles what the tests
# compile (with -race where analysis_flags says so); then, for a module with tests built only
# without -race, those packages without it (their compiled packages are vet's); then go test
# -race ./... side by side with staticcheck, whose analysis fills the time the tests spend
# waiting on servers and processes. The modules' lanes run side by side too: the root
# module's property tests fill the gaps of the Caddy module's. Each lane writes its output
# to its own file (printed when the lanes are done), its timings to another, and its status.
lane() {
	local mod=$1 out=$2 times=$3 t rc=0
	# On an empty build cache the lane that compiles Caddy is the long one; the others yield
	# the CPU to it and fill the time its tests spend waiting.
	if ! grep -q '^[[:space:]]*github.com/caddyserver/caddy/v2 ' "$mod/go.mod"; then
		renice -n 10 -p "$BASHPID" >/dev/null
	fi
	# A nested module the Caddy module requires (metrics/prom, redisstore) compiles, with the
	# same flags, a part of what the Caddy module's go vet compiles: started together, both
	# would compile the same packages side by side (the build cache is shared, the work is
	# not; on an empty cache that doubled the CPU time of those lanes), so it starts when that
	# go vet is done.
	if [ -n "$caddymod" ] && [ "$mod" != "$caddymod" ] && [ "$mod" != . ] &&
		grep -q "^[[:space:]]*$(sed -n 's/^module //p' "$mod/go.mod") " "$caddymod/go.mod"; then
		while [ ! -f "$lanes/caddy.vetted" ]; do sleep 1; done
	fi
	local flags
	flags=$(analysis_flags "$mod")
	t=$SECONDS
	echo "== go vet $flags in $mod" >"$out"
	# go vet compiles every package the tests import (on an empty cache, most of the lane's
	# CPU time): with GOGC=400 the compiler collects garbage less often, about 7% less CPU
	# time for the Caddy module. The tests themselves run with the default.
	# shellcheck disable=SC2086
	(cd "$mod" && GOGC=400 go vet $flags ./...) >>"$out" 2>&1 || rc=1
	[ "$mod" = "$caddymod" ] && touch "$lanes/caddy.vetted"
	[ "$mod" = . ] && touch "$lanes/root.vetted"
	printf '%5d s  go vet %s in %s\n' $((SECONDS - t)) "$flags" "$mod" >>"$times"
	local pkgs
	pkgs=$(cd "$mod" && norace_pkgs)
	# The tests without -race and the tests with it run side by side, each in its own
	# process (their compiled packages differ): the race detector's tests wait on servers and
	# timers more than they compute, and the full-size property tests fill that time.
	local norace=""
	if [ -n "$pkgs" ]; then
		(
			t=$SECONDS
			echo "== go test without -race in $mod (full-size property tests, allocation tests): $(echo $pkgs)"
			# One go test per package, each with its own -run (norace_run), in two streams side
			# by side: robotsgen's full-size property tests (the longest run of all) in one,
			# the other packages one after another in the other.
			norace_stream() {
				local r=0 p gogc run
				for p in "$@"; do
					# Read from here, before the cd: the paths are relative to the repository.
					gogc=$(test_gogc "$mod/$p")
					run=$(norace_run "$mod/$p")
					(cd "$mod" && GOGC=$gogc go test -vet=off -count=1 -timeout 30m -run "$run" "$p") 2>&1 || r=1
				done
				return $r
			}
			r=0
			# shellcheck disable=SC2046
			norace_stream $(echo $pkgs | tr ' ' '\n' | grep -x './robotsgen') >"$out.norace1" &
			first=$!
			# shellcheck disable=SC2046
			norace_stream $(echo $pkgs | tr ' ' '\n' | grep -vx './robotsgen') || r=1
			wait "$first" || r=1
			cat "$out.norace1"
			printf '%5d s  go test without -race in %s (full-size property tests, allocation tests; beside go test -race)\n' $((SECONDS - t)) "$mod" >>"$times"
			exit $r
		) >"$out.norace" &
		norace=$!
	fi
	t=$SECONDS
	# GOGC=400 (see test_gogc): the tests that measure the heap skip under -race, which
	# changes allocations.
	# -vet=off: go vet has just checked these packages, their test files included, with all of
	# its analyzers, of which go test's are a subset. go test's own vet would run again, on
	# every package the tests import too (its analyzers differ, so its results are cached
	# apart): about 1,500 more vet processes and 70 CPU seconds on an empty build cache. (The
	# race_test.go files, built only with -race, are the raceEnabled constant: staticcheck,
	# run with -race, reads them.)
	(cd "$mod" && GOGC=400 go test -race -vet=off -count=1 -timeout 30m ./...) >"$out.race" 2>&1 &
	local race=$!
	# Wait for the staticcheck binary, built at the start.
	while [ ! -f "$lanes/staticcheck.rc" ]; do sleep 1; done
	if [ "$(cat "$lanes/staticcheck.rc")" = 0 ]; then
		# One staticcheck at a time: each analyses every package its module
		# imports, the standard library included, and keeps the facts in its cache (the user
		# cache directory's staticcheck/), keyed by the packages' builds. The modules analysed
		# with -race import much the same packages; run side by side on an empty cache, each
		# analysed them all again (the standard library alone is about 60 CPU seconds), while
		# one after another, the later ones find them in the cache.
		# Every module is analysed with -race, the root module too although its go vet runs
		# without it: the facts of the standard library and of the root module's packages,
		# analysed once for the modules that import them, serve all four (analysed without
		# -race, the root module's run cost about 100 CPU seconds more on an empty cache).
		# No file is left out: the test files that measure allocations or the heap skip
		# under -race rather than being built only without it.
		# With GOGC=400 its garbage collector runs a quarter as often: about 15% less CPU time
		# on an empty cache, for some hundreds of megabytes more.
		until mkdir "$lanes/staticcheck.lock" 2>/dev/null; do sleep 1; done
		(cd "$mod" && GOGC=400 GOFLAGS="$GOFLAGS -race" "$lanes/staticcheck" ./...) >"$out.sc" 2>&1 || { echo "staticcheck found problems in $mod" >>"$out.sc"; rc=1; }
		rmdir "$lanes/staticcheck.lock"
	fi
	printf '%5d s  staticcheck in %s (beside go test -race)\n' $((SECONDS - t)) "$mod" >>"$times"
	wait "$race" || rc=1
	printf '%5d s  go test -race in %s\n' $((SECONDS - t)) "$mod" >>"$times"
	if [ -n "$norace" ]; then
		wait "$norace" || rc=1
		cat "$out.norace" >>"$out"
	fi
	echo "== go test -race ./... in $mod" >>"$out"
	cat "$out.race" >>"$out"
	[ -s "$out.sc" ] && { echo "== staticcheck in $mod"; cat "$out.sc"; } >>"$out"
	return $rc
}
lanes=$(mktemp -d)
# The module that requires Caddy, whose lane compiles the most.
caddymod=$(for m in $mods; do grep -q '^[[:space:]]*github.com/caddyserver/caddy/v2 ' "$m/go.mod" && echo "$m"; done | head -1)
trap 'rm -rf "$log" "$lanes"' EXIT
# Redis (docs/fleet.md): the tests of the shared store run against a real redis-server. One is
# started here on a free loopback port, when installed, for the tests that only need a server
# (ROBOTS_REDIS_ADDR; tests that kill and restart one start their own), and stopped when this
# script ends, however it ends (a watcher stops it when this shell is gone). Without it those
# tests skip, and the run says which at the end; ROBOTS_REQUIRE_REDIS=1 (.ci/run) makes them
# fail instead.
redis_note=""
redis_tests() {
	# The tests that need redis-server: those of the test files using redistest.
	grep -rl --include='*_test.go' 'redistest\.' . | sort | while read -r f; do
		sed -n "s|^func \(Test[A-Za-z0-9_]*\)(.*|$(dirname "$f") \1|p" "$f"
	done | awk '$1 != d { if (d != "") print ""; d = $1; printf "  %s:", d } { printf " %s", $2 } END { print "" }'
}
if command -v redis-server >/dev/null; then
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		redis_port=$((20000 + RANDOM % 40000))
		redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no --logfile '' >"$lanes/redis.log" 2>&1 &
		redis_pid=$!
		until grep -q 'Ready to accept connections' "$lanes/redis.log" || ! kill -0 "$redis_pid" 2>/dev/null; do sleep 0.1; done
		kill -0 "$redis_pid" 2>/dev/null && break # else the port was taken: another
		redis_pid=""
	done
	if [ -n "$redis_pid" ]; then
		export ROBOTS_REDIS_ADDR=127.0.0.1:$redis_port
		echo "== redis-server on $ROBOTS_REDIS_ADDR for the shared-store tests"
		(while kill -0 $$ 2>/dev/null; do sleep 1; done; kill "$redis_pid") >/dev/null 2>&1 &
	else
		cat "$lanes/redis.log"
		redis_note="redis-server did not start (above): the shared-store tests that need it did not run"
	fi
else
	redis_note="redis-server is not installed: these tests of the shared store did not run (they skip; install redis-server to run them):
$(redis_tests)"
fi
if [ -n "$redis_note" ]; then
	echo "== $redis_note"
	[ "${ROBOTS_REQUIRE_REDIS:-}" = 1 ] && { echo "ROBOTS_REQUIRE_REDIS=1: that is a failure"; status=1; }
fi
# Static checks: staticcheck (pinned, fetched by the go command), built once the root
# module's go vet is done, at nice 10 like the lanes other than the Caddy module's: it is
# needed only once a lane's tests have started, and it is built without -race, as that go vet
# compiles the standard library and the root module: started together, both compiled the
# standard library side by side on an empty build cache (the build cache is shared, the work
# is not), about 60 CPU seconds more.
staticcheck=honnef.co/go/tools/cmd/staticcheck@v0.7.0
(
	while [ ! -f "$lanes/root.vetted" ]; do sleep 1; done
	GOGC=400 GOBIN="$lanes" nice -n 10 go install "$staticcheck" >"$lanes/staticcheck.out" 2>&1
	echo $? >"$lanes/staticcheck.rc"
) &
n=0
pids=()
for mod in $mods; do
	n=$((n + 1))
	echo "== lane $n: $mod (started)"
	lane "$mod" "$lanes/$n.out" "$lanes/$n.times" &
	pids+=($!)
done
n=0
for pid in "${pids[@]}"; do
	n=$((n + 1))
	wait "$pid" || status=1
	cat "$lanes/$n.out"
	cat "$lanes/$n.out" >>"$log"
	while IFS= read -r line; do timings+=("$line"); done <"$lanes/$n.times"
done
part=$SECONDS
timings+=("$(printf '%5d s  the lanes above, side by side' $((SECONDS - start)))")
if [ "$(cat "$lanes/staticcheck.rc")" != 0 ]; then
	cat "$lanes/staticcheck.out"
	echo "could not build $staticcheck"
	status=1
fi
# Formatting and tidy modules.
for mod in $mods; do
	echo "== gofmt and go mod tidy -diff in $mod"
	unformatted=$(cd "$mod" && gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
	if [ -n "$unformatted" ]; then
		echo "gofmt would change: $unformatted"
		status=1
	fi
	(cd "$mod" && go mod tidy -diff) || { echo "go.mod/go.sum in $mod are not tidy"; status=1; }
done
timed "gofmt and go mod tidy -diff"
echo "== time per part"
printf '%s\n' "${timings[@]}"
printf '%5d s  in all\n' $((SECONDS - start))
passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^FAIL	' "$log")
echo "packages: $passed passed, $failed failed (with -race, and again without it where tests are built only without it)"
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
	echo "go vet, the build or a static check failed: see above"
fi
[ -n "$redis_note" ] && echo "$redis_note"
exit "$status"
