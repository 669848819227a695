package nethttp_test

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/dunglas/httpsfv"
	"golang.org/x/net/html"

	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/robotsgen"
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

func parseRobotsTag(t testing.TB, h http.Header) tagemit.Policy {
	t.Helper()
	lines := h.Values("Robots-Tag")
	if len(lines) != 1 {
		t.Fatalf("want exactly one Robots-Tag field line, got %q", lines)
	}
	// An independent witness first: the value must be a valid SF List.
	if _, err := httpsfv.UnmarshalList(lines); err != nil {
		t.Fatalf("Robots-Tag %q is not a Structured Field List: %v", lines[0], err)
	}
	p, errs := tagemit.ParseRobotsTag(lines)
	if len(errs) > 0 {
		t.Fatalf("Robots-Tag %q: %v", lines[0], errs)
	}
	return p
}

func policy(t testing.TB, rules map[string][]string) tagemit.Policy {
	t.Helper()
	p, err := tagemit.NewPolicy(rules)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHeaderUnionAcrossRoutesAndHandler(t *testing.T) {
	m := mustNew(t, nethttp.Config{RobotsTag: []nethttp.Route{
		{TagConfig: nethttp.TagConfig{Rules: map[string][]string{"*": {"nosnippet"}}}},
		{Paths: []string{"/drafts/*"}, TagConfig: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}, "ExampleBot": {"max-snippet=20"}}}},
		{Paths: []string{"*.pdf"}, TagConfig: nethttp.TagConfig{Rules: map[string][]string{"examplebot": {"max-snippet=50", "noarchive"}}, XRobotsTag: true}},
	}})
	srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("own") != "" {
			// A handler's own header, in the SF syntax and the legacy one.
			w.Header().Set("Robots-Tag", "otherbot;noimageindex")
			w.Header().Set("X-Robots-Tag", "notranslate")
		}
		_, _ = io.WriteString(w, "ok")
	}))

	cases := []struct {
		path    string
		want    map[string][]string
		wantXRT bool
	}{
		{"/", map[string][]string{"*": {"nosnippet"}}, false},
		{"/drafts/a", map[string][]string{"*": {"nosnippet", "noindex"}, "examplebot": {"max-snippet=20"}}, false},
		{"/DRAFTS/a", map[string][]string{"*": {"nosnippet", "noindex"}, "examplebot": {"max-snippet=20"}}, false},
		{"/drafts/x.pdf", map[string][]string{"*": {"nosnippet", "noindex"}, "examplebot": {"max-snippet=20", "noarchive"}}, true},
		{"/a//../drafts/b", map[string][]string{"*": {"nosnippet", "noindex"}, "examplebot": {"max-snippet=20"}}, false},
		{"/x.pdf?own=1", map[string][]string{"*": {"nosnippet", "notranslate"}, "examplebot": {"max-snippet=50", "noarchive"}, "otherbot": {"noimageindex"}}, true},
	}
	for _, c := range cases {
		req, _ := http.NewRequest("GET", srv.URL+c.path, nil)
		req.URL.Opaque = "" // keep the raw path as written
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := parseRobotsTag(t, resp.Header)
		if want := policy(t, c.want); !got.Equal(want) {
			t.Errorf("%s: Robots-Tag %q, want %q", c.path, resp.Header.Get("Robots-Tag"), want.RobotsTag())
		}
		xrt := resp.Header.Values("X-Robots-Tag")
		if c.wantXRT {
			p, errs := tagemit.ParseXRobotsTag(xrt)
			if len(errs) > 0 || !p.Equal(policy(t, c.want)) {
				t.Errorf("%s: X-Robots-Tag %q (errors %v), want the same rules as Robots-Tag", c.path, xrt, errs)
			}
		} else if strings.Contains(c.path, "own") == false && len(xrt) != 0 {
			t.Errorf("%s: X-Robots-Tag %q sent without opt-in", c.path, xrt)
		}
	}
}

func htmlHandler(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Header().Set("Etag", `"v1"`)
		_, _ = io.WriteString(w, body)
	}
}

