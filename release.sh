#!/usr/bin/env bash
# Releases both modules of this repository, in the two steps Go's module system needs:
#   1. tag the root module (github.com/sitepolicy/caddy-robots) vX.Y.Z;
#   2. make caddymodule/go.mod require that version, commit, and tag caddymodule/vX.Y.Z.
# After both tags are pushed, `xcaddy build --with github.com/sitepolicy/caddy-robots/caddymodule`
# resolves the root module from its tag. The `replace ../` in caddymodule/go.mod stays: it
# only applies when caddymodule is the main module (development in this repository), and Go
# ignores it when caddymodule is a dependency.
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
if git rev-parse -q --verify "refs/tags/$v" >/dev/null || git rev-parse -q --verify "refs/tags/caddymodule/$v" >/dev/null; then
	echo "$v is already tagged" >&2
	exit 1
fi
if [ "${RELEASE_SKIP_TESTS:-}" != 1 ]; then # set only by the test of this script
	./test.sh
fi
git tag -a "$v" -m "caddy-robots $v"
(cd caddymodule && go mod edit -require="github.com/sitepolicy/caddy-robots@$v" && go mod tidy)
git commit -q -am "caddymodule: require github.com/sitepolicy/caddy-robots $v"
git tag -a "caddymodule/$v" -m "caddy-robots caddymodule $v"
echo "tagged $v and caddymodule/$v; publish with: git push origin HEAD $v caddymodule/$v"
