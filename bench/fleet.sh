#!/usr/bin/env bash
# What the shared store (docs/fleet.md) costs a request, through a real Caddy over loopback.
#
#   bench/fleet.sh                               # 5 interleaved rounds of 5 s per side
#   ROUNDS=9 DURATION=5s CONNS=8 bench/fleet.sh
#   PAIRS=browser bench/fleet.sh                 # only some of the pairs (crawler, browser)
#
# Starts a redis-server on a free loopback port and two Caddy processes (bench/out/caddy, built
# as bench/run.sh builds it) with the same site and the same crawlers app: one with the store
# (`store redis` in the crawlers option), one without (per-process state). Then, side by side
# in one run, alternating the sides round by round, it drives with wrk --latency:
#   crawler: a crawler whose group has a crawl_delay, with enforce's crawl_delay, asking as
#            fast as it can: every request takes a crawl-delay decision, and nearly all are
#            answered 429. With the store, an instance asks it once per delay: it remembers
#            until when the fleet's budget is taken (docs/fleet.md);
#   asks:    23 crawlers in turn, each with a crawl delay of 2 ms, shorter than the time
#            between two requests of one crawler: every request is served, and with the store
#            every one is a round trip (EVALSHA), the cost of a crawler that keeps its delay;
#   browser: a browser's request for the same page, which never touches the store.
# Prints, per pair, the median over the rounds of req/s and of p50/p99 latency on each side,
# and the p50 difference (store - per-process) in microseconds.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/bench/out
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-5s}
CONNS=${CONNS:-8}
THREADS=${THREADS:-1}
mkdir -p "$OUT"

for tool in wrk redis-server; do
	if ! command -v $tool >/dev/null 2>&1; then
		pkg=$tool
		echo "installing $pkg (Debian package)" >&2
		sudo=""
		[ "$(id -u)" = 0 ] || sudo=sudo
		$sudo apt-get update -qq >/dev/null && $sudo apt-get install -y -qq "$pkg" >/dev/null
	fi
done

echo "building Caddy with the module (cached after the first time)" >&2
(cd caddymodule && go build -o "$OUT/caddy" ./cmd/caddy-robots)

free_port() { # a port nothing listens on now
	local p
	while :; do
		p=$((20000 + RANDOM % 40000))
		(exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null || { echo $p; return; }
	done
}

pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null || true' EXIT
REDIS_PORT=$(free_port)
redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save '' --appendonly no --logfile "$OUT/fleet-redis.log" &
pids+=($!)

# caddyfile ADMIN PORT STORE: the site, with the store's lines or none.
caddyfile() {
	cat <<EOF
{
	admin 127.0.0.1:$1
	auto_https off
	persist_config off
	log default {
		output discard
	}
	crawlers {
		lists off
		reverse_dns off
$3
	}
}
http://127.0.0.1:$2 {
	robots_txt {
		group CCBot {
			crawl_delay 1
			allow /
		}
		group AddSearchBot ApifyBot BuddyBot ClaudeBot DeepSeekBot DuckAssistBot EchoboxBot ExaBot FacebookBot GPTBot HenkBot ImagesiftBot KlaviyoAIBot LinerBot LinkupBot OAI-SearchBot PanguBot PerplexityBot PetalBot PhindBot QuillBot TavilyBot TongyiBot {
			crawl_delay 0.002
			allow /
		}
		enforce {
			crawl_delay
		}
	}
	respond "page"
}
EOF
}
STORE_ADMIN=$(free_port) STORE_PORT=$(free_port)
LOCAL_ADMIN=$(free_port) LOCAL_PORT=$(free_port)
caddyfile "$STORE_ADMIN" "$STORE_PORT" "		store redis {
			address 127.0.0.1:$REDIS_PORT
			key_prefix bench:
		}" >"$OUT/fleet-store.Caddyfile"
caddyfile "$LOCAL_ADMIN" "$LOCAL_PORT" "" >"$OUT/fleet-local.Caddyfile"
for side in store local; do
	"$OUT/caddy" run --config "$OUT/fleet-$side.Caddyfile" --adapter caddyfile >"$OUT/fleet-$side.log" 2>&1 &
	pids+=($!)
done
STORE=http://127.0.0.1:$STORE_PORT/articles/x
LOCAL=http://127.0.0.1:$LOCAL_PORT/articles/x
for url in $STORE $LOCAL; do
	for _ in $(seq 1 100); do
		curl -fsS -o /dev/null "$url" 2>/dev/null && break
		sleep 0.1
	done
done

