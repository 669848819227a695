package caddymodule

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// robotsSite uses every robots_txt sub-directive, with a placeholder, behind the directives that
// must not divert /robots.txt (rewrite, uri, try_files, method) and after header.
const robotsSite = `
http://localhost:@PORT@ {
	header X-Site-Wide yes
	rewrite /robots.txt /elsewhere
	uri replace robots nothing
	try_files {path} /fallback
	method /robots.txt PUT
	robots_txt {
		comment "Robots policy of the test site"
		comment second comment line
		sitemap /sitemap.xml
		sitemap https://cdn.example.com/news.xml
		sitemap {env.CADDY_ROBOTS_TEST_SITEMAP}
		record Host www.example.com
		group * {
			disallow /private/ /tmp/
			allow /private/press/
			crawl_delay 1.5
		}
		group GPTBot CCBot {
			user_agent Google-Extended
			disallow /
		}
		group {
			purpose EXAMPLE-PURPOSE-1
			disallow /articles/
		}
		group Bingbot {
			user_agent {env.CADDY_ROBOTS_TEST_AGENT}
			allow /
			record Clean-param "ref /articles/"
		}
		max_age 2h
	}
	respond "next handler: {http.request.method} {http.request.uri.path}" 200
}
`

func TestRobotsTxtServesConfiguredFile(t *testing.T) {
	t.Setenv("CADDY_ROBOTS_TEST_SITEMAP", "https://example.com/from-env.xml")
	t.Setenv("CADDY_ROBOTS_TEST_AGENT", "DuckDuckBot")
	startCaddyfile(t, robotsSite)

	resp, body := do(t, "GET", siteURL("/robots.txt"))
	wantStatus(t, resp, 200)
	text := string(body)
	for _, line := range []string{
		"# Robots policy of the test site\n",
		"# second comment line\n",
		fmt.Sprintf("Sitemap: http://localhost:%d/sitemap.xml\n", sitePort), // path resolved against the request
		"Sitemap: https://cdn.example.com/news.xml\n",
		"Sitemap: https://example.com/from-env.xml\n", // {env.*} replaced at provision
		"Host: www.example.com\n",
		"User-agent: *\nDisallow: /private/\nDisallow: /tmp/\nAllow: /private/press/\nCrawl-delay: 1.5\n",
		"User-agent: GPTBot\nUser-agent: CCBot\nUser-agent: Google-Extended\nDisallow: /\n",
		"User-Agent-Purpose: EXAMPLE-PURPOSE-1\nDisallow: /articles/\n",
		"User-agent: Bingbot\nUser-agent: DuckDuckBot\nAllow: /\nClean-param: ref /articles/\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("robots.txt lacks %q; got:\n%s", line, text)
		}
	}

	// What crawlers read back is what the Caddyfile says.
	f, diags := robotsgen.Parse(body)
	if len(diags) > 0 {
		t.Errorf("robots.txt has lines a parser skips: %v", diags)
	}
	m := robotsgen.NewMatcher(f)
	for _, c := range []struct {
		agent, purpose, path string
		allowed              bool
	}{
		{"GPTBot", "", "/", false},
		{"google-extended", "", "/articles/x", false},
		{"SomeBot", "", "/private/x", false},
		{"SomeBot", "", "/private/press/release", true},
		{"SomeBot", "", "/articles/x", true},
		{"", "EXAMPLE-PURPOSE-1", "/articles/x", false},
		{"DuckDuckBot", "", "/private/x", true},
	} {
		if d := m.Decide(c.agent, c.purpose, c.path); d.Allowed != c.allowed {
			t.Errorf("Decide(%q, %q, %q) = %v, want %v", c.agent, c.purpose, c.path, d.Allowed, c.allowed)
		}
	}

	// Headers: the core's, plus the site-wide header directive's.
	h := resp.Header
	if got := h.Get("Content-Type"); got != "text/plain; charset=utf-8" {
		t.Errorf("Content-Type %q", got)
	}
	if got := h.Get("Content-Length"); got != strconv.Itoa(len(body)) {
		t.Errorf("Content-Length %q, body has %d bytes", got, len(body))
	}
	if got := h.Get("Cache-Control"); got != "max-age=7200" {
		t.Errorf("Cache-Control %q, want max-age=7200 (max_age 2h)", got)
	}
	etag := h.Get("Etag")
	if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) || len(etag) < 3 {
		t.Errorf("ETag %q is not a strong entity tag", etag)
	}
	lm, err := http.ParseTime(h.Get("Last-Modified"))
	if err != nil || time.Since(lm) > time.Hour || time.Until(lm) > time.Minute {
		t.Errorf("Last-Modified %q: %v", h.Get("Last-Modified"), err)
	}
	if h.Get("X-Site-Wide") != "yes" {
		t.Errorf("the site-wide header directive did not apply to robots.txt: %v", h)
	}

	// A query string does not matter; the path must be exactly /robots.txt.
	resp2, body2 := do(t, "GET", siteURL("/robots.txt?x=1"))
	wantStatus(t, resp2, 200)
	if string(body2) != text {
		t.Errorf("robots.txt?x=1 differs from robots.txt")
	}

	// HEAD: the same headers, no body.
	hresp, hbody := do(t, "HEAD", siteURL("/robots.txt"))
	wantStatus(t, hresp, 200)
	if len(hbody) != 0 || hresp.Header.Get("Content-Length") != strconv.Itoa(len(body)) || hresp.Header.Get("Etag") != etag {
		t.Errorf("HEAD: body %q, Content-Length %q, ETag %q", hbody, hresp.Header.Get("Content-Length"), hresp.Header.Get("Etag"))
	}

	// Conditional requests.
	nm, nmBody := do(t, "GET", siteURL("/robots.txt"), "If-None-Match: "+etag)
	wantStatus(t, nm, http.StatusNotModified)
	if len(nmBody) != 0 || nm.Header.Get("Etag") != etag {
		t.Errorf("304: body %q, ETag %q", nmBody, nm.Header.Get("Etag"))
	}
	weak, _ := do(t, "GET", siteURL("/robots.txt"), `If-None-Match: "other", W/`+etag)
	wantStatus(t, weak, http.StatusNotModified)
	ims, _ := do(t, "GET", siteURL("/robots.txt"), "If-Modified-Since: "+h.Get("Last-Modified"))
	wantStatus(t, ims, http.StatusNotModified)
	miss, _ := do(t, "GET", siteURL("/robots.txt"), `If-None-Match: "nope"`)
	wantStatus(t, miss, 200)

	// Other methods: 405 with Allow.
	for _, method := range []string{"POST", "PUT", "DELETE", "OPTIONS"} {
		r, _ := do(t, method, siteURL("/robots.txt"))
		wantStatus(t, r, http.StatusMethodNotAllowed)
		if got := r.Header.Get("Allow"); got != "GET, HEAD" {
			t.Errorf("%s: Allow %q", method, got)
		}
	}

	// Every other request goes to the next handler untouched (through the site's rewrite).
	for _, path := range []string{"/", "/ROBOTS.TXT", "/robots.txt/", "/sub/robots.txt"} {
		r, b := do(t, "GET", siteURL(path))
		wantStatus(t, r, 200)
		if !strings.HasPrefix(string(b), "next handler: ") {
			t.Errorf("%s: body %q, want the next handler's", path, b)
		}
		if r.Header.Get("Cache-Control") != "" || r.Header.Get("Etag") != "" {
			t.Errorf("%s: robots.txt headers leaked into another response: %v", path, r.Header)
		}
	}
}

