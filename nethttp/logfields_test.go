package nethttp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/nethttp"
	core "github.com/sitepolicy/caddy-robots/serve"
)

// TestLogFields: the lines the core logs about requests carry exactly the core's fields
// (serve.Options.Logger), as Caddy's JSON log does (caddymodule's TestLogFieldsThroughCaddy):
// a refusal, a violation and a request's debug line, each with "method", "host" and "uri"
// (a violation: "path").
func TestLogFields(t *testing.T) {
	var out lockedBuffer
	m, err := nethttp.NewFromJSON([]byte(`{
		"robots_txt": {"groups": [
			{"user_agents": ["GPTBot"], "rules": [{"type": "disallow", "path": "/private/"}]},
			{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}],
			"enforce": {}},
		"robots_tag": [{"paths": ["/page"], "rules": {"*": ["noindex"]}, "meta": true}]}`),
		nethttp.Options{LogViolations: true, Logger: slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	h := m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!DOCTYPE html><html><head><title>p</title></head><body></body></html>"))
	}))
	for _, c := range []struct{ method, target, ua string }{
		{"GET", "/private/x?q=1", "GPTBot/1.2"},
		{"GET", "/admin/y", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"},
		{"HEAD", "/page", ""},
	} {
		r := httptest.NewRequest(c.method, "http://example.com"+c.target, nil)
		r.Header.Set("User-Agent", c.ua)
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	want := map[string][]string{
		"refusal":   {"token", "rule", "status", "method", "host", "uri", "suppressed"},
		"violation": {"crawler", "token", "identity_status", "method", "host", "path", "rule", "line", "suppressed"},
		"debug":     {"method", "host", "uri"},
	}
	got := map[string]map[string]any{}
	out.mu.Lock()
	sc := bufio.NewScanner(bytes.NewReader(out.b.Bytes()))
	out.mu.Unlock()
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		switch msg, _ := line["msg"].(string); {
		case strings.HasPrefix(msg, "robots.txt disallows this path"):
			got["refusal"] = line
		case msg == core.ViolationMessage:
			got["violation"] = line
		case msg == "meta elements not added: HEAD request":
			got["debug"] = line
		}
	}
	for kind, fields := range want {
		line := got[kind]
		var keys []string
		for k := range line {
			if k != "time" && k != "level" && k != "msg" {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		if w := slices.Sorted(slices.Values(fields)); !slices.Equal(keys, w) {
			t.Errorf("%s: fields %v, want %v", kind, keys, w)
		}
		if line["host"] != "example.com" {
			t.Errorf("%s: host %v", kind, line["host"])
		}
	}
}
