package nethttp_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dunglas/httpsfv"

	"github.com/sitepolicy/caddy-robots/nethttp"
)

// usageConfig is the publisher policy as nethttp JSON: robots.txt with both
// vocabularies, and Content-Usage per route.
const usageConfig = `{
  "robots_txt": {"groups": [{"user_agents": ["*"],
    "rules": [{"type": "disallow", "path": "/private/"}],
    "content_usage": [{"preferences": {"train-ai": "n", "search": "y"}},
                      {"path": "/open-data/", "preferences": {"train-ai": "y"}}],
    "content_signal": [{"preferences": {"search": "yes", "ai-input": "yes", "ai-train": "no"}}]}]},
  "robots_tag": [
    {"paths": ["/articles/*"], "rules": {"*": ["noindex"]}, "content_usage": {"train-ai": "n"}},
    {"paths": ["/articles/open/*", "/open-data/*"], "content_usage": {"train-ai": "y", "search": "y"}}
  ]
}`

// TestContentUsageOverLoopback: robots.txt carries both vocabularies; responses carry one
// Content-Usage field, the combination of every matching route's preferences and the
// handler's own; a route with only preferences leaves the robots headers alone; an
// unparsable handler value is dropped with a debug log.
func TestContentUsageOverLoopback(t *testing.T) {
	logs := &logRecorder{level: slog.LevelDebug}
	m, err := nethttp.NewFromJSON([]byte(usageConfig), nethttp.Options{Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	var backendCU, backendRT []string
	srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if backendCU != nil {
			w.Header()["Content-Usage"] = backendCU
		}
		if backendRT != nil {
			w.Header()["Robots-Tag"] = backendRT
		}
		_, _ = io.WriteString(w, "ok")
	}))

	resp, body := get(t, nil, "GET", srv.URL+"/robots.txt")
	want := "User-agent: *\nDisallow: /private/\nContent-Usage: train-ai=n, search=y\nContent-Usage: /open-data/ train-ai=y\nContent-Signal: search=yes, ai-input=yes, ai-train=no\n"
	if resp.StatusCode != 200 || string(body) != want {
		t.Fatalf("robots.txt %d\n%s", resp.StatusCode, body)
	}

	for _, c := range []struct {
		path       string
		cu, rt     []string // what the handler sends
		wantCU     []string
		wantRT     []string
		debugNoted string
	}{
		{path: "/", wantCU: nil},
		{path: "/articles/a", wantCU: []string{"train-ai=n"}, wantRT: []string{"*;noindex"}},
		// Two routes: any n wins, else any y.
		{path: "/articles/open/a", wantCU: []string{"train-ai=n, search=y"}, wantRT: []string{"*;noindex"}},
		// Only preferences: Robots-Tag is the handler's business.
		{path: "/open-data/a.csv", wantCU: []string{"train-ai=y, search=y"}},
		{path: "/open-data/a.csv", rt: []string{"googlebot: noarchive"}, wantCU: []string{"train-ai=y, search=y"}, wantRT: []string{"googlebot: noarchive"}},
		// The handler's own value is combined, in one field line.
		{path: "/open-data/a.csv", cu: []string{"train-ai=n", "search=n"}, wantCU: []string{"train-ai=n, search=n"}},
		// Members the route does not combine are passed on as sent, parameters and all.
		{path: "/articles/a", cu: []string{"search=y;why=1, foo=n"}, wantCU: []string{"train-ai=n, search=y;why=1, foo=n"}, wantRT: []string{"*;noindex"}},
		{path: "/articles/a", cu: []string{"zz=1", "ai-input=n;src=\"cms\", train-ai=y"}, wantCU: []string{"train-ai=n, zz=1, ai-input=n;src=\"cms\""}, wantRT: []string{"*;noindex"}},
		// Unparsable: to a reader every preference is unknown; its n members are kept (a
		// lenient reader may see them), the rest left out and logged.
		{path: "/articles/a", cu: []string{"Train-AI=y"}, wantCU: []string{"train-ai=n"}, wantRT: []string{"*;noindex"}, debugNoted: `Content-Usage from the handler, not all passed on: Content-Usage value "Train-AI=y" is not a Structured Field Dictionary`},
		{path: "/open-data/a.csv", cu: []string{"Train-AI=n, Foo=y, bar=n"}, wantCU: []string{"train-ai=n, search=y, bar=n"}, debugNoted: `Content-Usage from the handler, not all passed on: Content-Usage value "Train-AI=n, Foo=y, bar=n" is not a Structured Field Dictionary`},
		// No route preferences: the handler's field is left as it is.
		{path: "/", cu: []string{"Train-AI=y"}, wantCU: []string{"Train-AI=y"}},
	} {
		backendCU, backendRT = c.cu, c.rt
		resp, _ := get(t, nil, "GET", srv.URL+c.path)
		if got := resp.Header.Values("Content-Usage"); strings.Join(got, "|") != strings.Join(c.wantCU, "|") {
			t.Errorf("%s with %q: Content-Usage %q, want %q", c.path, c.cu, got, c.wantCU)
		}
		if got := resp.Header.Values("Robots-Tag"); strings.Join(got, "|") != strings.Join(c.wantRT, "|") {
			t.Errorf("%s with %q: Robots-Tag %q, want %q", c.path, c.rt, got, c.wantRT)
		}
		if c.debugNoted != "" {
			found := false
			for _, l := range logs.all() {
				found = found || strings.HasPrefix(l, "DEBUG "+c.debugNoted)
			}
			if !found {
				t.Errorf("%s: no debug log %q in %q", c.path, c.debugNoted, logs.all())
			}
		}
	}
}