// TestRobotsTxtPerHost checks that sitemap paths are resolved against each request's host and
// that a file without a block is an empty robots.txt with the default max-age.
func TestRobotsTxtPerHost(t *testing.T) {
	startCaddyfile(t, `
http://:@PORT@ {
	robots_txt /robots.txt {
		sitemap /maps/sitemap.xml
	}
}
http://localhost:@PORT2@ {
	robots_txt
}
`)
	for _, host := range []string{"a.example", "b.example:8443", "localhost"} {
		resp, body := do(t, "GET", siteURL("/robots.txt"), "Host: "+host)
		wantStatus(t, resp, 200)
		want := "Sitemap: http://" + host + "/maps/sitemap.xml\n"
		if !strings.Contains(string(body), want) {
			t.Errorf("Host %s: body %q, want a line %q", host, body, want)
		}
		if got := resp.Header.Get("Content-Length"); got != strconv.Itoa(len(body)) {
			t.Errorf("Host %s: Content-Length %q for %d bytes", host, got, len(body))
		}
	}
	a, _ := do(t, "GET", siteURL("/robots.txt"), "Host: a.example")
	b, _ := do(t, "GET", siteURL("/robots.txt"), "Host: b.example")
	if a.Header.Get("Etag") == b.Header.Get("Etag") {
		t.Errorf("different bodies share the ETag %s", a.Header.Get("Etag"))
	}

	resp, body := do(t, "GET", site2URL("/robots.txt"))
	wantStatus(t, resp, 200)
	if len(body) != 0 || resp.Header.Get("Content-Length") != "0" {
		t.Errorf("robots_txt without a block: body %q, Content-Length %q; want an empty file", body, resp.Header.Get("Content-Length"))
	}
	if got := resp.Header.Get("Cache-Control"); got != "max-age=3600" {
		t.Errorf("default Cache-Control %q, want max-age=3600", got)
	}
}

