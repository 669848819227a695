package caddymodule

import (
	"encoding/json"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/sitepolicy/caddy-robots/configerr"
)

// TestRecordedPathsNameFields: every field path the Caddyfile adapter records a line for names
// a field of the handler's JSON, the paths the core's errors use. A misspelt path would never
// match an error, and the error would silently fall back to the directive's line.
func TestRecordedPathsNameFields(t *testing.T) {
	cfg := exampleCaddyfile(t, 8080, "off")
	notes, err := recordSources("Caddyfile.example", func() error {
		_, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cfg), map[string]any{"filename": "Caddyfile.example"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for handler, srcs := range notes {
		var doc any
		if err := json.Unmarshal([]byte(handler), &doc); err != nil {
			t.Fatal(err)
		}
		for _, src := range srcs {
			for path := range src.Lines {
				if _, err := configerr.Resolve(doc, path); err != nil {
					t.Errorf("line %d: recorded path %q: %v\nhandler %s", src.Lines[path], path, err, handler)
				}
				checked++
			}
		}
	}
	// Caddyfile.example uses every sub-directive (TestExampleCaddyfileComplete).
	t.Logf("%d recorded paths checked", checked)
	if checked < 40 {
		t.Errorf("only %d recorded paths checked", checked)
	}
}
