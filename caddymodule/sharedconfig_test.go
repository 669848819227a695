package caddymodule

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddytest"

	"github.com/sitepolicy/caddy-robots/nethttp"
)

const sharedPage = `<!DOCTYPE html><html><head><title>Shared</title></head><body><p>one config, two servers</p></body></html>`

// readmeConfigJSON returns the net/http middleware's JSON config that docs/nethttp.md shows.
func readmeConfigJSON(t *testing.T) []byte {
	t.Helper()
	return []byte(docBlock(t, "../docs/nethttp.md", "nethttp-json", "json"))
}

// TestOneJSONTwoFrontEnds loads one JSON document into both front ends, unchanged: its
// "robots_txt" object becomes a robots_txt handler, each "robots_tag" entry a robots_tag
// handler behind a path matcher made of its "paths". Both must answer every request alike.
func TestOneJSONTwoFrontEnds(t *testing.T) {
	doc := readmeConfigJSON(t)

	// net/http.
	mw, err := nethttp.NewFromJSON(doc, nethttp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	app := httptest.NewServer(mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, sharedPage)
	})))
	defer app.Close()

	// Caddy, from the same objects.
	var parts struct {
		RobotsTxt map[string]any   `json:"robots_txt"`
		RobotsTag []map[string]any `json:"robots_tag"`
	}
	if err := json.Unmarshal(doc, &parts); err != nil {
		t.Fatal(err)
	}
	parts.RobotsTxt["handler"] = "robots_txt"
	routes := []any{map[string]any{"handle": []any{parts.RobotsTxt}}}
	for _, tag := range parts.RobotsTag {
		paths := tag["paths"]
		delete(tag, "paths")
		tag["handler"] = "robots_tag"
		routes = append(routes, map[string]any{"match": []any{map[string]any{"path": paths}}, "handle": []any{tag}})
	}
	routes = append(routes, map[string]any{"handle": []any{map[string]any{
		"handler": "static_response",
		"headers": map[string]any{"Content-Type": []string{"text/html; charset=utf-8"}},
		"body":    sharedPage,
	}}})
	cfg := map[string]any{
		"admin": map[string]any{"listen": fmt.Sprintf("localhost:%d", adminPort)},
		"apps": map[string]any{"http": map[string]any{
			"http_port": sitePort,
			"servers": map[string]any{"shared": map[string]any{
				"listen":          []string{fmt.Sprintf(":%d", sitePort)},
				"routes":          routes,
				"automatic_https": map[string]any{"disable": true},
			}},
		}},
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tester := caddytest.NewTester(t)
	tester.InitServer(string(raw), "json")
	if t.Failed() {
		t.FailNow()
	}

	for _, path := range []string{"/robots.txt", "/", "/drafts/post", "/DRAFTS/x.pdf", "/files/report.pdf", "/articles/a"} {
		fromApp, appBody := fetchAs(t, app.URL+path)
		fromCaddy, caddyBody := fetchAs(t, siteURL(path))
		if fromApp.StatusCode != fromCaddy.StatusCode || appBody != caddyBody {
			t.Errorf("%s: net/http %d %q\nCaddy %d %q", path, fromApp.StatusCode, appBody, fromCaddy.StatusCode, caddyBody)
		}
		for _, h := range []string{"Robots-Tag", "X-Robots-Tag", "Content-Type", "Content-Length", "Cache-Control"} {
			if a, c := fromApp.Header.Values(h), fromCaddy.Header.Values(h); strings.Join(a, "\n") != strings.Join(c, "\n") {
				t.Errorf("%s: %s net/http %q, Caddy %q", path, h, a, c)
			}
		}
	}
}

// fetchAs requests url with the same Host header for both servers, so sitemap paths resolve
// to the same origin.
func fetchAs(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "www.example.test"
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}
