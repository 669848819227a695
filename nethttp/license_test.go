package nethttp_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/internal/fixture"
	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/rsl"
)

// licenseConfig declares RSL licenses in robots.txt (a path and another host's URL) and per
// route, with and without meta.
const licenseConfig = `{
  "robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/private/"}]}],
    "sitemaps": ["/sitemap.xml"],
    "licenses": ["/license.xml", "https://rights.example.org/rsl.xml"]},
  "robots_tag": [
    {"paths": ["/articles/*"], "rules": {"*": ["noindex"]}, "meta": true, "licenses": ["/license.xml"]},
    {"paths": ["/articles/paid/*", "/data/*"], "licenses": ["https://rights.example.org/rsl.xml"]}
  ]
}`

// licenseLinks returns the license links of a response's Link fields, read by the
// independent RFC 8288 reader, failing on a field it cannot read.
func licenseLinks(t *testing.T, fields []string) (all []fixture.Link, licenses []string) {
	t.Helper()
	for _, f := range fields {
		links, ok := fixture.ParseLinks(f)
		if !ok {
			t.Fatalf("Link %q does not parse", f)
		}
		all = append(all, links...)
		for _, l := range links {
			if l.IsLicense() {
				licenses = append(licenses, l.Target)
			}
		}
	}
	return all, licenses
}

