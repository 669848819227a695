package serve_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jimsmart/grobotstxt"

	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

var siteRobots = &policy.RobotsTxt{
	Groups: []robotsgen.Group{
		{UserAgents: []string{"GPTBot", "CCBot"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/"}}},
		{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/drafts/"}}},
	},
	Sitemaps: []string{"/sitemap.xml"},
}

// siteFile is the file siteRobots describes, for comparing what is served.
var siteFile = robotsgen.File{Groups: siteRobots.Groups, Sitemaps: siteRobots.Sitemaps}

// TestRobotsTxtOverLoopback: GET and HEAD of exactly /robots.txt get the file with its
// headers (the wrapped handler is not asked), conditional requests get 304, other methods
// 405 with Allow; over HTTP/1.1 and HTTP/2; Google's parser reads the file as configured.
func TestRobotsTxtOverLoopback(t *testing.T) {
	core := mustCore(t, policy.Config{RobotsTxt: siteRobots})
	var nextCalled atomic.Bool
	h := frontEnd(core, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nextCalled.Store(true)
		_, _ = io.WriteString(w, "app")
	}))
	for _, s := range both(t, h) {
		nextCalled.Store(false)
		resp, body := s.do(t, "GET", "/robots.txt")
		if resp.StatusCode != 200 {
			t.Fatalf("%s: status %d", s.name, resp.StatusCode)
		}
		if nextCalled.Load() {
			t.Fatalf("%s: robots.txt request reached the wrapped handler", s.name)
		}
		want, err := siteFile.Render(s.url)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(body, want) {
			t.Fatalf("%s: body:\n%s\nwant:\n%s", s.name, body, want)
		}
		if !strings.Contains(string(body), "Sitemap: "+s.url+"/sitemap.xml") {
			t.Fatalf("%s: sitemap path not resolved against the request origin:\n%s", s.name, body)
		}
		for agent, allowed := range map[string]bool{"GPTBot": false, "CCBot": false, "Googlebot": true} {
			if g := grobotstxt.AgentAllowed(string(body), agent, s.url+"/article"); g != allowed {
				t.Errorf("%s: Google's parser: %s on /article allowed %v", s.name, agent, g)
			}
		}
		if grobotstxt.AgentAllowed(string(body), "Googlebot", s.url+"/drafts/x") {
			t.Errorf("%s: Google's parser: Googlebot may read /drafts/x", s.name)
		}
		if got := grobotstxt.Sitemaps(string(body)); len(got) != 1 || got[0] != s.url+"/sitemap.xml" {
			t.Errorf("%s: Google's parser reads the sitemaps %q", s.name, got)
		}
		for k, v := range map[string]string{
			"Content-Type":   "text/plain; charset=utf-8",
			"Content-Length": strconv.Itoa(len(want)),
			"Cache-Control":  "max-age=3600",
		} {
			if got := resp.Header.Get(k); got != v {
				t.Errorf("%s: %s = %q, want %q", s.name, k, got, v)
			}
		}
		etag, lm := resp.Header.Get("Etag"), resp.Header.Get("Last-Modified")
		if !strings.HasPrefix(etag, `"`) || lm == "" {
			t.Fatalf("%s: want a strong ETag and Last-Modified, got %q %q", s.name, etag, lm)
		}
		if _, err := http.ParseTime(lm); err != nil {
			t.Errorf("%s: Last-Modified %q: %v", s.name, lm, err)
		}

		// Conditional requests: If-None-Match (weak comparison, lists, *) takes precedence over
		// If-Modified-Since.
		future := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
		past := time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)
		for _, c := range []struct {
			hdr  []string
			want int
		}{
			{[]string{"If-None-Match", etag}, 304},
			{[]string{"If-None-Match", `"other", W/` + etag}, 304},
			{[]string{"If-None-Match", `"a",,` + etag}, 304},
			{[]string{"If-None-Match", "*"}, 304},
			{[]string{"If-None-Match", `"other"`, "If-None-Match", etag}, 304},
			{[]string{"If-None-Match", `"other"`}, 200},
			{[]string{"If-None-Match", "garbage, " + etag}, 200}, // malformed: never a match
			{[]string{"If-None-Match", `"unterminated`}, 200},
			{[]string{"If-None-Match", `W/`}, 200},
			{[]string{"If-None-Match", `"other"`, "If-Modified-Since", future}, 200},
			{[]string{"If-Modified-Since", future}, 304},
			{[]string{"If-Modified-Since", lm}, 304},
			{[]string{"If-Modified-Since", past}, 200},
			{[]string{"If-Modified-Since", "yesterday"}, 200},
		} {
			resp, body := s.do(t, "GET", "/robots.txt", c.hdr...)
			if resp.StatusCode != c.want {
				t.Errorf("%s %q: status %d, want %d", s.name, c.hdr, resp.StatusCode, c.want)
			}
			if c.want == 304 && (len(body) != 0 || resp.Header.Get("Etag") != etag || resp.Header.Get("Cache-Control") != "max-age=3600") {
				t.Errorf("%s %q: 304 with %d body bytes, ETag %q, Cache-Control %q", s.name, c.hdr, len(body), resp.Header.Get("Etag"), resp.Header.Get("Cache-Control"))
			}
		}

		// HEAD: headers, no body.
		resp, body = s.do(t, "HEAD", "/robots.txt")
		if resp.StatusCode != 200 || len(body) != 0 || resp.Header.Get("Content-Length") != strconv.Itoa(len(want)) || resp.Header.Get("Etag") != etag {
			t.Fatalf("%s: HEAD: status %d, body %d bytes, Content-Length %q", s.name, resp.StatusCode, len(body), resp.Header.Get("Content-Length"))
		}

		// Other methods: 405 with Allow, and WriteError's text.
		for _, m := range []string{"POST", "PUT", "DELETE", "OPTIONS"} {
			resp, body = s.do(t, m, "/robots.txt")
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
				t.Fatalf("%s %s: status %d, Allow %q", s.name, m, resp.StatusCode, resp.Header.Get("Allow"))
			}
			if string(body) != "405 Method Not Allowed: robots.txt answers GET and HEAD\n" {
				t.Errorf("%s %s: body %q", s.name, m, body)
			}
		}

		// Only the exact path.
		for _, p := range []string{"/robots.txt/", "/ROBOTS.TXT", "/x/robots.txt", "/robots.txt.bak"} {
			nextCalled.Store(false)
			_, body = s.do(t, "GET", p)
			if !nextCalled.Load() || string(body) != "app" {
				t.Errorf("%s %s: want the wrapped handler, got %q", s.name, p, body)
			}
		}
	}
}

