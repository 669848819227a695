package nethttp_test

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/internal/fixture"
	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/tdmrep"
)

// tdmConfig is docs/licensing.md's TDMRep Caddyfile as the middleware's JSON.
const tdmConfig = `{
  "robots_txt": {"groups": [{"user_agents": ["*"],
    "content_usage": [{"preferences": {"train-ai": "n", "search": "y"}}],
    "content_signal": [{"preferences": {"search": "yes", "ai-input": "yes", "ai-train": "no"}}]}]},
  "robots_tag": [
    {"paths": ["/articles/*"], "content_usage": {"train-ai": "n", "search": "y"},
     "tdm": {"derive": true, "policy": "https://example.com/policies/tdm.json"}, "meta": true},
    {"paths": ["/press/*"], "tdm": {"reservation": 0}}
  ]
}`

// TestTDMOverLoopback: docs/licensing.md's TDMRep policy, served by the middleware over a
// real server: robots.txt with both vocabularies, the TDMRep fields and meta elements per
// route, and /.well-known/tdmrep.json as that page shows it, its left-out 0 rule warned about
// at load.
func TestTDMOverLoopback(t *testing.T) {
	logs := &logRecorder{level: slog.LevelWarn}
	m, err := nethttp.NewFromJSON([]byte(tdmConfig), nethttp.Options{Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(logs.all(), "\n"); !strings.Contains(got, "robots_tag") || !strings.Contains(got, "leaves out the 1 rule(s) of tdm-reservation 0") {
		t.Errorf("load warnings: %q", got)
	}
	srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == tdmrep.WellKnownPath {
			_, _ = io.WriteString(w, "the backend's file, shadowed")
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<!doctype html><title>t</title><p>x")
	}))
	_, body := get(t, nil, "GET", srv.URL+"/robots.txt")
	if want := "User-agent: *\nDisallow:\nContent-Usage: train-ai=n, search=y\nContent-Signal: search=yes, ai-input=yes, ai-train=no\n"; string(body) != want {
		t.Errorf("robots.txt\n%s", body)
	}
	const policyURL = "https://example.com/policies/tdm.json"
	for path, want := range map[string][4]string{
		"/articles/a": {"train-ai=n, search=y", "1", policyURL, `tdm-reservation=1 tdm-policy=` + policyURL},
		"/press/a":    {"", "0", "", ""},
		"/other":      {"", "", "", ""},
	} {
		resp, body := get(t, nil, "GET", srv.URL+path)
		got := [4]string{strings.Join(resp.Header.Values("Content-Usage"), "|"), strings.Join(resp.Header.Values("Tdm-Reservation"), "|"), strings.Join(resp.Header.Values("Tdm-Policy"), "|"), headMetaString(t, body)}
		if got != want {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
	resp, body := get(t, nil, "GET", srv.URL+tdmrep.WellKnownPath)
	if want := docBlock(t, "../docs/licensing.md", "tdm-tdmrep-json", "json"); resp.StatusCode != 200 || strings.TrimSpace(string(body)) != strings.TrimSpace(want) {
		t.Errorf("tdmrep.json %d\n%s\ndocs/licensing.md shows\n%s", resp.StatusCode, body, want)
	}
	if resp.Header.Get("Cache-Control") != "max-age=3600" || resp.Header.Get("Etag") == "" || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("tdmrep.json headers %v", resp.Header)
	}
}

// headMetaString is the head's meta elements as "name=content" words, in order.
func headMetaString(t *testing.T, body []byte) string {
	var words []string
	for _, kv := range fixture.HeadMeta(t, body) {
		words = append(words, kv[0]+"="+kv[1])
	}
	return strings.Join(words, " ")
}

// TestTDMConfigErrorsJSON: bad declarations in the middleware's JSON are refused with their
// field paths.
func TestTDMConfigErrorsJSON(t *testing.T) {
	for js, want := range map[string]string{
		`{"robots_tag": [{"tdm": {"reservation": 2}}]}`:                                   `robots_tag[0].tdm.reservation "2": tdm-reservation is 1`,
		`{"robots_tag": [{"tdm": {"reservation": 1, "policy": "/p.json"}}]}`:              `robots_tag[0].tdm.policy "/p.json": a tdm-policy URL must be an absolute http(s) URL`,
		`{"robots_tag": [{"tdm": {"reservation": 1, "policy": "https://e.com/\u0007"}}]}`: `robots_tag[0].tdm.policy`,
		`{"robots_tag": [{"tdm": {"derive": true}, "content_usage": {"search": "n"}}]}`:   `robots_tag[0].tdm.derive: derive reserves`,
		`{"robots_tag": [{"tdm": {"reservation": "1"}}]}`:                                 `cannot unmarshal string`,
	} {
		_, err := nethttp.NewFromJSON([]byte(js), nethttp.Options{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", js, err, want)
		}
	}
}
