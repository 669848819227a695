#!/usr/bin/env bash
# Releases the four modules of this repository, in the steps Go's module system needs:
#   1. tag the root module (github.com/sitepolicy/caddy-robots) vX.Y.Z;
#   2. make metrics/prom/go.mod (the Prometheus adapter), redisstore/go.mod (the fleet's
#      Redis store) and caddymodule/go.mod require that version, and caddymodule/go.mod
#      metrics/prom's (and redisstore's, when it requires it), commit, and tag
#      metrics/prom/vX.Y.Z, redisstore/vX.Y.Z and caddymodule/vX.Y.Z on that commit.
# After both tags are pushed, `xcaddy build --with github.com/sitepolicy/caddy-robots/caddymodule`
# resolves the root module from its tag. The `replace` lines in caddymodule/go.mod,
# metrics/prom/go.mod and redisstore/go.mod stay: they only apply when that module is the main module (development
# in this repository), and Go ignores them when it is a dependency.
set -euo pipefail
cd "$(dirname "$0")"
v=${1:-}
if ! [[ $v =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
	echo "usage: ./release.sh vX.Y.Z" >&2
	exit 2
fi
if ! git diff --quiet || ! git diff --cached --quiet; then
	echo "commit or stash your changes first" >&2
	exit 1
fi
if git rev-parse -q --verify "refs/tags/$v" >/dev/null || git rev-parse -q --verify "refs/tags/caddymodule/$v" >/dev/null || git rev-parse -q --verify "refs/tags/metrics/prom/$v" >/dev/null || git rev-parse -q --verify "refs/tags/redisstore/$v" >/dev/null; then
	echo "$v is already tagged" >&2
	exit 1
fi
if [ "${RELEASE_SKIP_TESTS:-}" != 1 ]; then # set only by the test of this script
	./test.sh
fi
git tag -a "$v" -m "caddy-robots $v"
(cd metrics/prom && go mod edit -require="github.com/sitepolicy/caddy-robots@$v" && go mod tidy)
(cd redisstore && go mod edit -require="github.com/sitepolicy/caddy-robots@$v" && go mod tidy)
redis=()
if grep -q 'github.com/sitepolicy/caddy-robots/redisstore ' caddymodule/go.mod; then
	redis=(-require="github.com/sitepolicy/caddy-robots/redisstore@$v")
fi
(cd caddymodule && go mod edit -require="github.com/sitepolicy/caddy-robots@$v" -require="github.com/sitepolicy/caddy-robots/metrics/prom@$v" "${redis[@]}" && go mod tidy)
git commit -q -am "caddymodule, metrics/prom, redisstore: require github.com/sitepolicy/caddy-robots $v"
git tag -a "metrics/prom/$v" -m "caddy-robots metrics/prom $v"
git tag -a "redisstore/$v" -m "caddy-robots redisstore $v"
git tag -a "caddymodule/$v" -m "caddy-robots caddymodule $v"
echo "tagged $v, metrics/prom/$v, redisstore/$v and caddymodule/$v; publish with: git push origin HEAD $v metrics/prom/$v redisstore/$v caddymodule/$v"
