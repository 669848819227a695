package main

import (
	"testing"

	"github.com/caddyserver/caddy/v2"
)

// TestModulesRegistered checks that the command the README runs carries this project's
// handlers and the standard modules the example site uses.
func TestModulesRegistered(t *testing.T) {
	for _, id := range []string{
		"http.handlers.robots_txt",
		"http.handlers.robots_tag",
		"http.handlers.file_server",
		"http.handlers.encode",
		"http.handlers.reverse_proxy",
		"caddy.adapters.caddyfile",
	} {
		if _, err := caddy.GetModule(id); err != nil {
			t.Errorf("module %s is not in caddy-robots: %v", id, err)
		}
	}
}