// TestRobotsTxtPerOrigin: sitemap paths resolve against each request's own scheme and host
// (HTTP/2 requests are https), and each origin's file has its own validator; far more hosts
// than the cache keeps are still each served their own file.
func TestRobotsTxtPerOrigin(t *testing.T) {
	core := mustCore(t, policy.Config{RobotsTxt: siteRobots})
	h := frontEnd(core, http.NotFoundHandler())
	for _, s := range both(t, h) {
		scheme := "http"
		if s.name == "h2" {
			scheme = "https"
		}
		etags := map[string]string{}
		for _, host := range []string{"a.example", "b.example:8443", "A.Example"} {
			resp, body := s.do(t, "GET", "/robots.txt", "Host", host)
			if want := "Sitemap: " + scheme + "://" + strings.ToLower(host) + "/sitemap.xml\n"; !strings.Contains(string(body), want) {
				t.Errorf("%s host %s: body\n%s", s.name, host, body)
			}
			etags[strings.ToLower(host)] = resp.Header.Get("Etag")
		}
		if len(etags) != 2 || etags["a.example"] == etags["b.example:8443"] {
			t.Errorf("%s: ETags per origin %v", s.name, etags)
		}
	}
	s := startH1(t, h)
	for i := range 300 {
		host := "h" + strconv.Itoa(i) + ".example"
		_, body := s.do(t, "GET", "/robots.txt", "Host", host)
		if !strings.Contains(string(body), "Sitemap: http://"+host+"/sitemap.xml\n") {
			t.Fatalf("host %s: body\n%s", host, body)
		}
	}
}