// TestContentUsageConfigErrors: preferences are checked at load with their field paths, and
// a rule whose path its group disallows is logged as a warning.
func TestContentUsageConfigErrors(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{`{"robots_tag": [{"content_usage": {"train-ia": "n"}}]}`, `robots_tag[0].content_usage["train-ia"] "train-ia": not a Content-Usage key`},
		{`{"robots_tag": [{"content_usage": {"train-ai": "no"}}]}`, `robots_tag[0].content_usage["train-ai"] "no": Content-Usage values are y (allow) and n (disallow) (did you mean "n"?)`},
		{`{"robots_tag": [{"content_usage": {}}]}`, "robots_tag[0].rules: no rules"},
		{`{"robots_tag": [{"content_usage": {"train-ai": "n"}, "meta": true}]}`, "robots_tag[0].meta: meta writes"},
		{`{"robots_txt": {"groups": [{"user_agents": ["*"], "content_usage": [{"path": "/x", "preferences": {"Search": "y"}}]}]}}`, `robots_txt.groups[0].content_usage[0].preferences["Search"] "Search": not a Content-Usage key`},
		{`{"robots_txt": {"groups": [{"user_agents": ["*"], "content_signal": [{"path": "x/", "preferences": {"search": "yes"}}]}]}}`, `robots_txt.groups[0].content_signal[0].path "x/"`},
		// Found by review: a 10 KB field was accepted while Robots-Tag is held to 8 KiB.
		{bigUsage(14000), "robots_tag[0].content_usage: the Content-Usage field would be"},
	} {
		_, err := nethttp.NewFromJSON([]byte(c.json), nethttp.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ...%s", c.json, err, c.want)
		}
	}
	logs := &logRecorder{level: slog.LevelWarn}
	_, err := nethttp.NewFromJSON([]byte(`{"robots_txt": {"groups": [{"user_agents": ["*"],
		"rules": [{"type": "disallow", "path": "/private/"}],
		"content_usage": [{"path": "/private/", "preferences": {"train-ai": "y"}}]}]}}`), nethttp.Options{Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	if all := logs.all(); len(all) != 1 || !strings.Contains(all[0], "robots_txt.groups[0].content_usage[0]") || !strings.Contains(all[0], "has no effect") {
		t.Errorf("warnings logged: %q", all)
	}
}

// TestContentUsageSameJSONAsGo: the JSON form is the Go form.
func TestContentUsageSameJSONAsGo(t *testing.T) {
	cfg := nethttp.Config{RobotsTag: []nethttp.Route{{Paths: []string{"/a/*"}, Tags: nethttp.TagConfig{ContentUsage: map[string]string{"train-ai": "n"}}}}}
	m := mustNew(t, cfg)
	resp, _ := get(t, nil, "GET", serve(t, m, http.HandlerFunc(okHandler)).URL+"/a/b")
	if got := resp.Header.Get("Content-Usage"); got != "train-ai=n" {
		t.Errorf("Content-Usage %q", got)
	}
}

// TestREADMEUsageJSON: the Content-Usage JSON of docs/ai-usage.md loads and serves the
// robots.txt the page shows (for its Caddyfile), and the header it describes.
func TestREADMEUsageJSON(t *testing.T) {
	m, err := nethttp.NewFromJSON([]byte(docBlock(t, "../docs/ai-usage.md", "usage-json", "json")), nethttp.Options{})
	if err != nil {
		t.Fatalf("docs/ai-usage.md JSON refused: %v", err)
	}
	srv := serve(t, m, http.HandlerFunc(okHandler))
	_, body := get(t, nil, "GET", srv.URL+"/robots.txt")
	if want := docBlock(t, "../docs/ai-usage.md", "usage-robots-txt", ""); string(body) != want {
		t.Errorf("robots.txt\n%s\ndocs/ai-usage.md shows\n%s", body, want)
	}
	for path, want := range map[string]string{
		"/articles/a":      "train-ai=n, search=y",
		"/open-data/x.csv": "train-ai=y, search=y",
		"/other":           "",
	} {
		resp, _ := get(t, nil, "GET", srv.URL+path)
		if got := strings.Join(resp.Header.Values("Content-Usage"), "|"); got != want {
			t.Errorf("%s: Content-Usage %q, want %q", path, got, want)
		}
	}
}

// TestContentUsageNoCachingEffect: the field "does not have any special effect on caching"
// (attach-05): a route that only sends Content-Usage leaves every other field the handler
// sent as it was, validators included, and adds none (no Vary), on 200 and on 304.
func TestContentUsageNoCachingEffect(t *testing.T) {
	m, err := nethttp.NewFromJSON([]byte(`{"robots_tag": [{"content_usage": {"train-ai": "n"}}]}`), nethttp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=60")
		w.Header().Set("Etag", `"v1"`)
		w.Header().Set("Last-Modified", "Wed, 23 Apr 2025 04:48:02 GMT")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		_, _ = io.WriteString(w, "<!DOCTYPE html><title>x</title>")
	})
	plain := httptest.NewServer(h)
	t.Cleanup(plain.Close)
	tagged := serve(t, m, h)
	for _, inm := range []string{"", `"v1"`} {
		var hdr []string
		if inm != "" {
			hdr = []string{"If-None-Match", inm}
		}
		want, wantBody := get(t, nil, "GET", plain.URL+"/a", hdr...)
		got, gotBody := get(t, nil, "GET", tagged.URL+"/a", hdr...)
		if got.StatusCode != want.StatusCode || string(gotBody) != string(wantBody) {
			t.Errorf("If-None-Match %q: %d %q, without the middleware %d %q", inm, got.StatusCode, gotBody, want.StatusCode, wantBody)
		}
		if v := got.Header.Values("Content-Usage"); len(v) != 1 || v[0] != "train-ai=n" {
			t.Errorf("If-None-Match %q: Content-Usage %q", inm, v)
		}
		got.Header.Del("Content-Usage")
		for _, h := range []http.Header{got.Header, want.Header} {
			h.Del("Date")
		}
		if fmt.Sprint(got.Header) != fmt.Sprint(want.Header) {
			t.Errorf("If-None-Match %q: fields\n%v\nwithout the middleware\n%v", inm, got.Header, want.Header)
		}
	}
}

