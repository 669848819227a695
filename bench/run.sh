#!/usr/bin/env bash
# Side-by-side load benchmark of caddy-robots against Caddy's built-ins doing the same job.
#
#   bench/run.sh            # 3 interleaved rounds of 5 s per side and pair
#   ROUNDS=5 DURATION=10s CONNS=64 bench/run.sh
#   PAIRS="robots.txt header-route" ROUNDS=9 bench/run.sh   # only some pairs
#
# Builds Caddy with the module once (bench/out/caddy), starts it on loopback with
# bench/Caddyfile.bench, and drives every pair with wrk, alternating ours and the built-in in
# the same run so the ratio survives a noisy machine. Prints, per pair: req/s of both sides
# (median of the rounds), the ratio, p50/p99 latency, and Caddy's RSS.
# One pair is not against a built-in: robots.txt-merged is merge_upstream (its merge cached)
# against our declared-only robots_txt, the "builtin" column.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/bench/out
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5s}
CONNS=${CONNS:-32}
THREADS=${THREADS:-2}
mkdir -p "$OUT/www"

if ! command -v wrk >/dev/null 2>&1; then
	echo "installing wrk (Debian package)" >&2
	if [ "$(id -u)" = 0 ]; then
		apt-get update -qq >/dev/null && apt-get install -y -qq wrk >/dev/null
	else
		sudo apt-get update -qq >/dev/null && sudo apt-get install -y -qq wrk >/dev/null
	fi
fi

echo "building Caddy with the module (cached after the first time)" >&2
(cd caddymodule && go build -o "$OUT/caddy" ./cmd/caddy-robots)

