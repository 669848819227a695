package nethttp_test

import (
	"os"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/docs"
	"github.com/sitepolicy/caddy-robots/nethttp"
)

// docBlock returns the fenced block, with info string info, after the marker
// <!-- test: name --> of the Markdown file at path (relative to this package).
func docBlock(t *testing.T, path, name, info string) string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block, err := docs.Marked(src, name, info)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return block
}

// readmeJSON returns the JSON config shown in docs/nethttp.md, so the documentation cannot
// drift from what the middleware accepts. caddymodule loads the same document into Caddy.
func readmeJSON(t *testing.T) []byte {
	t.Helper()
	return []byte(docBlock(t, "../docs/nethttp.md", "nethttp-json", "json"))
}

func TestREADMEConfigLoads(t *testing.T) {
	data := readmeJSON(t)
	m, err := nethttp.NewFromJSON(data, nethttp.Options{})
	if err != nil {
		t.Fatalf("docs/nethttp.md JSON refused: %v", err)
	}
	srv := serve(t, m, htmlHandler(page))
	resp, body := get(t, nil, "GET", srv.URL+"/drafts/a")
	if resp.Header.Get("Robots-Tag") != "*;noindex;nosnippet" || headMeta(t, body)["robots"] != "noindex, nosnippet" {
		t.Errorf("drafts: Robots-Tag %q, body %s", resp.Header.Get("Robots-Tag"), body)
	}
	resp, _ = get(t, nil, "GET", srv.URL+"/x.PDF")
	if resp.Header.Get("Robots-Tag") != "*;noindex" || resp.Header.Get("X-Robots-Tag") != "noindex" {
		t.Errorf("pdf: Robots-Tag %q X-Robots-Tag %q", resp.Header.Get("Robots-Tag"), resp.Header.Get("X-Robots-Tag"))
	}
	_, body = get(t, nil, "GET", srv.URL+"/robots.txt")
	for _, want := range []string{"User-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n", "Disallow: /admin/\n", "Sitemap: " + srv.URL + "/sitemap.xml\n"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("robots.txt lacks %q:\n%s", want, body)
		}
	}
}