// headMeta returns the name/content pairs of the meta elements html.Parse puts in <head>.
func headMeta(t testing.TB, body []byte) map[string]string {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var walk func(n *html.Node, inHead bool)
	walk = func(n *html.Node, inHead bool) {
		if n.Type == html.ElementNode && n.Data == "head" {
			inHead = true
		}
		if inHead && n.Type == html.ElementNode && n.Data == "meta" {
			var name, content string
			for _, a := range n.Attr {
				switch a.Key {
				case "name":
					name = a.Val
				case "content":
					content = a.Val
				}
			}
			out[name] = content
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inHead)
		}
	}
	walk(doc, false)
	return out
}

func TestMetaInjection(t *testing.T) {
	m := mustNew(t, nethttp.Config{RobotsTag: []nethttp.Route{
		{Paths: []string{"/drafts/*"}, TagConfig: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex", "nosnippet"}, "examplebot": {"noarchive"}}, Meta: true}},
	}})
	srv := serve(t, m, htmlHandler(page))

	resp, body := get(t, nil, "GET", srv.URL+"/drafts/post")
	metas := headMeta(t, body)
	if metas["robots"] != "noindex, nosnippet" || metas["examplebot"] != "noarchive" {
		t.Fatalf("meta elements in head: %v\nbody: %s", metas, body)
	}
	if cl := resp.Header.Get("Content-Length"); cl != strconv.Itoa(len(body)) {
		t.Errorf("Content-Length %q, body %d bytes", cl, len(body))
	}
	if resp.Header.Get("Etag") != `W/"v1"` {
		t.Errorf("ETag %q, want the weakened W/\"v1\"", resp.Header.Get("Etag"))
	}
	if resp.Header.Get("Robots-Tag") == "" {
		t.Error("meta route lost its header")
	}

	// HEAD: the header, and validators that describe what GET sends (RFC 9110 §9.3.2): no
	// Content-Length of the unrewritten page, the same weakened ETag.
	getLen := len(body)
	resp, _ = get(t, nil, "HEAD", srv.URL+"/drafts/post")
	if cl := resp.Header.Get("Content-Length"); resp.Header.Get("Robots-Tag") == "" || (cl != "" && cl != strconv.Itoa(getLen)) {
		t.Errorf("HEAD: Robots-Tag %q, Content-Length %q, GET sends %d bytes", resp.Header.Get("Robots-Tag"), cl, getLen)
	}
	if resp.Header.Get("Etag") != `W/"v1"` {
		t.Errorf("HEAD: ETag %q, GET sends W/\"v1\"", resp.Header.Get("Etag"))
	}

	// Outside the route: untouched.
	_, body = get(t, nil, "GET", srv.URL+"/post")
	if string(body) != page {
		t.Errorf("unmatched route changed: %s", body)
	}
}

// TestMetaBehindFileServer serves through http.FileServer, which copies bodies with
// io.Copy into the ResponseWriter's ReadFrom: the injector must still see every byte.
func TestMetaBehindFileServer(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("<p>paragraph</p>\n", 20000) // well past any single read
	doc := "<!doctype html><html><head><title>t</title></head><body>" + big + "</body></html>"
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "doc.pdf"), []byte("%PDF-1.4 not html"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := mustNew(t, nethttp.Config{RobotsTag: []nethttp.Route{
		{TagConfig: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, Meta: true}},
	}})
	// http.FileServer sets no ETag of its own but honours one set before it runs (as an app
	// serving versioned files does): that makes the ETag checks below run.
	fs := http.FileServer(http.Dir(dir))
	srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Etag", `"idx-v1"`)
		fs.ServeHTTP(w, r)
	}))

	resp, body := get(t, nil, "GET", srv.URL+"/index.html")
	full, lm := body, resp.Header.Get("Last-Modified")
	if headMeta(t, body)["robots"] != "noindex" {
		t.Fatalf("no meta element behind http.FileServer; first bytes: %.200s", body)
	}
	if want := len(doc) + len(`<meta name="robots" content="noindex">`); len(body) != want {
		t.Errorf("body %d bytes, want %d (original + meta)", len(body), want)
	}
	if resp.Header.Get("Content-Length") != strconv.Itoa(len(body)) {
		t.Errorf("Content-Length %q for %d bytes", resp.Header.Get("Content-Length"), len(body))
	}
	if resp.Header.Get("Accept-Ranges") != "" {
		t.Error("Accept-Ranges kept on a rewritten body")
	}

	// Non-HTML: header, bytes untouched.
	resp, body = get(t, nil, "GET", srv.URL+"/doc.pdf")
	if string(body) != "%PDF-1.4 not html" || resp.Header.Get("Robots-Tag") != "*;noindex" {
		t.Errorf("pdf: body %q Robots-Tag %q", body, resp.Header.Get("Robots-Tag"))
	}

	// Range on a meta route: the full rewritten page, never a part of the original file.
	resp, body = get(t, nil, "GET", srv.URL+"/index.html", "Range", "bytes=0-99")
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, full) {
		t.Errorf("range: status %d, %d bytes (the rewritten page has %d)", resp.StatusCode, len(body), len(full))
	}
	if resp.Header.Get("Robots-Tag") == "" {
		t.Error("range: Robots-Tag missing")
	}

	// 304: conditional request against the weakened ETag still validates.
	resp, _ = get(t, nil, "GET", srv.URL+"/index.html")
	etag := resp.Header.Get("Etag")
	if etag != `W/"idx-v1"` {
		t.Fatalf("ETag %q of the rewritten page, want W/\"idx-v1\"", etag)
	}
	resp, _ = get(t, nil, "GET", srv.URL+"/index.html", "If-None-Match", etag)
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match %s: status %d", etag, resp.StatusCode)
	}
	// A 304 carries the validator of the 200 it refreshes (RFC 9110 §15.4.5).
	if got := resp.Header.Get("Etag"); got != etag {
		t.Errorf("304 ETag %s, the 200 sent %s", got, etag)
	}
	if lm == "" {
		t.Fatal("http.FileServer sent no Last-Modified")
	}
	resp, body = get(t, nil, "GET", srv.URL+"/index.html", "If-Modified-Since", lm)
	if resp.StatusCode != http.StatusNotModified || len(body) != 0 || resp.Header.Get("Robots-Tag") == "" {
		t.Errorf("If-Modified-Since: status %d, %d bytes, Robots-Tag %q", resp.StatusCode, len(body), resp.Header.Get("Robots-Tag"))
	}
}

