package caddymodule

import (
	"os"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
)

// TestREADMECaddyfiles adapts every Caddyfile snippet of the README (wrapped in a site when it
// is a fragment), so the documentation cannot show a config Caddy would refuse. The syntax
// summary, with its <placeholders>, is the one block left out.
func TestREADMECaddyfiles(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(b), "```caddyfile\n")[1:]
	if len(blocks) < 5 {
		t.Fatalf("README has only %d Caddyfile blocks", len(blocks))
	}
	adapter := caddyconfig.GetAdapter("caddyfile")
	checked := 0
	for i, rest := range blocks {
		block, _, ok := strings.Cut(rest, "```")
		if !ok {
			t.Fatalf("block %d is not closed", i)
		}
		if strings.Contains(block, "<matcher>") {
			continue
		}
		first := strings.TrimSpace(strings.SplitN(strings.TrimSpace(block), "\n", 2)[0])
		cfg, wrapped := block, false
		if !strings.HasPrefix(first, "http") && !strings.Contains(strings.Fields(first)[0], ".") {
			cfg, wrapped = "http://localhost:8080 {\n"+block+"\nrespond ok\n}\n", true
		}
		out, warnings, err := adapter.Adapt([]byte(cfg), map[string]any{"filename": "README"})
		if err != nil {
			t.Errorf("README Caddyfile block %d refused: %v\n%s", i, err, block)
			continue
		}
		for _, w := range warnings {
			if wrapped && strings.Contains(w.Message, "not formatted") {
				continue // the wrapping, not the README, is unformatted
			}
			t.Errorf("README Caddyfile block %d: warning %s", i, w.Message)
		}
		if !strings.Contains(string(out), `"handler":"robots_`) {
			t.Errorf("README Caddyfile block %d adapts to no robots handler", i)
		}
		checked++
	}
	if checked < 5 {
		t.Errorf("only %d README Caddyfile blocks checked", checked)
	}
}