// TestRobotsTxtRedirFirst checks the documented order: a redir the site configures applies
// to /robots.txt before robots_txt answers.
func TestRobotsTxtRedirFirst(t *testing.T) {
	startCaddyfile(t, `
http://localhost:@PORT@ {
	robots_txt {
		group * {
			disallow /
		}
	}
	redir /robots.txt https://www.example.com/robots.txt 301
}
http://localhost:@PORT2@ {
	robots_txt {
		group * {
			disallow /
		}
	}
	redir /old /new
}
`)
	resp, _ := do(t, "GET", siteURL("/robots.txt"))
	wantStatus(t, resp, http.StatusMovedPermanently)
	if got := resp.Header.Get("Location"); got != "https://www.example.com/robots.txt" {
		t.Errorf("Location %q", got)
	}
	resp2, body2 := do(t, "GET", site2URL("/robots.txt"))
	wantStatus(t, resp2, 200)
	if !strings.Contains(string(body2), "Disallow: /\n") {
		t.Errorf("body %q", body2)
	}
}

// TestRobotsTxtMethodNotAllowedThroughHandleErrors: a request for /robots.txt with another
// method than GET or HEAD is a 405 that goes through Caddy's error handling, as file_server's
// does, so a site's handle_errors answers it, and the Allow header stays.
func TestRobotsTxtMethodNotAllowedThroughHandleErrors(t *testing.T) {
	startCaddyfile(t, `
http://localhost:@PORT@ {
	robots_txt {
		group * {
			disallow /
		}
	}
	handle_errors {
		respond "site error page: {err.status_code}"
	}
}
http://localhost:@PORT2@ {
	robots_txt
}
`)
	for _, method := range []string{"POST", "PUT", "DELETE"} {
		resp, body := do(t, method, siteURL("/robots.txt"))
		wantStatus(t, resp, http.StatusMethodNotAllowed)
		if string(body) != "site error page: 405" {
			t.Errorf("%s: body %q, want the site's handle_errors page", method, body)
		}
		if got := resp.Header.Get("Allow"); got != "GET, HEAD" {
			t.Errorf("%s: Allow %q", method, got)
		}
	}
	// Without handle_errors, the text body nethttp sends (Caddy's default error response has
	// none, which would not say why), Allow kept.
	resp, body := do(t, "POST", site2URL("/robots.txt"))
	wantStatus(t, resp, http.StatusMethodNotAllowed)
	if got := resp.Header.Get("Allow"); got != "GET, HEAD" {
		t.Errorf("no handle_errors: Allow %q", got)
	}
	if want := "405 Method Not Allowed: robots.txt answers GET and HEAD\n"; string(body) != want {
		t.Errorf("no handle_errors: body %q, want %q", body, want)
	}
}