// TestFlushReachesClient: bytes written before a Flush reach the client while the handler is
// still running (server-sent events, streamed HTML).
func TestFlushReachesClient(t *testing.T) {
	for _, ct := range []string{"text/event-stream", "text/html"} {
		t.Run(ct, func(t *testing.T) {
			release := make(chan struct{})
			m := mustNew(t, nethttp.Config{RobotsTag: []nethttp.Route{
				{TagConfig: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, Meta: true}},
			}})
			srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", ct)
				_, _ = io.WriteString(w, "<html><head><title>x</title></head><body>data: first\n\n")
				if err := http.NewResponseController(w).Flush(); err != nil {
					t.Errorf("flush: %v", err)
				}
				<-release
				_, _ = io.WriteString(w, "data: second\n\n")
			}))
			defer close(release)
			resp, err := http.Get(srv.URL + "/")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			got := make(chan string, 1)
			go func() {
				line, _ := br.ReadString('\n')
				got <- line
			}()
			select {
			case line := <-got:
				if !strings.Contains(line, "data: first") {
					t.Fatalf("first line %q", line)
				}
				if ct == "text/html" && !strings.Contains(line, `<meta name="robots" content="noindex">`) {
					t.Fatalf("flushed HTML lost its meta element: %q", line)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("flushed bytes did not reach the client")
			}
		})
	}
}

// TestResponseControllerAndHijack: SetWriteDeadline works through the wrapper, and a handler
// can hijack the connection (WebSocket upgrades).
func TestResponseControllerAndHijack(t *testing.T) {
	m := mustNew(t, nethttp.Config{RobotsTag: []nethttp.Route{
		{TagConfig: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, Meta: true}},
	}})
	srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if err := rc.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
			t.Errorf("SetWriteDeadline through the wrapper: %v", err)
		}
		if r.Header.Get("Upgrade") != "" {
			conn, brw, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Errorf("hijack: %v", err)
				return
			}
			defer conn.Close()
			_, _ = brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\nhello")
			_ = brw.Flush()
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	resp, body := get(t, nil, "GET", srv.URL+"/")
	if string(body) != "ok" || resp.Header.Get("Robots-Tag") == "" {
		t.Fatalf("plain: %q %q", body, resp.Header.Get("Robots-Tag"))
	}
	req, _ := http.NewRequest("GET", srv.URL+"/ws", nil)
	req.Header.Set("Upgrade", "echo")
	req.Header.Set("Connection", "Upgrade")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: status %d", resp.StatusCode)
	}
	rwc, ok := resp.Body.(io.ReadWriteCloser)
	if !ok {
		t.Fatalf("upgrade: body is %T", resp.Body)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(rwc, buf); err != nil || string(buf) != "hello" {
		t.Fatalf("hijacked stream: %q %v", buf, err)
	}
}

