package caddymodule

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
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
				if err := resolvePath(doc, path); err != nil {
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
	if resolvePath(map[string]any{"groups": []any{map[string]any{}}}, "groups[0].user_agent") == nil {
		t.Error("resolvePath accepts a field that is not there")
	}
}

// resolvePath finds path ("groups[2].rules[0].path", `rules["*"][1]`) in a decoded JSON
// document.
func resolvePath(doc any, path string) error {
	cur := doc
	for rest := path; rest != ""; {
		switch {
		case strings.HasPrefix(rest, `["`):
			end := strings.Index(rest, `"]`)
			for end > 0 && rest[end-1] == '\\' {
				end += 1 + strings.Index(rest[end+1:], `"]`)
			}
			key, err := strconv.Unquote(rest[1 : end+1])
			if err != nil {
				return err
			}
			obj, ok := cur.(map[string]any)
			if !ok {
				return fmt.Errorf("%q is not an object", key)
			}
			if cur, ok = obj[key]; !ok {
				return fmt.Errorf("no key %q", key)
			}
			rest = rest[end+2:]
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			i, err := strconv.Atoi(rest[1:end])
			if err != nil {
				return err
			}
			list, ok := cur.([]any)
			if !ok || i >= len(list) {
				return fmt.Errorf("no element %d", i)
			}
			cur, rest = list[i], rest[end+1:]
		default:
			rest = strings.TrimPrefix(rest, ".")
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			obj, ok := cur.(map[string]any)
			if !ok {
				return fmt.Errorf("%q: not an object", rest[:end])
			}
			if cur, ok = obj[rest[:end]]; !ok {
				return fmt.Errorf("no field %q", rest[:end])
			}
			rest = rest[end:]
		}
	}
	return nil
}