// headLicenseLinks returns the hrefs of <link rel="license"> elements in the head, as a full
// HTML parser reads the page.
func headLicenseLinks(t *testing.T, body []byte) []string {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(n *html.Node, inHead bool)
	walk = func(n *html.Node, inHead bool) {
		if n.Type == html.ElementNode && n.Data == "head" {
			inHead = true
		}
		if inHead && n.Type == html.ElementNode && n.Data == "link" {
			var rel, href, typ string
			for _, a := range n.Attr {
				switch a.Key {
				case "rel":
					rel = a.Val
				case "href":
					href = a.Val
				case "type":
					typ = a.Val
				}
			}
			if rel == "license" {
				if typ != rsl.MediaType && typ != "" {
					t.Errorf("link type %q", typ)
				}
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

// TestLicensesOverLoopback: robots.txt has a License line per declared license, resolved
// against the request's origin as the sitemap is; each route sends its licenses as Link
// values (RSL's rel and type), after the handler's own Link lines, never repeating a license
// the handler links already; with meta, HTML pages get <link rel="license"> in the head, not
// repeated when the page has it. Over HTTP/1.1 and HTTP/2.
func TestLicensesOverLoopback(t *testing.T) {
	m, err := nethttp.NewFromJSON([]byte(licenseConfig), nethttp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var backendLink []string
	var page string
	h := m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if backendLink != nil {
			w.Header()["Link"] = backendLink
		}
		if page != "" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = io.WriteString(w, page)
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	for _, h2 := range []bool{false, true} {
		srv, c := loopback(t, h, h2)

		backendLink, page = nil, ""
		resp, body := get(t, c, "GET", srv.URL+"/robots.txt")
		if h2 && resp.ProtoMajor != 2 {
			t.Fatalf("proto %s", resp.Proto)
		}
		want := "Sitemap: " + srv.URL + "/sitemap.xml\nLicense: " + srv.URL + "/license.xml\nLicense: https://rights.example.org/rsl.xml\n\nUser-agent: *\nDisallow: /private/\n"
		if string(body) != want {
			t.Fatalf("robots.txt\n%s\nwant\n%s", body, want)
		}

		// A path license is sent as its URL on the request's origin (RSL 1.0: absolute).
		self := srv.URL + "/license.xml"
		const other = "https://rights.example.org/rsl.xml"
		for _, c2 := range []struct {
			path    string
			backend []string
			page    string
			want    []string // license targets in the Link fields, in order
			head    []string // license hrefs in the page's head
		}{
			{path: "/", want: nil},
			{path: "/articles/a", want: []string{self}},
			{path: "/articles/paid/a", want: []string{self, other}},
			{path: "/data/x.csv", want: []string{other}},
			// The handler's links come first and stay as sent; a license it links already,
			// by path or by this origin's URL, is not repeated.
			{path: "/articles/a", backend: []string{`</style.css>; rel=preload; as=style`}, want: []string{self}},
			{path: "/articles/a", backend: []string{`</license.xml>; rel="license"`}, want: []string{"/license.xml"}},
			{path: "/articles/paid/a", backend: []string{`</a>; rel="next", <` + srv.URL + `/license.xml>; rel="alternate license"`}, want: []string{self, other}},
			{path: "/articles/paid/a", backend: []string{`<https://rights.example.org/rsl.xml>; rel=license; type="application/rsl+xml"`, `</x>; rel=prev`}, want: []string{other, self}},
			// A license link to another document of the handler's is kept beside ours.
			{path: "/data/x.csv", backend: []string{`</terms.xml>; rel="license"`}, want: []string{"/terms.xml", other}},
			// HTML: the head gets the route's license links, not one the page has.
			{path: "/articles/p", page: "<!doctype html><html><head><title>t</title></head><body>x</body></html>", want: []string{self}, head: []string{self}},
			{path: "/articles/paid/p", page: "<!doctype html><html><head><title>t</title></head><body>x</body></html>", want: []string{self, other}, head: []string{self, other}},
			{path: "/articles/paid/p", page: `<html><head><link rel="license" href="https://rights.example.org/rsl.xml"></head><body>x</body></html>`, want: []string{self, other}, head: []string{self, other}},
			// No meta on /data/: the page is left as it is.
			{path: "/data/p", page: "<html><head></head><body>x</body></html>", want: []string{other}, head: nil},
		} {
			backendLink, page = c2.backend, c2.page
			resp, body := get(t, c, "GET", srv.URL+c2.path)
			all, got := licenseLinks(t, resp.Header.Values("Link"))
			if !slices.Equal(got, c2.want) {
				t.Errorf("h2=%v %s with %q: license links %q, want %q", h2, c2.path, c2.backend, got, c2.want)
			}
			// Every link the handler sent is still there, unchanged.
			for _, f := range c2.backend {
				if !slices.Contains(resp.Header.Values("Link"), f) {
					t.Errorf("h2=%v %s: the handler's Link %q lost: %q", h2, c2.path, f, resp.Header.Values("Link"))
				}
			}
			backendLinks := strings.Join(c2.backend, ",")
			for _, l := range all {
				if l.IsLicense() && !strings.Contains(backendLinks, "<"+l.Target+">") && l.Params["type"] != rsl.MediaType {
					t.Errorf("h2=%v %s: license link %q without RSL's type", h2, c2.path, l.Target)
				}
			}
			if c2.page != "" {
				// The page's own link to the same license stays where it is, after ours.
				if head := headLicenseLinks(t, body); !slices.Equal(head, c2.head) {
					t.Errorf("h2=%v %s: head license links %q, want %q\n%s", h2, c2.path, head, c2.head, body)
				}
				if c2.head == nil && string(body) != c2.page {
					t.Errorf("h2=%v %s: page changed without meta:\n%s", h2, c2.path, body)
				}
			}
		}
	}
}

// TestLicenseConfigErrors: bad license values are refused at load, named by their field path.
func TestLicenseConfigErrors(t *testing.T) {
	for _, c := range []struct{ json, path string }{
		{`{"robots_txt": {"licenses": ["license.xml"]}}`, "robots_txt.licenses[0]"},
		{`{"robots_txt": {"licenses": ["/ok.xml", "https://x.example/a\u0001"]}}`, "robots_txt.licenses[1]"},
		{`{"robots_tag": [{"licenses": ["rel/l.xml"]}]}`, "robots_tag[0].licenses[0]"},
		{`{"robots_tag": [{"licenses": ["/l.xml>; rel=next"]}]}`, "robots_tag[0].licenses[0]"},
		{`{"robots_tag": [{"licenses": ["/l.xml"], "x_robots_tag": true}]}`, "robots_tag[0].x_robots_tag"},
	} {
		_, err := nethttp.NewFromJSON([]byte(c.json), nethttp.Options{})
		var ce *configerr.Error
		if !errors.As(err, &ce) || ce.Path != c.path {
			t.Errorf("%s: %v, want an error at %s", c.json, err, c.path)
		}
	}
	// Licenses alone make a route, with meta too.
	if _, err := nethttp.NewFromJSON([]byte(`{"robots_tag": [{"licenses": ["/l.xml"], "meta": true}]}`), nethttp.Options{}); err != nil {
		t.Errorf("license-only route: %v", err)
	}
}

// documentConfig serves an RSL document at /license.xml, announced in robots.txt beside a
// license URL of another host's.
const documentConfig = `{
  "robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/private/"}]},
      {"user_agents": ["GPTBot"], "rules": [{"type": "disallow", "path": "/"}]}],
    "licenses": ["https://rights.example.org/rsl.xml"],
    "max_age": "2h",
    "license_documents": [{"path": "/license.xml", "content": [
      {"url": "/", "permits": ["search", "ai-index"], "prohibits": ["ai-train"],
       "payment": {"type": "attribution", "custom": "mailto:licensing@example.com"}},
      {"url": "/data/*", "permits": ["all"], "payment": {"type": "free"}}]}],
    "enforce": {}},
  "robots_tag": [{"paths": ["/articles/*"], "licenses": ["/license.xml"]}]
}`

// TestLicenseDocumentOverLoopback: the document is served at its path, with RSL's media type,
// robots.txt's cache headers and validators, the structure the specification lists, and its
// URL on the request's origin in robots.txt; enforcement never refuses it.
func TestLicenseDocumentOverLoopback(t *testing.T) {
	m, err := nethttp.NewFromJSON([]byte(documentConfig), nethttp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "backend") }))
	_, body := get(t, nil, "GET", srv.URL+"/robots.txt")
	if want := "License: https://rights.example.org/rsl.xml\nLicense: " + srv.URL + "/license.xml\n"; !strings.HasPrefix(string(body), want) {
		t.Fatalf("robots.txt\n%s\nwant it to start with\n%s", body, want)
	}
	resp, body := get(t, nil, "GET", srv.URL+"/license.xml", "User-Agent", "GPTBot/1.0")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != rsl.MediaType || resp.Header.Get("Cache-Control") != "max-age=7200" || resp.Header.Get("Etag") == "" {
		t.Fatalf("document: %d %v", resp.StatusCode, resp.Header)
	}
	if err := fixture.RSLStructure(body); err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	for _, want := range []string{`<content url="/">`, `<permits type="usage">search ai-index</permits>`, `<prohibits type="usage">ai-train</prohibits>`, `<payment type="attribution">`, `<custom>mailto:licensing@example.com</custom>`, `<content url="/data/*">`, `<payment type="free"/>`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("document lacks %s:\n%s", want, body)
		}
	}
	resp, _ = get(t, nil, "GET", srv.URL+"/license.xml", "If-None-Match", resp.Header.Get("Etag"))
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("conditional GET: %d", resp.StatusCode)
	}
	if resp, body = get(t, nil, "HEAD", srv.URL+"/license.xml"); resp.StatusCode != 200 || len(body) != 0 || resp.Header.Get("Content-Length") == "" {
		t.Errorf("HEAD: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	if resp, _ = get(t, nil, "POST", srv.URL+"/license.xml"); resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d %v", resp.StatusCode, resp.Header)
	}
	// Enforcement refuses GPTBot everything else.
	if resp, _ = get(t, nil, "GET", srv.URL+"/articles/a", "User-Agent", "GPTBot/1.0"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("GPTBot elsewhere: %d", resp.StatusCode)
	}
	// The route links the served document.
	if resp, _ = get(t, nil, "GET", srv.URL+"/articles/a"); resp.Header.Get("Link") != rsl.LinkValue(srv.URL+"/license.xml") {
		t.Errorf("route Link %q", resp.Header.Values("Link"))
	}
	// A bad document is refused at load, by field path.
	_, err = nethttp.NewFromJSON([]byte(`{"robots_txt": {"license_documents": [{"path": "/l.xml", "content": [{"url": "/", "permits": ["train-ai"]}]}]}}`), nethttp.Options{})
	var ce *configerr.Error
	if !errors.As(err, &ce) || ce.Path != "robots_txt.license_documents[0].content[0].permits[0]" {
		t.Errorf("bad usage: %v", err)
	}
}