// TestHTTP2 runs robots.txt, the header and meta injection over HTTP/2 with TLS.
func TestHTTP2(t *testing.T) {
	m := mustNew(t, nethttp.Config{
		RobotsTxt: siteRobots,
		RobotsTag: []nethttp.Route{{TagConfig: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, Meta: true}}},
	})
	srv := httptest.NewUnstartedServer(m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, page[:40])
		http.NewResponseController(w).Flush()
		_, _ = io.WriteString(w, page[40:])
	})))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	c := srv.Client()
	c.Transport.(*http.Transport).TLSClientConfig.NextProtos = []string{"h2"}
	c.Transport.(*http.Transport).ForceAttemptHTTP2 = true

	resp, body := get(t, c, "GET", srv.URL+"/robots.txt")
	if resp.ProtoMajor != 2 {
		t.Fatalf("proto %s", resp.Proto)
	}
	want, _ := siteFile.Render(srv.URL)
	if !bytes.Equal(body, want) {
		t.Fatalf("robots.txt over h2:\n%s", body)
	}
	resp, body = get(t, c, "GET", srv.URL+"/page")
	if headMeta(t, body)["robots"] != "noindex" || resp.Header.Get("Robots-Tag") != "*;noindex" {
		t.Fatalf("h2 page: Robots-Tag %q body %s", resp.Header.Get("Robots-Tag"), body)
	}
}

// TestStatusesLeftUntouched: responses that cannot be rewritten keep their bytes but get the
// header.
func TestStatusesLeftUntouched(t *testing.T) {
	m := mustNew(t, nethttp.Config{RobotsTag: []nethttp.Route{
		{TagConfig: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, Meta: true}},
	}})
	srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/404":
			w.WriteHeader(404)
			_, _ = io.WriteString(w, page)
		case "/gzip":
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = io.WriteString(w, page) // not really gzip: it must not be touched
		case "/notransform":
			w.Header().Set("Cache-Control", "no-transform")
			_, _ = io.WriteString(w, page)
		case "/204":
			w.WriteHeader(204)
		case "/early":
			w.WriteHeader(http.StatusEarlyHints)
			_, _ = io.WriteString(w, page)
		case "/empty":
			// writes nothing: net/http answers 200 with no body
		}
	}))
	for _, p := range []string{"/404", "/gzip", "/notransform"} {
		resp, body := get(t, &http.Client{Transport: &http.Transport{DisableCompression: true}}, "GET", srv.URL+p)
		if string(body) != page || resp.Header.Get("Robots-Tag") != "*;noindex" {
			t.Errorf("%s: body changed or header missing: %q %q", p, body, resp.Header.Get("Robots-Tag"))
		}
	}
	resp, _ := get(t, nil, "GET", srv.URL+"/204")
	if resp.StatusCode != 204 || resp.Header.Get("Robots-Tag") != "*;noindex" {
		t.Errorf("204: %d %q", resp.StatusCode, resp.Header.Get("Robots-Tag"))
	}
	resp, body := get(t, nil, "GET", srv.URL+"/early")
	if resp.StatusCode != 200 || headMeta(t, body)["robots"] != "noindex" {
		t.Errorf("after 103: status %d body %s", resp.StatusCode, body)
	}
	resp, _ = get(t, nil, "GET", srv.URL+"/empty")
	if resp.StatusCode != 200 || resp.Header.Get("Robots-Tag") != "*;noindex" {
		t.Errorf("empty handler: %d %q", resp.StatusCode, resp.Header.Get("Robots-Tag"))
	}
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
		{Paths: []string{"*.html"}, TagConfig: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, Meta: true}},
	}})
	srv := serve(t, m, http.FileServerFS(fsys))
	_, body := get(t, nil, "GET", srv.URL+"/a.html")
	if headMeta(t, body)["robots"] != "noindex" {
		t.Fatalf("body %s", body)
	}
}
