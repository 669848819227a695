package nethttp_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sitepolicy/caddy-robots/internal/fixture"

	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/tagemit"
)

const page = `<!DOCTYPE html><html><head><title>Post</title></head><body><p>Hello</p></body></html>`

func mustNew(t testing.TB, cfg nethttp.Config) *nethttp.Middleware {
	t.Helper()
	m, err := nethttp.New(cfg, nethttp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func serve(t testing.TB, m *nethttp.Middleware, next http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(m.Handler(next))
	t.Cleanup(srv.Close)
	return srv
}

// loopback starts h on a loopback server, over HTTP/2 with TLS when h2 is set, and returns it
// with a client for it.
func loopback(t testing.TB, h http.Handler, h2 bool) (*httptest.Server, *http.Client) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	c := http.DefaultClient
	if h2 {
		srv.EnableHTTP2 = true
		srv.StartTLS()
		c = srv.Client()
		c.Transport.(*http.Transport).ForceAttemptHTTP2 = true
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, c
}

func get(t testing.TB, c *http.Client, method, url string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

var parseRobotsTag = fixture.RobotsTag

func policy(t testing.TB, rules map[string][]string) tagemit.Policy {
	t.Helper()
	p, err := tagemit.NewPolicy(rules)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConfigErrors(t *testing.T) {
	cases := []struct {
		name string
		json string
		want string
	}{
		{"empty", `{}`, "nothing to do"},
		{"unknown field", `{"robots_tags": []}`, "unknown field"},
		{"bad rule", `{"robots_tag": [{"rules": {"*": ["noindx"]}}]}`, `robots_tag[0].rules["*"][0] "noindx": unknown rule "noindx" (did you mean "noindex"?)`},
		{"no rules", `{"robots_tag": [{"rules": {}}]}`, "robots_tag[0].rules: no rules"},
		{"bad path", `{"robots_tag": [{"paths": ["drafts"], "rules": {"*": ["noindex"]}}]}`, `robots_tag[0].paths[0] "drafts": a path pattern must start with`},
		{"bad token", `{"robots_txt": {"groups": [{"user_agents": ["Google Bot"]}]}}`, `robots_txt.groups[0].user_agents[0] "Google Bot"`},
		{"bad max_age", `{"robots_txt": {"groups": [{"user_agents": ["*"]}], "max_age": "soon"}}`, "invalid duration"},
		{"max_age over 24h", `{"robots_txt": {"groups": [{"user_agents": ["*"]}], "max_age": "25h"}}`, "at most 24h"},
		{"negative max_age", `{"robots_txt": {"groups": [{"user_agents": ["*"]}], "max_age": -1}}`, `robots_txt.max_age "-1ns": max_age must be at least 1s`},
		{"max_age under a second", `{"robots_txt": {"groups": [{"user_agents": ["*"]}], "max_age": "500ms"}}`, `robots_txt.max_age "500ms": max_age must be at least 1s`},
		{"max_age in days", `{"robots_txt": {"groups": [{"user_agents": ["*"]}], "max_age": "1d1h"}}`, `robots_txt.max_age "25h0m0s"`},
		{"trailing", `{"robots_tag": [{"rules": {"*": ["noindex"]}}]} {}`, "unexpected data"},
	}
	for _, c := range cases {
		_, err := nethttp.NewFromJSON([]byte(c.json), nethttp.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to mention %q", c.name, err, c.want)
		}
	}
}

// TestFSServer is a smoke test with an fs.FS server, whose ServeContent path differs from
// http.Dir's in name only; it guards the ReadFrom path with an in-memory file.
func TestFSServer(t *testing.T) {
	fsys := fstest.MapFS{"a.html": {Data: []byte(page)}}
	m := mustNew(t, nethttp.Config{RobotsTag: []nethttp.Route{
		{Paths: []string{"*.html"}, Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, Meta: true}},
	}})
	srv := serve(t, m, http.FileServerFS(fsys))
	_, body := get(t, nil, "GET", srv.URL+"/a.html")
	if headMeta(t, body)["robots"] != "noindex" {
		t.Fatalf("body %s", body)
	}
}