# Pages: a realistic head, then paragraphs up to the size.
make_page() { # size-in-bytes file
	{
		printf '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Bench page</title>\n'
		printf '<link rel="stylesheet" href="/style.css">\n</head>\n<body>\n'
		local line='<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p>'
		local n=$(( ($1 - 200) / (${#line} + 1) ))
		for ((i = 0; i < n; i++)); do echo "$line"; done
		printf '</body>\n</html>\n'
	} >"$2"
}
[ -s "$OUT/www/100k.html" ] || make_page 102400 "$OUT/www/100k.html"
[ -s "$OUT/www/1m.html" ] || make_page 1048576 "$OUT/www/1m.html"

BENCH_WWW="$OUT/www" "$OUT/caddy" run --config bench/Caddyfile.bench --adapter caddyfile >"$OUT/caddy.log" 2>&1 &
CADDY=$!
trap 'kill $CADDY 2>/dev/null; wait $CADDY 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
	curl -fsS -o /dev/null http://127.0.0.1:9108/ 2>/dev/null && break
	sleep 0.1
done

# The two sides of a pair must do the same job: same bodies (modulo injected meta).
ours=$(curl -fsS http://127.0.0.1:9101/robots.txt)
builtin=$(curl -fsS http://127.0.0.1:9102/robots.txt)
if [ "$ours" != "$builtin" ]; then
	echo "robots.txt pair serves different bytes:" >&2
	diff <(echo "$ours") <(echo "$builtin") >&2 || true
	exit 1
fi
# The merged pair's baseline is our declared-only robots.txt (:9101), the same config without
# merge_upstream: the merged side must serve a merge (its first request fills the cache). The
# declared "Allow: /" lifts the backend's Disallow lines (rule 2 of the merge), so the merge
# adds the backend's comment and sitemap.
merged=$(curl -fsS http://127.0.0.1:9109/robots.txt)
[[ "$merged" == *'Sitemap: https://example.com/wp-sitemap.xml'* && "$merged" == *'Disallow: /drafts/'* ]] || {
	echo "robots.txt-merged pair: not a merge of the backend's file:" >&2
	echo "$merged" >&2
	exit 1
}
page=$(curl -fsS http://127.0.0.1:9105/100k.html)
[[ "$page" == *'<meta name="robots" content="noindex, nosnippet">'* ]] || {
	echo "meta pair: no meta element injected" >&2
	exit 1
}

# The enforcement pair: the same robots.txt on both sides; only the enforcing side answers a
# crawler the file disallows with 403; a browser gets the page on both.
BROWSER_UA='Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
[ "$(curl -fsS http://127.0.0.1:9121/robots.txt)" = "$(curl -fsS http://127.0.0.1:9122/robots.txt)" ] || {
	echo "enforce pair serves different robots.txt" >&2
	exit 1
}
for check in "9121 GPTBot/1.2 403" "9122 GPTBot/1.2 200" "9121 $BROWSER_UA 200" "9122 $BROWSER_UA 200"; do
	port=${check%% *} want=${check##* } ua=${check#* }
	ua=${ua% *}
	got=$(curl -sS -o /dev/null -w '%{http_code}' -A "$ua" "http://127.0.0.1:$port/articles/x")
	[ "$got" = "$want" ] || {
		echo "enforce pair: $ua on $port got $got, want $want" >&2
		exit 1
	}
done

rss_kib() { awk '/^VmRSS/ {print $2}' /proc/$CADDY/status; }
hwm_kib() { awk '/^VmHWM/ {print $2}' /proc/$CADDY/status; }

# run_wrk URL -> "reqs p50 p99" (latencies in ms); $WRK_UA, if set, is sent as User-Agent
run_wrk() {
	local hdr=()
	[ -z "${WRK_UA:-}" ] || hdr=(-H "User-Agent: $WRK_UA")
	wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency "${hdr[@]}" "$1" 2>&1 | awk '
		function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
		/Requests\/sec/ { rps = $2 }
		/^ +50%/ { p50 = ms($2) }
		/^ +99%/ { p99 = ms($2) }
		/Non-2xx/ { bad = $4 }
		/Socket errors/ { err = $0 }
		END { printf "%s %s %s %s\n", rps, p50, p99, (bad == "" ? 0 : bad) }'
}

median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

printf '\n%-22s %12s %12s %7s %16s %16s %9s\n' pair ours_req/s builtin_req/s ratio "ours p50/p99" "builtin p50/p99" rss_MiB
bench_pair() { # name ours-url builtin-url [user-agent]
	local name=$1 a=$2 b=$3 ra=() rb=() la lb
	WRK_UA=${4:-}
	if [ -n "${PAIRS:-}" ] && [[ " $PAIRS " != *" $name "* ]]; then return; fi
	for ((r = 1; r <= ROUNDS; r++)); do
		# alternate which side goes first, so warm-up and drift do not favour one side
		if ((r % 2)); then
			la=$(run_wrk "$a"); lb=$(run_wrk "$b")
		else
			lb=$(run_wrk "$b"); la=$(run_wrk "$a")
		fi
		ra+=("$la"); rb+=("$lb")
		[ "$(echo "$la" | cut -d' ' -f4)" = 0 ] || echo "  $name ours: non-2xx responses: $la" >&2
		[ "$(echo "$lb" | cut -d' ' -f4)" = 0 ] || echo "  $name builtin: non-2xx responses: $lb" >&2
	done
	local qa qb pa pb
	qa=$(printf '%s\n' "${ra[@]}" | cut -d' ' -f1 | median)
	qb=$(printf '%s\n' "${rb[@]}" | cut -d' ' -f1 | median)
	pa="$(printf '%s\n' "${ra[@]}" | cut -d' ' -f2 | median)/$(printf '%s\n' "${ra[@]}" | cut -d' ' -f3 | median)"
	pb="$(printf '%s\n' "${rb[@]}" | cut -d' ' -f2 | median)/$(printf '%s\n' "${rb[@]}" | cut -d' ' -f3 | median)"
	printf '%-22s %12.0f %12.0f %7.3f %16s %16s %9.1f\n' "$name" "$qa" "$qb" "$(echo "$qa $qb" | awk '{print $1 / $2}')" "$pa" "$pb" "$(echo "$(rss_kib)" | awk '{print $1 / 1024}')"
}

bench_pair robots.txt http://127.0.0.1:9101/robots.txt http://127.0.0.1:9102/robots.txt
bench_pair robots.txt-merged http://127.0.0.1:9109/robots.txt http://127.0.0.1:9101/robots.txt # vs declared-only
bench_pair header-route http://127.0.0.1:9103/a http://127.0.0.1:9104/a
bench_pair meta-100KiB http://127.0.0.1:9105/100k.html http://127.0.0.1:9106/100k.html
bench_pair meta-1MiB http://127.0.0.1:9105/1m.html http://127.0.0.1:9106/1m.html
bench_pair no-match http://127.0.0.1:9107/articles/x http://127.0.0.1:9108/articles/x
bench_pair enforce-browser http://127.0.0.1:9121/articles/x http://127.0.0.1:9122/articles/x "$BROWSER_UA"
printf '\npeak RSS of Caddy over the run: %.1f MiB; rounds=%s duration=%s connections=%s threads=%s, %s cores\n' \
	"$(echo "$(hwm_kib)" | awk '{print $1 / 1024}')" "$ROUNDS" "$DURATION" "$CONNS" "$THREADS" "$(nproc)"
