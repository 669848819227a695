package serve_test

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jimsmart/grobotstxt"

	"github.com/sitepolicy/caddy-robots/policy"
)

// TestMergeUpstreamThroughCore: with merge_upstream, ServeRobotsTxt asks the wrapped handler
// for its robots.txt per origin and serves the merge (Google's parser reads both files'
// rules in it), which enforcement then decides with at that origin; a backend without rules
// (404, an HTML page) gets the declared file; a failing one with no merge yet gets its status
// passed on.
func TestMergeUpstreamThroughCore(t *testing.T) {
	cfg := &policy.RobotsTxt{Groups: siteRobots.Groups, Sitemaps: siteRobots.Sitemaps, Enforce: &policy.Enforce{}}
	cfg.MergeUpstream = true
	cfg.MergeUpstreamTimeout = policy.Duration(200 * time.Millisecond)
	l := &logs{}
	core := mustCore(t, policy.Config{RobotsTxt: cfg}, l.options())
	const cms = "User-agent: *\nDisallow: /wp-admin/\nNonsense line\n\nUser-agent: ExampleCMSBot\nDisallow: /feeds/\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(cms))
	_ = zw.Close()
	backend := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" {
			_, _ = w.Write([]byte("page"))
			return
		}
		if r.Header.Get("Cookie") != "" || r.Header.Get("If-None-Match") != "" || r.Header.Get("Accept-Encoding") != "identity" || r.Method != "GET" {
			t.Errorf("the backend was asked with %s %v", r.Method, r.Header)
		}
		switch strings.TrimSuffix(r.Host, ".example") {
		case "cms":
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte(cms))
		case "gz":
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(gz.Bytes())
		case "gone":
			http.NotFound(w, r)
		case "html":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<!doctype html><p>no robots here"))
		case "down":
			http.Error(w, "no", 500)
		case "br":
			w.Header().Set("Content-Encoding", "br")
			_, _ = w.Write([]byte{0x0b, 0x02, 0x80})
		case "panic":
			panic("backend bug")
		case "slow":
			<-r.Context().Done()
		}
	})
	s := startH1(t, frontEnd(core, backend))
	declared, _ := siteFile.Render("http://gone.example")

	feeds := func(host string) int {
		resp, _ := s.do(t, "GET", "/feeds/x", "Host", host, "User-Agent", "ExampleCMSBot/1.0")
		return resp.StatusCode
	}
	if feeds("cms.example") != 200 {
		t.Error("ExampleCMSBot refused before the backend's file was merged")
	}
	for _, host := range []string{"cms.example", "gz.example"} {
		resp, body := s.do(t, "GET", "/robots.txt", "Host", host, "Cookie", "a=b", "If-None-Match", `"x"`)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Fatalf("%s: %d %s", host, resp.StatusCode, body)
		}
		for agent, paths := range map[string]map[string]bool{
			"Googlebot":     {"/wp-admin/x": false, "/drafts/x": false, "/feeds/x": true, "/a": true},
			"ExampleCMSBot": {"/feeds/x": false, "/a": true},
			"GPTBot":        {"/a": false},
		} {
			for p, allowed := range paths {
				if grobotstxt.AgentAllowed(string(body), agent, "http://"+host+p) != allowed {
					t.Errorf("%s: %s %s: want allowed %v in\n%s", host, agent, p, allowed, body)
				}
			}
		}
		if !strings.Contains(string(body), "Sitemap: http://"+host+"/sitemap.xml") {
			t.Errorf("%s: sitemap\n%s", host, body)
		}
		if feeds(host) != 403 {
			t.Errorf("%s: ExampleCMSBot not refused /feeds/ once the merge is served", host)
		}
		// The merge is cached: the same validator answers 304.
		resp2, _ := s.do(t, "GET", "/robots.txt", "Host", host, "If-None-Match", resp.Header.Get("Etag"))
		if resp2.StatusCode != 304 {
			t.Errorf("%s: cached merge revalidated with %d", host, resp2.StatusCode)
		}
	}
	if feeds("gone.example") != 200 {
		t.Error("another origin's merge enforced")
	}
	if l.count("debug", "backend's line 3 skipped or changed") < 1 {
		t.Errorf("debug:\n%s", l.all("debug"))
	}

	for host, warn := range map[string]string{"gone.example": "the backend answered 404, which means it has no rules", "html.example": "the backend answered with an HTML page"} {
		resp, body := s.do(t, "GET", "/robots.txt", "Host", host)
		want := strings.ReplaceAll(string(declared), "gone.example", host)
		if resp.StatusCode != 200 || string(body) != want {
			t.Errorf("%s: %d, want the declared file:\n%s", host, resp.StatusCode, body)
		}
		if l.count("warn", warn) != 1 {
			t.Errorf("%s: warnings:\n%s", host, l.all("warn"))
		}
	}

	for host, want := range map[string]string{
		"down.example":  "500 Internal Server Error: the backend answered 500 for robots.txt\n",
		"br.example":    "502 Bad Gateway: the backend's robots.txt has Content-Encoding \"br\", which is not read\n",
		"panic.example": "502 Bad Gateway: the backend answered 502 for robots.txt\n",
		"slow.example":  "504 Gateway Timeout: no robots.txt from the backend within 200ms\n",
	} {
		start := time.Now()
		_, body := s.do(t, "GET", "/robots.txt", "Host", host)
		if string(body) != want {
			t.Errorf("%s: %q, want %q", host, body, want)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: answered after %v", host, d)
		}
	}

	// Other methods are answered without asking the backend.
	resp, _ := s.do(t, "POST", "/robots.txt", "Host", "cms.example")
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}