# Both sides decide: a crawler's second request within its crawl delay is refused.
CRAWLER_UA='CCBot/2.0 (https://commoncrawl.org/faq/)'
BROWSER_UA='Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
for url in $STORE $LOCAL; do
	codes="$(curl -sS -o /dev/null -w '%{http_code}' -A "$CRAWLER_UA" "$url") $(curl -sS -o /dev/null -w '%{http_code}' -A "$CRAWLER_UA" "$url")"
	[ "$codes" = "200 429" ] || [ "$codes" = "429 429" ] || {
		echo "$url: a crawler's two requests within its crawl delay got $codes, want a refusal (429)" >&2
		exit 1
	}
	[ "$(curl -sS -o /dev/null -w '%{http_code}' -A "$BROWSER_UA" "$url")" = 200 ] || {
		echo "$url: a browser is not served" >&2
		exit 1
	}
done
keys=$(redis-cli -p "$REDIS_PORT" --scan --pattern 'bench:*' | wc -l)
[ "$keys" -gt 0 ] || {
	echo "the store side wrote no key to redis: it does not use the store" >&2
	exit 1
}

# The asks pair's crawlers, one after the other (a wrk script).
cat >"$OUT/fleet-asks.lua" <<'EOF'
local names = {"AddSearchBot", "ApifyBot", "BuddyBot", "ClaudeBot", "DeepSeekBot", "DuckAssistBot", "EchoboxBot", "ExaBot", "FacebookBot", "GPTBot", "HenkBot", "ImagesiftBot", "KlaviyoAIBot", "LinerBot", "LinkupBot", "OAI-SearchBot", "PanguBot", "PerplexityBot", "PetalBot", "PhindBot", "QuillBot", "TavilyBot", "TongyiBot"}
local i = 0
request = function()
	i = i % #names + 1
	return wrk.format(nil, nil, {["User-Agent"] = "Mozilla/5.0 (compatible; " .. names[i] .. "/1.0)"})
end
EOF
# Every asks request is served on both sides, and the store side's are round trips.
for url in $STORE $LOCAL; do
	for n in AddSearchBot ApifyBot BuddyBot ClaudeBot; do
		code=$(curl -sS -o /dev/null -w '%{http_code}' -A "Mozilla/5.0 (compatible; $n/1.0)" "$url")
		[ "$code" = 200 ] || { echo "$url: $n asking after its crawl delay of 2 ms got $code, want 200" >&2; exit 1; }
	done
done
redis-cli -p "$REDIS_PORT" config resetstat >/dev/null

# run_wrk URL UA -> "reqs p50 p99" (latencies in µs); UA "asks" runs the asks script.
run_wrk() {
	local how=(-H "User-Agent: $2")
	[ "$2" = asks ] && how=(-s "$OUT/fleet-asks.lua")
	wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency "${how[@]}" "$1" 2>&1 | awk '
		function us(v) { if (v ~ /us$/) return v + 0; if (v ~ /ms$/) return v * 1000; if (v ~ /s$/) return v * 1000000; return v }
		/Requests\/sec/ { rps = $2 }
		/^ +50%/ { p50 = us($2) }
		/^ +99%/ { p99 = us($2) }
		END { printf "%s %s %s\n", rps, p50, p99 }'
}
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

printf '\n%-8s %12s %12s %18s %18s %14s\n' request store_req/s local_req/s "store p50/p99 µs" "local p50/p99 µs" "p50 added µs"
for pair in ${PAIRS:-crawler asks browser}; do
	ua=$CRAWLER_UA
	[ $pair = browser ] && ua=$BROWSER_UA
	[ $pair = asks ] && ua=asks
	rs=() rl=()
	for ((r = 1; r <= ROUNDS; r++)); do
		if ((r % 2)); then
			s=$(run_wrk "$STORE" "$ua"); l=$(run_wrk "$LOCAL" "$ua")
		else
			l=$(run_wrk "$LOCAL" "$ua"); s=$(run_wrk "$STORE" "$ua")
		fi
		rs+=("$s"); rl+=("$l")
	done
	col() { printf '%s\n' "${@:2}" | cut -d' ' -f"$1" | median; }
	qs=$(col 1 "${rs[@]}") ql=$(col 1 "${rl[@]}")
	ps=$(col 2 "${rs[@]}") pl=$(col 2 "${rl[@]}")
	printf '%-8s %12.0f %12.0f %18s %18s %14.0f\n' $pair "$qs" "$ql" "$ps/$(col 3 "${rs[@]}")" "$pl/$(col 3 "${rl[@]}")" "$(echo "$ps $pl" | awk '{print $1 - $2}')"
done
# What the store side sent, all pairs together.
redis-cli -p "$REDIS_PORT" info commandstats | grep -E '^cmdstat_(evalsha|eval):' | sed 's/^/store: /' || true
printf '\nrounds=%s duration=%s connections=%s threads=%s, %s cores; redis-server %s on loopback\n' \
	"$ROUNDS" "$DURATION" "$CONNS" "$THREADS" "$(nproc)" "$(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/')"