// TestRSLReadmeJSON: docs/licensing.md's RSL JSON serves, through the middleware, the
// robots.txt, the document and the Link field the page shows for its Caddyfile.
func TestRSLReadmeJSON(t *testing.T) {
	m, err := nethttp.NewFromJSON([]byte(docBlock(t, "../docs/licensing.md", "rsl-json", "json")), nethttp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") }))
	_, body := get(t, nil, "GET", srv.URL+"/robots.txt")
	if want := strings.ReplaceAll(docBlock(t, "../docs/licensing.md", "rsl-robots-txt", ""), "https://example.com", srv.URL); string(body) != want {
		t.Errorf("robots.txt:\n%s\ndocs/licensing.md shows\n%s", body, want)
	}
	_, body = get(t, nil, "GET", srv.URL+"/license.xml")
	if want := docBlock(t, "../docs/licensing.md", "rsl-document", "xml"); string(body) != want {
		t.Errorf("document:\n%s\ndocs/licensing.md shows\n%s", body, want)
	}
	resp, _ := get(t, nil, "GET", srv.URL+"/articles/a")
	if want := strings.ReplaceAll(strings.TrimSpace(docBlock(t, "../docs/licensing.md", "rsl-link", "http")), "https://example.com", srv.URL); "Link: "+resp.Header.Get("Link") != want {
		t.Errorf("Link %q, docs/licensing.md shows %q", resp.Header.Values("Link"), want)
	}
}

// TestLicenseOnlyRouteMeta: a route with only a license and meta sends the Link field and adds
// the <link> element to HTML pages, and leaves the robots headers alone.
func TestLicenseOnlyRouteMeta(t *testing.T) {
	m, err := nethttp.NewFromJSON([]byte(`{"robots_tag": [{"licenses": ["/license.xml"], "meta": true}]}`), nethttp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const page = "<!doctype html><html><head><title>t</title></head><body>x</body></html>"
	srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Robots-Tag", "noarchive")
		_, _ = io.WriteString(w, page)
	}))
	resp, body := get(t, nil, "GET", srv.URL+"/a")
	if resp.Header.Get("Link") != rsl.LinkValue(srv.URL+"/license.xml") || resp.Header.Get("Robots-Tag") != "noarchive" {
		t.Errorf("headers %v", resp.Header)
	}
	if head := headLicenseLinks(t, body); !slices.Equal(head, []string{srv.URL + "/license.xml"}) || bytes.Contains(body, []byte("<meta")) {
		t.Errorf("page:\n%s", body)
	}
}

