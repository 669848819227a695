package nethttp_test

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

var siteRobots = &nethttp.RobotsTxtConfig{
	Groups: []robotsgen.Group{
		{UserAgents: []string{"GPTBot", "CCBot"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/"}}},
		{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/drafts/"}}},
	},
	Sitemaps: []string{"/sitemap.xml"},
}

// siteFile is the file siteRobots describes, for comparing what is served.
var siteFile = robotsgen.File{Groups: siteRobots.Groups, Sitemaps: siteRobots.Sitemaps}

func TestRobotsTxtOverLoopback(t *testing.T) {
	m := mustNew(t, nethttp.Config{RobotsTxt: siteRobots})
	nextCalled := false
	srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nextCalled = true
		_, _ = io.WriteString(w, "app")
	}))

	resp, body := get(t, nil, "GET", srv.URL+"/robots.txt")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if nextCalled {
		t.Fatal("robots.txt request reached the wrapped handler")
	}
	want, err := siteFile.Render(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, want) {
		t.Fatalf("body:\n%s\nwant:\n%s", body, want)
	}
	if !strings.Contains(string(body), "Sitemap: "+srv.URL+"/sitemap.xml") {
		t.Fatalf("sitemap path not resolved against the request origin:\n%s", body)
	}
	for k, v := range map[string]string{
		"Content-Type":   "text/plain; charset=utf-8",
		"Content-Length": strconv.Itoa(len(want)),
		"Cache-Control":  "max-age=3600",
	} {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	etag := resp.Header.Get("Etag")
	if !strings.HasPrefix(etag, `"`) || resp.Header.Get("Last-Modified") == "" {
		t.Fatalf("want a strong ETag and Last-Modified, got %q %q", etag, resp.Header.Get("Last-Modified"))
	}

	// Conditional requests.
	resp, body = get(t, nil, "GET", srv.URL+"/robots.txt", "If-None-Match", etag)
	if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
		t.Fatalf("If-None-Match: status %d, %d body bytes", resp.StatusCode, len(body))
	}
	resp, _ = get(t, nil, "GET", srv.URL+"/robots.txt", "If-None-Match", `"other", W/`+etag)
	if resp.StatusCode != http.StatusNotModified {
		t.Fatalf("weak comparison in a list: status %d", resp.StatusCode)
	}
	resp, _ = get(t, nil, "GET", srv.URL+"/robots.txt", "If-None-Match", `"other"`)
	if resp.StatusCode != 200 {
		t.Fatalf("non-matching If-None-Match: status %d", resp.StatusCode)
	}
	resp, _ = get(t, nil, "GET", srv.URL+"/robots.txt", "If-Modified-Since", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
	if resp.StatusCode != http.StatusNotModified {
		t.Fatalf("If-Modified-Since: status %d", resp.StatusCode)
	}

	// HEAD: headers, no body.
	resp, body = get(t, nil, "HEAD", srv.URL+"/robots.txt")
	if resp.StatusCode != 200 || len(body) != 0 || resp.Header.Get("Content-Length") != strconv.Itoa(len(want)) {
		t.Fatalf("HEAD: status %d, body %d bytes, Content-Length %q", resp.StatusCode, len(body), resp.Header.Get("Content-Length"))
	}

	// Other methods: 405 with Allow.
	resp, _ = get(t, nil, "POST", srv.URL+"/robots.txt")
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Fatalf("POST: status %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}

	// Only the exact path.
	for _, p := range []string{"/robots.txt/", "/ROBOTS.TXT", "/x/robots.txt"} {
		nextCalled = false
		_, body = get(t, nil, "GET", srv.URL+p)
		if !nextCalled || string(body) != "app" {
			t.Errorf("%s: want the wrapped handler, got %q", p, body)
		}
	}
}

// TestRobotsTxtPerOrigin checks that sitemap paths resolve against each request's own host.
func TestRobotsTxtPerOrigin(t *testing.T) {
	m := mustNew(t, nethttp.Config{RobotsTxt: siteRobots})
	srv := serve(t, m, http.NotFoundHandler())
	for _, host := range []string{"a.example", "b.example:8443"} {
		req, _ := http.NewRequest("GET", srv.URL+"/robots.txt", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), "Sitemap: http://"+host+"/sitemap.xml\n") {
			t.Errorf("host %s: body\n%s", host, body)
		}
	}
}