// TestRobotsTxtFixedBody: a file with no sitemap by path is the same for every origin, with
// the max_age configured.
func TestRobotsTxtFixedBody(t *testing.T) {
	core := mustCore(t, policy.Config{RobotsTxt: &policy.RobotsTxt{
		Comments: []string{"hello"},
		Groups:   []robotsgen.Group{{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/private/"}}}},
		Sitemaps: []string{"https://cdn.example/sitemap.xml"},
		MaxAge:   policy.Duration(90 * time.Second),
	}})
	var bodies []string
	for _, s := range both(t, frontEnd(core, http.NotFoundHandler())) {
		for _, host := range []string{"a.example", "b.example"} {
			resp, body := s.do(t, "GET", "/robots.txt", "Host", host)
			if resp.Header.Get("Cache-Control") != "max-age=90" {
				t.Errorf("Cache-Control %q", resp.Header.Get("Cache-Control"))
			}
			bodies = append(bodies, resp.Header.Get("Etag")+"\n"+string(body))
		}
	}
	for _, b := range bodies[1:] {
		if b != bodies[0] {
			t.Fatalf("bodies differ:\n%s\n%s", bodies[0], b)
		}
	}
	if !strings.Contains(bodies[0], "# hello\n") || grobotstxt.AgentAllowed(bodies[0], "Googlebot", "https://a.example/private/x") {
		t.Errorf("body %s", bodies[0])
	}
}

// TestRobotsTxtNoHost: with sitemaps by path, a request without a usable Host (HTTP/1.0
// without the header) is answered 400 with WriteError's text; a fixed file needs no Host.
func TestRobotsTxtNoHost(t *testing.T) {
	raw := func(h http.Handler) (int, string) {
		t.Helper()
		srv := httptest.NewServer(h)
		defer srv.Close()
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_, _ = io.WriteString(conn, "GET /robots.txt HTTP/1.0\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	code, body := raw(frontEnd(mustCore(t, policy.Config{RobotsTxt: siteRobots}), http.NotFoundHandler()))
	if code != 400 || body != "400 Bad Request: the request has no Host, which the sitemap paths need\n" {
		t.Errorf("sitemap by path, no Host: %d %q", code, body)
	}
	fixed := &policy.RobotsTxt{Groups: siteRobots.Groups}
	code, body = raw(frontEnd(mustCore(t, policy.Config{RobotsTxt: fixed}), http.NotFoundHandler()))
	ff := fixed.File()
	want, err := ff.Render("")
	if err != nil {
		t.Fatal(err)
	}
	if code != 200 || body != string(want) {
		t.Errorf("fixed file, no Host: %d %q", code, body)
	}
}

// TestIsRobotsTxt: only a Core with robots_txt answers /robots.txt, and only that path.
func TestIsRobotsTxt(t *testing.T) {
	withFile := mustCore(t, policy.Config{RobotsTxt: siteRobots})
	tagsOnly := mustCore(t, metaConfig)
	for _, c := range []struct {
		path string
		want bool
	}{{"/robots.txt", true}, {"/robots.txt?x=1", true}, {"/Robots.txt", false}, {"/robots.txt/", false}, {"/", false}} {
		r := httptest.NewRequest("GET", c.path, nil)
		if got := withFile.IsRobotsTxt(r); got != c.want {
			t.Errorf("%s: IsRobotsTxt %v", c.path, got)
		}
		if tagsOnly.IsRobotsTxt(r) {
			t.Errorf("%s: a Core without robots_txt answers it", c.path)
		}
	}
}