// bigUsage is a robots_tag config whose Content-Usage field has about n bytes of extensions.
func bigUsage(n int) string {
	var b strings.Builder
	b.WriteString(`{"robots_tag": [{"content_usage": {"train-ai": "n"`)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, `, "+ext-%04d": "n"`, i)
	}
	b.WriteString(`}}]}`)
	return b.String()
}

// TestContentUsageUnionWithinLimit: two routes each under 8 KiB but over it together (found by
// the second review: a 10.8 KB field went out) send a field within the limit: extension y
// values are left out first (unknown grants nothing), then extension n values, the
// vocabulary's keys always kept, and a warning names what was left out, once.
func TestContentUsageUnionWithinLimit(t *testing.T) {
	ext := func(prefix, v string, n int) map[string]string {
		m := map[string]string{}
		for i := range n {
			m[fmt.Sprintf("+%s-%04d", prefix, i)] = v
		}
		return m
	}
	site := ext("site", "n", 350) // about 4.5 KB of n values
	site["train-ai"] = "n"
	x := ext("x", "y", 350) // about 3.5 KB of y values
	x["search"] = "y"
	for k, v := range ext("xn", "n", 150) {
		x[k] = v
	}
	logs := &logRecorder{level: slog.LevelWarn}
	m, err := nethttp.New(nethttp.Config{RobotsTag: []nethttp.Route{
		{Tags: nethttp.TagConfig{ContentUsage: site}},
		{Paths: []string{"/x*"}, Tags: nethttp.TagConfig{ContentUsage: x}},
	}}, nethttp.Options{Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, m, http.HandlerFunc(okHandler))
	for range 2 {
		resp, _ := get(t, nil, "GET", srv.URL+"/x")
		cu := resp.Header.Values("Content-Usage")
		if len(cu) != 1 || len(cu[0]) > 8192 {
			t.Fatalf("Content-Usage: %d lines, %d bytes", len(cu), len(strings.Join(cu, "")))
		}
		d, err := httpsfv.UnmarshalDictionary(cu)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"train-ai", "search", "site-0000", "site-0349", "xn-0000"} {
			if _, ok := d.Get(k); !ok {
				t.Errorf("%s left out of %d bytes", k, len(cu[0]))
			}
		}
		if _, ok := d.Get("x-0000"); ok {
			t.Error("a y value kept while n values were at stake")
		}
	}
	if all := logs.all(); len(all) != 1 || !strings.Contains(all[0], "Content-Usage: the routes' preferences together are over 8192 bytes") || !strings.Contains(all[0], "+x-0000=y") {
		t.Errorf("warnings: %q", all)
	}
	// The site-wide route alone is sent whole.
	resp, _ := get(t, nil, "GET", srv.URL+"/a")
	if d, _ := httpsfv.UnmarshalDictionary(resp.Header.Values("Content-Usage")); len(d.Names()) != 351 {
		t.Errorf("site-wide field has %d keys", len(d.Names()))
	}
}
