#!/usr/bin/env bash
# Reload soak: 60 s of wrk load on every route while the config is reloaded through Caddy's
# admin API every 5 s, alternating two valid configs, plus an invalid one that must be refused
# while the old config keeps serving.
#
#   bench/soak.sh                 # SOAK_SECONDS=60 by default
#
# Goal: 0 non-2xx/3xx responses, 0 socket errors, RSS after 60 s within 10 % of RSS after 10 s.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=$PWD/bench/out
SECS=${SOAK_SECONDS:-60}
mkdir -p "$OUT/www/drafts"
command -v wrk >/dev/null || { apt-get update -qq >/dev/null && apt-get install -y -qq wrk >/dev/null; }
(cd caddymodule && go build -o "$OUT/caddy" ./cmd/caddy-robots)
[ -s "$OUT/www/drafts/100k.html" ] || {
	printf '<!DOCTYPE html><html><head><title>soak</title></head><body>\n' >"$OUT/www/drafts/100k.html"
	for i in $(seq 1 1200); do echo "<p>paragraph $i of the soak page, long enough to matter.</p>"; done >>"$OUT/www/drafts/100k.html"
	echo '</body></html>' >>"$OUT/www/drafts/100k.html"
}
echo '<html><head><title>small</title></head><body>small</body></html>' >"$OUT/www/drafts/small.html"

export BENCH_WWW=$OUT/www
SOAK_VARIANT=a "$OUT/caddy" run --config bench/soak.Caddyfile --adapter caddyfile >"$OUT/soak-caddy.log" 2>&1 &
CADDY=$!
WRK=
trap 'kill $CADDY $WRK 2>/dev/null; wait 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -fsS -o /dev/null http://127.0.0.1:9201/ 2>/dev/null && break; sleep 0.1; done

adapt() { SOAK_VARIANT=$1 "$OUT/caddy" adapt --config bench/soak.Caddyfile --adapter caddyfile 2>/dev/null; }
adapt a >"$OUT/soak-a.json"
adapt b >"$OUT/soak-b.json"

wrk -t2 -c32 -d"${SECS}s" -s bench/soak.lua http://127.0.0.1:9201 >"$OUT/soak-wrk.txt" 2>&1 &
WRK=$!
rss() { awk '/^VmRSS/ {print $2}' /proc/$CADDY/status; }
reloads=0 refused=0 bad_accepted=0 rss10="" start=$SECONDS i=0
while kill -0 $WRK 2>/dev/null; do
	sleep 5
	i=$((i + 1))
	t=$((SECONDS - start))
	[ -z "$rss10" ] && [ $t -ge 10 ] && rss10=$(rss)
	if ((i % 3 == 0)); then
		# The invalid config: adapting it must fail, and so must loading it.
		code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: text/caddyfile' \
			--data-binary @bench/soak-bad.Caddyfile http://localhost:2999/load)
		if [ "$code" = 200 ]; then bad_accepted=$((bad_accepted + 1)); else refused=$((refused + 1)); fi
	fi
	variant=$([ $((i % 2)) = 0 ] && echo a || echo b)
	curl -fsS -X POST -H 'Content-Type: application/json' --data-binary @"$OUT/soak-$variant.json" \
		http://localhost:2999/load >/dev/null && reloads=$((reloads + 1))
done
wait $WRK || true
rss60=$(rss)
cat "$OUT/soak-wrk.txt"
non2xx=$(awk '/Non-2xx/ {print $5}' "$OUT/soak-wrk.txt"); non2xx=${non2xx:-0}
sockerr=$(awk '/Socket errors/ {print $0}' "$OUT/soak-wrk.txt")
echo
echo "reloads applied: $reloads; invalid config refused: $refused, accepted: $bad_accepted"
echo "non-2xx/3xx responses: $non2xx; socket errors: ${sockerr:-none}"
echo "RSS after 10 s: $((rss10 / 1024)) MiB; after ${SECS} s: $((rss60 / 1024)) MiB ($(awk -v a="$rss10" -v b="$rss60" 'BEGIN {printf "%+.1f%%", (b - a) * 100 / a}'))"
curl -fsS http://127.0.0.1:9201/robots.txt | grep -q 'Disallow: /drafts/' || { echo "robots.txt lost after the soak"; exit 1; }
ok=1
[ "$non2xx" = 0 ] || ok=0
[ -z "$sockerr" ] || ok=0
[ "$bad_accepted" = 0 ] || ok=0
[ "$refused" -ge 1 ] || ok=0
awk -v a="$rss10" -v b="$rss60" 'BEGIN {exit !(b <= a * 1.10)}' || ok=0
[ $ok = 1 ] && echo "soak: all goals met" || { echo "soak: a goal was missed"; exit 1; }