// licensingConfig is the README's "Licensing and legal signals" Caddyfile as the middleware's
// JSON.
const licensingConfig = `{
  "robots_txt": {
    "groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/private/"}],
      "content_usage": [{"preferences": {"train-ai": "n", "search": "y"}}],
      "content_signal": [{"preferences": {"search": "yes", "ai-input": "yes", "ai-train": "no"}}]}],
    "license_documents": [{"path": "/license.xml", "content": [{"url": "/",
      "permits": ["search", "ai-input", "ai-index"], "prohibits": ["ai-train"],
      "payment": {"type": "attribution", "custom": "mailto:licensing@example.com"}}]}]
  },
  "robots_tag": [
    {"paths": ["/articles/*"], "content_usage": {"train-ai": "n", "search": "y"}, "licenses": ["/license.xml"],
     "tdm": {"derive": true, "policy": "https://example.com/policies/tdm.json"}, "meta": true}
  ]
}`

// TestREADMELicensingFields: the README's one licensing policy, as JSON through the
// middleware over a real server, serves the robots.txt, the header fields and the head
// elements the README shows for Caddy (caddymodule.TestREADMELicensing checks Caddy serves
// them), and the README's Link field read by the independent RFC 8288 reader is one license
// link of RSL's media type whose target, resolved against the page's URL, is the URL of
// robots.txt's License line. The middleware also serves /.well-known/tdmrep.json, which the
// README says Caddy does not.
func TestREADMELicensingFields(t *testing.T) {
	m, err := nethttp.NewFromJSON([]byte(licensingConfig), nethttp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const page = "<!doctype html><html><head><title>t</title></head><body><p>x</p></body></html>"
	srv := serve(t, m, htmlHandler(page))
	_, robots := get(t, nil, "GET", srv.URL+"/robots.txt")
	if want := strings.ReplaceAll(docBlock(t, "../README.md", "licensing-robots-txt", ""), "https://example.com", srv.URL); string(robots) != want {
		t.Errorf("robots.txt:\n%s\nthe README shows\n%s", robots, want)
	}
	resp, body := get(t, nil, "GET", srv.URL+"/articles/a")
	var linkField string
	for _, line := range strings.Split(strings.TrimSpace(strings.ReplaceAll(docBlock(t, "../README.md", "licensing-headers", "http"), "https://example.com/license.xml", srv.URL+"/license.xml")), "\n") {
		name, value, _ := strings.Cut(line, ": ")
		if got := resp.Header.Values(name); !slices.Equal(got, []string{value}) {
			t.Errorf("%s: served %q, the README shows %q", name, got, value)
		}
		if strings.EqualFold(name, "Link") {
			linkField = value
		}
	}
	links, ok := fixture.ParseLinks(linkField)
	if !ok || len(links) != 1 || !links[0].IsLicense() || links[0].Params["type"] != rsl.MediaType {
		t.Fatalf("the README's Link %q: %+v (parsed %v)", linkField, links, ok)
	}
	page0, err := url.Parse("https://example.com/articles/a")
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(links[0].Target)
	if err != nil {
		t.Fatal(err)
	}
	if want := "License: " + page0.ResolveReference(target).String() + "\n"; !strings.Contains(strings.ReplaceAll(docBlock(t, "../README.md", "licensing-robots-txt", ""), "https://example.com", srv.URL), want) {
		t.Errorf("the README's Link target %s is not its robots.txt's %q", links[0].Target, want)
	}
	var elems []string
	for _, kv := range fixture.HeadMeta(t, body) {
		elems = append(elems, kv[0]+"="+kv[1])
	}
	elems = append(elems, headLicenseLinks(t, body)...)
	shown := []byte("<!doctype html><head>" + strings.ReplaceAll(docBlock(t, "../README.md", "licensing-html", "html"), "https://example.com/license.xml", srv.URL+"/license.xml") + "</head>")
	var want []string
	for _, kv := range fixture.HeadMeta(t, shown) {
		want = append(want, kv[0]+"="+kv[1])
	}
	want = append(want, headLicenseLinks(t, shown)...)
	if len(want) != 3 || !slices.Equal(elems, want) {
		t.Errorf("head elements %q, the README shows %q", elems, want)
	}
	if resp, _ := get(t, nil, "GET", srv.URL+"/.well-known/tdmrep.json"); resp.StatusCode != 200 {
		t.Errorf("tdmrep.json: %d", resp.StatusCode)
	}
}
