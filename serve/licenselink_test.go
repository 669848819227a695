package serve_test

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/sitepolicy/caddy-robots/internal/fixture"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/serve"
)

// TestLicenseLinkAbsolute: a route's license given as a path is sent, in the Link field and
// in the page's <link href>, as the absolute URL robots.txt's License line gives it for the
// same request (RSL 1.0 asks for absolute URLs): for hosts in any case, with a port, IPv6,
// over TLS or not, and for more origins than are cached. An absolute license is sent as
// given; a Host that is not a plain host[:port] gets the path as a relative reference.
func TestLicenseLinkAbsolute(t *testing.T) {
	cfg := policy.Config{
		RobotsTxt: &policy.RobotsTxt{Groups: []robotsgen.Group{{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/private/"}}}},
			Licenses: []string{"/license.xml", "https://rights.example.org/rsl.xml"}},
		RobotsTag: []policy.Route{{Paths: []string{"/articles/*"}, Tags: policy.Tags{Licenses: []string{"/license.xml", "https://rights.example.org/rsl.xml"}, Meta: true}}},
	}
	c := mustCore(t, cfg)
	const page = "<html><head><title>t</title></head><body>x</body></html>"
	html := serve.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) error {
		w.Header().Set("Content-Type", "text/html")
		_, err := io.WriteString(w, page)
		return err
	})
	hosts := []string{"example.com", "Example.COM:8443", "[::1]:8080", "127.0.0.1", "a-b.example_x~y"}
	for i := range 300 { // more than the origins cached
		hosts = append(hosts, fmt.Sprintf("h%d.example", i))
	}
	for i, host := range hosts {
		for _, secure := range []bool{false, true} {
			req := func(path string) *http.Request {
				r := httptest.NewRequest("GET", path, nil)
				r.Host = host
				if secure {
					r.TLS = &tls.ConnectionState{}
				}
				return r
			}
			rec := httptest.NewRecorder()
			if err := c.ServeRobotsTxt(rec, req("/robots.txt"), nil); err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, l := range strings.Split(rec.Body.String(), "\n") {
				if v, ok := strings.CutPrefix(l, "License: "); ok {
					want = append(want, v)
				}
			}
			rec = httptest.NewRecorder()
			if err := c.Tag(rec, req("/articles/a"), html); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range rec.Header().Values("Link") {
				links, ok := fixture.ParseLinks(f)
				if !ok {
					t.Fatalf("%s: Link %q does not parse", host, f)
				}
				for _, l := range links {
					if u, err := url.Parse(l.Target); err != nil || !u.IsAbs() {
						t.Fatalf("%s: Link target %q is not absolute", host, l.Target)
					}
					got = append(got, l.Target)
				}
			}
			head := headLicenseHrefs(t, rec.Body.Bytes())
			if len(want) != 2 || !slices.Equal(got, want) || !slices.Equal(head, want) {
				t.Fatalf("%s (TLS %v): Link targets %q, head %q; robots.txt's License lines %q", host, secure, got, head, want)
			}
			if i > 10 && !secure {
				break
			}
		}
	}
	// A Host no URL can hold as written: the path, relative, which its client resolves.
	for _, host := range []string{"a,b", "a b", `a"b`, ""} {
		r := httptest.NewRequest("GET", "/articles/a", nil)
		r.Host = host
		rec := httptest.NewRecorder()
		if err := c.Tag(rec, r, html); err != nil {
			t.Fatal(err)
		}
		if got := rec.Header().Values("Link"); len(got) != 2 || !strings.HasPrefix(got[0], "</license.xml>") {
			t.Errorf("Host %q: Link %q", host, got)
		}
	}
}

// headLicenseHrefs returns the href of each <link rel="license"> in the head, as x/net/html's
// parser reads the page.
func headLicenseHrefs(t *testing.T, body []byte) []string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(n *html.Node, inHead bool)
	walk = func(n *html.Node, inHead bool) {
		inHead = inHead || n.Type == html.ElementNode && n.Data == "head"
		if inHead && n.Type == html.ElementNode && n.Data == "link" {
			var rel, href string
			for _, a := range n.Attr {
				switch a.Key {
				case "rel":
					rel = a.Val
				case "href":
					href = a.Val
				}
			}
			if rel == "license" {
				out = append(out, href)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inHead)
		}
	}
	walk(doc, false)
	return out
}
