// Command caddy-robots is Caddy with the caddy-robots handlers (robots_txt and robots_tag)
// plugged in. It takes the same commands and flags as the standard caddy binary, e.g.
//
//	go run ./cmd/caddy-robots run --config ../Caddyfile.example --adapter caddyfile
//
// (run from the caddymodule directory). Release binaries are built with xcaddy from
// xcaddy.json at the repository root instead; both contain the same modules.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	// The standard Caddy modules (file_server, reverse_proxy, encode, ...).
	_ "github.com/caddyserver/caddy/v2/modules/standard"

	// The robots_txt and robots_tag handlers.
	_ "github.com/sitepolicy/caddy-robots/caddymodule"
)

func main() {
	caddycmd.Main()
}
