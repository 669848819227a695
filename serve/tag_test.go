package serve_test

// The robots tags Core.Tag sets on responses: the headers (Robots-Tag, X-Robots-Tag,
// Content-Usage) of every route that matches, with what the handler sent itself, and the
// <meta> elements injected into HTML heads, with the validators and lengths kept true.

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/serve"
	"github.com/sitepolicy/caddy-robots/tagemit"
)

const page = `<!DOCTYPE html><html><head><title>Post</title></head><body><p>Hello</p></body></html>`

const noindexMeta = `<meta name="robots" content="noindex">`

// metaConfig is one route over every path with noindex as a header and a meta element.
var metaConfig = policy.Config{RobotsTag: []policy.Route{{Tags: policy.Tags{Rules: rules("*", "noindex"), Meta: true}}}}

// htmlHandler serves body as UTF-8 HTML with its Content-Length and a strong ETag.
func htmlHandler(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Header().Set("Etag", `"v1"`)
		_, _ = io.WriteString(w, body)
	}
}

// TestHeaderUnionAcrossRoutesAndHandler: every matching route's rules and the handler's own
// robots headers make one Robots-Tag field (a valid SF List); X-Robots-Tag is sent only when
// a matching route asks for it and then states the same rules; Content-Usage combines the
// routes' preferences and the handler's (any n wins). Over HTTP/1.1 and HTTP/2.
func TestHeaderUnionAcrossRoutesAndHandler(t *testing.T) {
	core := mustCore(t, policy.Config{RobotsTag: []policy.Route{
		{Tags: policy.Tags{Rules: rules("*", "nosnippet"), ContentUsage: map[string]string{"train-ai": "n"}}},
		{Paths: []string{"/drafts/*"}, Tags: policy.Tags{Rules: map[string][]string{"*": {"noindex"}, "ExampleBot": {"max-snippet=20"}}}},
		{Paths: []string{"*.pdf"}, Tags: policy.Tags{Rules: map[string][]string{"examplebot": {"max-snippet=50", "noarchive"}}, XRobotsTag: true, ContentUsage: map[string]string{"search": "y"}}},
	}})
	h := frontEnd(core, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("own") != "" {
			// A handler's own header, in the SF syntax and the legacy one.
			w.Header().Set("Robots-Tag", "otherbot;noimageindex")
			w.Header().Set("X-Robots-Tag", "notranslate")
			w.Header().Set("Content-Usage", "search=n")
		}
		_, _ = io.WriteString(w, "ok")
	}))
	cases := []struct {
		path    string
		want    map[string][]string
		wantXRT bool
		usage   map[string]string
	}{
		{"/", map[string][]string{"*": {"nosnippet"}}, false, map[string]string{"train-ai": "n"}},
		{"/drafts/a", map[string][]string{"*": {"nosnippet", "noindex"}, "examplebot": {"max-snippet=20"}}, false, map[string]string{"train-ai": "n"}},
		{"/DRAFTS/a", map[string][]string{"*": {"nosnippet", "noindex"}, "examplebot": {"max-snippet=20"}}, false, map[string]string{"train-ai": "n"}},
		{"/drafts/x.pdf", map[string][]string{"*": {"nosnippet", "noindex"}, "examplebot": {"max-snippet=20", "noarchive"}}, true, map[string]string{"train-ai": "n", "search": "y"}},
		{"/a//../drafts/b", map[string][]string{"*": {"nosnippet", "noindex"}, "examplebot": {"max-snippet=20"}}, false, map[string]string{"train-ai": "n"}},
		{"/x.pdf?own=1", map[string][]string{"*": {"nosnippet", "notranslate"}, "examplebot": {"max-snippet=50", "noarchive"}, "otherbot": {"noimageindex"}}, true, map[string]string{"train-ai": "n", "search": "n"}},
		{"/?own=1", map[string][]string{"*": {"nosnippet", "notranslate"}, "otherbot": {"noimageindex"}}, false, map[string]string{"train-ai": "n", "search": "n"}},
	}
	for _, s := range both(t, h) {
		for _, c := range cases {
			resp, body := s.do(t, "GET", c.path)
			if string(body) != "ok" {
				t.Errorf("%s %s: body %q", s.name, c.path, body)
			}
			got := robotsTag(t, resp.Header)
			if want := mustPolicy(t, c.want); !got.Equal(want) {
				t.Errorf("%s %s: Robots-Tag %q, want %q", s.name, c.path, resp.Header.Get("Robots-Tag"), want.RobotsTag())
			}
			xrt := resp.Header.Values("X-Robots-Tag")
			switch {
			case c.wantXRT:
				p, errs := tagemit.ParseXRobotsTag(xrt)
				if len(errs) > 0 || !p.Equal(mustPolicy(t, c.want)) {
					t.Errorf("%s %s: X-Robots-Tag %q (errors %v), want the same rules as Robots-Tag", s.name, c.path, xrt, errs)
				}
			case strings.Contains(c.path, "own"):
				// A route that does not ask for X-Robots-Tag leaves the handler's as sent.
				if len(xrt) != 1 || xrt[0] != "notranslate" {
					t.Errorf("%s %s: the handler's X-Robots-Tag became %q", s.name, c.path, xrt)
				}
			case len(xrt) != 0:
				t.Errorf("%s %s: X-Robots-Tag %q sent without opt-in", s.name, c.path, xrt)
			}
			if got := contentUsage(t, resp.Header); fmt.Sprint(got) != fmt.Sprint(c.usage) {
				t.Errorf("%s %s: Content-Usage %q reads %v, want %v", s.name, c.path, resp.Header.Values("Content-Usage"), got, c.usage)
			}
		}
	}
}

// TestRouteUnionBeyondCache: more routes apply than the union cache keys hold; the response
// still carries all their rules, the same on every request.
func TestRouteUnionBeyondCache(t *testing.T) {
	var cfg policy.Config
	var want []string
	for i := range 6 {
		tok := "bot" + strconv.Itoa(i)
		cfg.RobotsTag = append(cfg.RobotsTag, policy.Route{Tags: policy.Tags{Rules: rules(tok, "noindex")}})
		want = append(want, tok+";noindex")
	}
	// A route's rules repeated in another route count once.
	cfg.RobotsTag = append(cfg.RobotsTag, policy.Route{Tags: policy.Tags{Rules: rules("bot0", "noindex", "*", "nosnippet")}})
	core := mustCore(t, cfg)
	s := startH1(t, frontEnd(core, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})))
	for range 3 {
		resp, _ := s.do(t, "GET", "/")
		got := sfvMembers(t, resp.Header.Values("Robots-Tag"))
		if len(got) != 7 || fmt.Sprint(got["*"]) != "[nosnippet]" {
			t.Fatalf("Robots-Tag %q", resp.Header.Get("Robots-Tag"))
		}
		for i := range 6 {
			if fmt.Sprint(got["bot"+strconv.Itoa(i)]) != "[noindex]" {
				t.Fatalf("Robots-Tag %q lacks %s", resp.Header.Get("Robots-Tag"), want[i])
			}
		}
	}
	if got := core.Routes(httptest.NewRequest("GET", "/", nil)); len(got) != 7 {
		t.Errorf("Routes %v", got)
	}
}

// TestNestedCoresJoinOneUnion: a Core whose Tag runs inside another Core's Tag (two Caddy
// handlers on one request) joins the outer wrapper: one Robots-Tag line with the union, one
// set of meta elements in the page.
func TestNestedCoresJoinOneUnion(t *testing.T) {
	outer := mustCore(t, policy.Config{RobotsTag: []policy.Route{{Tags: policy.Tags{Rules: rules("*", "nosnippet"), Meta: true}}}})
	inner := mustCore(t, policy.Config{RobotsTag: []policy.Route{{Tags: policy.Tags{Rules: rules("*", "noindex", "examplebot", "noarchive"), Meta: true, XRobotsTag: true}}}})
	app := htmlHandler(page)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = outer.Tag(w, r, serve.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
			// A wrapper between the two, as Caddy's handlers add: found through Unwrap.
			return inner.Tag(unwrapper{w}, r, serve.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
				app(w, r)
				return nil
			}))
		}))
	})
	for _, s := range both(t, h) {
		resp, body := s.do(t, "GET", "/")
		want := mustPolicy(t, rules("*", "nosnippet,noindex", "examplebot", "noarchive"))
		if got := robotsTag(t, resp.Header); !got.Equal(want) {
			t.Errorf("%s: Robots-Tag %q, want %q", s.name, resp.Header.Get("Robots-Tag"), want.RobotsTag())
		}
		if p, errs := tagemit.ParseXRobotsTag(resp.Header.Values("X-Robots-Tag")); len(errs) > 0 || !p.Equal(want) {
			t.Errorf("%s: X-Robots-Tag %q", s.name, resp.Header.Values("X-Robots-Tag"))
		}
		metas, n := headMeta(t, body)
		if n != 2 || metas["robots"] != "nosnippet, noindex" && metas["robots"] != "noindex, nosnippet" || metas["examplebot"] != "noarchive" {
			t.Errorf("%s: %d meta elements %v\n%s", s.name, n, metas, body)
		}
		if cl := resp.Header.Get("Content-Length"); cl != strconv.Itoa(len(body)) {
			t.Errorf("%s: Content-Length %q for %d bytes", s.name, cl, len(body))
		}
	}
}

// unwrapper is a ResponseWriter wrapper of another middleware.
type unwrapper struct{ http.ResponseWriter }

func (u unwrapper) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// TestMetaInjection: a route with meta elements puts them in the head of its HTML pages, as
// x/net/html's parser finds them; Content-Length stays exact and the strong ETag is weakened;
// HEAD describes what GET sends; other paths are untouched.
func TestMetaInjection(t *testing.T) {
	core := mustCore(t, policy.Config{RobotsTag: []policy.Route{
		{Paths: []string{"/drafts/*"}, Tags: policy.Tags{Rules: map[string][]string{"*": {"noindex", "nosnippet"}, "examplebot": {"noarchive"}}, Meta: true}},
	}})
	for _, s := range both(t, frontEnd(core, htmlHandler(page))) {
		resp, body := s.do(t, "GET", "/drafts/post")
		metas, _ := headMeta(t, body)
		if metas["robots"] != "noindex, nosnippet" || metas["examplebot"] != "noarchive" {
			t.Fatalf("%s: meta elements in head: %v\nbody: %s", s.name, metas, body)
		}
		if cl := resp.Header.Get("Content-Length"); cl != strconv.Itoa(len(body)) {
			t.Errorf("%s: Content-Length %q, body %d bytes", s.name, cl, len(body))
		}
		if resp.Header.Get("Etag") != `W/"v1"` {
			t.Errorf("%s: ETag %q, want the weakened W/\"v1\"", s.name, resp.Header.Get("Etag"))
		}
		if resp.Header.Get("Robots-Tag") == "" {
			t.Errorf("%s: meta route lost its header", s.name)
		}

		// HEAD: the header, and validators that describe what GET sends (RFC 9110 §9.3.2): no
		// Content-Length of the unrewritten page, the same weakened ETag.
		getLen := len(body)
		resp, body = s.do(t, "HEAD", "/drafts/post")
		if cl := resp.Header.Get("Content-Length"); resp.Header.Get("Robots-Tag") == "" || (cl != "" && cl != strconv.Itoa(getLen)) {
			t.Errorf("%s: HEAD: Robots-Tag %q, Content-Length %q, GET sends %d bytes", s.name, resp.Header.Get("Robots-Tag"), cl, getLen)
		}
		if resp.Header.Get("Etag") != `W/"v1"` || len(body) != 0 {
			t.Errorf("%s: HEAD: ETag %q, %d body bytes; GET sends W/\"v1\"", s.name, resp.Header.Get("Etag"), len(body))
		}

		// Outside the route: untouched.
		resp, body = s.do(t, "GET", "/post")
		if string(body) != page || resp.Header.Get("Etag") != `"v1"` || resp.Header.Get("Robots-Tag") != "" {
			t.Errorf("%s: unmatched route changed: ETag %q Robots-Tag %q %s", s.name, resp.Header.Get("Etag"), resp.Header.Get("Robots-Tag"), body)
		}
	}
}

// TestMetaStreamed: however the handler delivers an HTML page (many small writes, with or
// without Content-Length and Content-Type, one large write, a flush in the middle), the
// client gets it once with the meta element in its head, and a Content-Length that counts
// exactly the bytes sent whenever one is sent.
func TestMetaStreamed(t *testing.T) {
	doc := "<!doctype html>\n<html><head><title>t</title></head><body>" + strings.Repeat("<p>streamed paragraph</p>\n", 300) + "</body></html>"
	type plan struct {
		ctype, cl bool
		chunk     int
		flushAt   int // flush after this many bytes; 0: never
	}
	plans := map[string]plan{
		"chunks/ct/cl":     {true, true, 7, 0},
		"chunks/ct":        {true, false, 13, 0},
		"chunks/sniffed":   {false, false, 5, 0},
		"chunks/sniffedcl": {false, true, 100, 0},
		"one write":        {true, true, len(doc), 0},
		"one write/sniff":  {false, true, len(doc), 0},
		"flush early":      {true, true, 50, 20},
		"flush sniffing":   {false, false, 50, 100},
		"flush late":       {true, true, 64, 3000},
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := plans[r.URL.Query().Get("p")]
		if p.ctype {
			w.Header().Set("Content-Type", "text/html")
		}
		if p.cl {
			w.Header().Set("Content-Length", strconv.Itoa(len(doc)))
		}
		w.Header().Set("Etag", `"s1"`)
		flushed := false
		for off := 0; off < len(doc); off += p.chunk {
			_, _ = io.WriteString(w, doc[off:min(off+p.chunk, len(doc))])
			if p.flushAt > 0 && !flushed && off+p.chunk >= p.flushAt {
				flushed = true
				_ = http.NewResponseController(w).Flush()
			}
		}
	})
	want := strings.Replace(doc, "<head>", "<head>"+noindexMeta, 1)
	for _, s := range both(t, frontEnd(mustCore(t, metaConfig), h)) {
		for name, p := range plans {
			resp, body := s.do(t, "GET", "/?p="+strings.ReplaceAll(name, " ", "+"))
			if string(body) != want {
				t.Errorf("%s %s: body differs from the page with its meta element:\n%.300s", s.name, name, body)
			}
			if metas, n := headMeta(t, body); n != 1 || metas["robots"] != "noindex" {
				t.Errorf("%s %s: meta elements %v", s.name, name, metas)
			}
			if cl := resp.Header.Get("Content-Length"); cl != "" && cl != strconv.Itoa(len(body)) {
				t.Errorf("%s %s: Content-Length %q for %d bytes", s.name, name, cl, len(body))
			}
			// A page held back until the decision (no flush before it) keeps an exact length.
			if p.cl && p.flushAt == 0 && resp.ContentLength != int64(len(want)) {
				t.Errorf("%s %s: ContentLength %d, want %d", s.name, name, resp.ContentLength, len(want))
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
				t.Errorf("%s %s: Content-Type %q", s.name, name, ct)
			}
			if resp.Header.Get("Etag") != `W/"s1"` || resp.Header.Get("Robots-Tag") != "*;noindex" {
				t.Errorf("%s %s: ETag %q Robots-Tag %q", s.name, name, resp.Header.Get("Etag"), resp.Header.Get("Robots-Tag"))
			}
		}
	}
}

// TestLeftByteIdentical: responses whose bodies are not to be rewritten reach the client as
// the handler sent them, compared with the same handler served bare, with the robots header
// set: HEAD, 204, 304, 206, encoded bodies, Cache-Control: no-transform, other types, 404,
// an ASCII-incompatible charset, a page that declares one.
func TestLeftByteIdentical(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = io.WriteString(zw, page)
	_ = zw.Close()
	gzipped := gz.String()
	type variant struct {
		status int
		header []string // pairs
		body   string
		// bodyDecides: only the body says the page cannot be rewritten, so HEAD, which has
		// none, answers as for a page that can (no Content-Length).
		bodyDecides bool
	}
	variants := map[string]variant{
		"204":          {204, nil, "", false},
		"304":          {304, []string{"Etag", `"v1"`}, "", false},
		"206":          {206, []string{"Content-Range", "bytes 0-9/86"}, page[:10], false},
		"200-range":    {200, []string{"Content-Range", "bytes 0-85/86"}, page, false},
		"gzip":         {200, []string{"Content-Encoding", "gzip"}, gzipped, false},
		"not-gzip":     {200, []string{"Content-Encoding", "gzip"}, page, false}, // not really gzip: never touched
		"br":           {200, []string{"Content-Encoding", "br"}, page, false},
		"no-transform": {200, []string{"Cache-Control", "public, No-Transform"}, page, false},
		"json":         {200, []string{"Content-Type", "application/json"}, `{"html": "<head></head>"}`, false},
		"plain":        {200, []string{"Content-Type", "text/plain; charset=utf-8"}, page, false},
		"png":          {200, []string{"Content-Type", "image/png"}, "\x89PNG\r\n\x1a\n<head>", false},
		"sniffed-text": {200, []string{"Content-Type", ""}, "plain text that mentions <head> later", false},
		"404":          {404, nil, page, false},
		"500":          {500, nil, page, false},
		"utf-16":       {200, []string{"Content-Type", "text/html; charset=utf-16"}, page, false},
		"meta-charset": {200, nil, `<html><head><meta charset="utf-16"><title>x</title></head><body>x</body></html>`, true},
		"bom-utf16":    {200, nil, "\xff\xfe<\x00h\x00t\x00m\x00l\x00>\x00", true},
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := variants[strings.TrimPrefix(r.URL.Path, "/")]
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		for i := 0; i+1 < len(v.header); i += 2 {
			if v.header[i+1] == "" {
				delete(w.Header(), v.header[i])
				continue
			}
			w.Header().Set(v.header[i], v.header[i+1])
		}
		if v.status != 204 && v.status != 304 {
			w.Header().Set("Content-Length", strconv.Itoa(len(v.body)))
		}
		w.WriteHeader(v.status)
		_, _ = io.WriteString(w, v.body)
	})
	l := &logs{}
	core := mustCore(t, metaConfig, l.options())
	bare := both(t, handler)
	tagged := both(t, frontEnd(core, handler))
	for i := range bare {
		for name, v := range variants {
			for _, method := range []string{"GET", "HEAD"} {
				hdr := []string{}
				if name == "304" {
					hdr = []string{"If-None-Match", `"v1"`}
				}
				bresp, bbody := bare[i].do(t, method, "/"+name, hdr...)
				resp, body := tagged[i].do(t, method, "/"+name, hdr...)
				what := tagged[i].name + " " + method + " " + name
				if resp.StatusCode != v.status || bresp.StatusCode != v.status {
					t.Errorf("%s: status %d (bare %d), want %d", what, resp.StatusCode, bresp.StatusCode, v.status)
				}
				if !bytes.Equal(body, bbody) {
					t.Errorf("%s: body %q, bare %q", what, body, bbody)
				}
				for _, k := range []string{"Content-Length", "Content-Type", "Content-Encoding", "Content-Range", "Etag"} {
					if method == "HEAD" && v.bodyDecides && (k == "Content-Length" || k == "Etag") {
						if resp.Header.Get(k) != "" {
							t.Errorf("%s: %s %q: HEAD cannot know that GET leaves the page alone", what, k, resp.Header.Get(k))
						}
						continue
					}
					if got, want := resp.Header.Values(k), bresp.Header.Values(k); fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("%s: %s %q, bare %q", what, k, got, want)
					}
				}
				if resp.Header.Get("Robots-Tag") != "*;noindex" {
					t.Errorf("%s: Robots-Tag %q", what, resp.Header.Get("Robots-Tag"))
				}
			}
		}
	}
	for _, reason := range []string{"status 404", "status 204", "the body is encoded: gzip", "Cache-Control: no-transform", `Content-Type charset "utf-16"`, "partial content"} {
		if l.count("debug", reason) == 0 {
			t.Errorf("no debug message says %q:\n%s", reason, l.all("debug"))
		}
	}
	if l.count("warn", "already encoded (Content-Encoding: ") != 1 || l.count("warn", "") != 1 {
		t.Errorf("want one warning about the encoded page, got:\n%s", l.all("warn"))
	}
}

// TestStatusesLeftUntouched: responses that cannot be rewritten keep their bytes but get the
// header; a page after a 103 is still rewritten; an empty handler's 200 gets the header.
func TestStatusesLeftUntouched(t *testing.T) {
	core := mustCore(t, metaConfig)
	h := frontEnd(core, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
		case "/notransform-after-quoted":
			w.Header().Set("Cache-Control", `no-cache="Set-Cookie, Vary", no-transform`)
			_, _ = io.WriteString(w, page)
		case "/quoted-field-names":
			// A quoted-string is one directive value (RFC 9111 section 5.2, RFC 9110
			// section 5.6.4): this response has no no-transform directive.
			w.Header().Set("Cache-Control", `private="Set-Cookie, no-transform, Vary", max-age=60`)
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
	for _, s := range both(t, h) {
		for _, p := range []string{"/404", "/gzip", "/notransform", "/notransform-after-quoted"} {
			resp, body := s.do(t, "GET", p)
			if string(body) != page || resp.Header.Get("Robots-Tag") != "*;noindex" {
				t.Errorf("%s %s: body changed or header missing: %q %q", s.name, p, body, resp.Header.Get("Robots-Tag"))
			}
		}
		if resp, body := s.do(t, "GET", "/quoted-field-names"); !bytes.Contains(body, []byte(noindexMeta)) {
			t.Errorf("%s: a no-transform inside a quoted-string kept the page from its tags: %d %s", s.name, resp.StatusCode, body)
		}
		resp, _ := s.do(t, "GET", "/204")
		if resp.StatusCode != 204 || resp.Header.Get("Robots-Tag") != "*;noindex" {
			t.Errorf("%s 204: %d %q", s.name, resp.StatusCode, resp.Header.Get("Robots-Tag"))
		}
		resp, body := s.do(t, "GET", "/early")
		if metas, _ := headMeta(t, body); resp.StatusCode != 200 || metas["robots"] != "noindex" {
			t.Errorf("%s after 103: status %d body %s", s.name, resp.StatusCode, body)
		}
		resp, body = s.do(t, "GET", "/empty")
		if resp.StatusCode != 200 || len(body) != 0 || resp.Header.Get("Robots-Tag") != "*;noindex" {
			t.Errorf("%s empty handler: %d %q %q", s.name, resp.StatusCode, body, resp.Header.Get("Robots-Tag"))
		}
	}
}

// TestNotModifiedValidator: a 304 carries the ETag of the 200 it validates (RFC 9110
// §15.4.5): weakened when the client holds the rewritten page (it asks with W/"v1"), as sent
// when it holds the handler's own.
func TestNotModifiedValidator(t *testing.T) {
	core := mustCore(t, metaConfig)
	h := frontEnd(core, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Etag", r.URL.Query().Get("etag"))
		if r.Header.Get("If-None-Match") != "" {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		htmlHandler(page)(w, r)
	}))
	for _, s := range both(t, h) {
		for _, c := range []struct{ etag, inm, want string }{
			{`"v1"`, `W/"v1"`, `W/"v1"`},
			{`"v1"`, `"x", W/"v1"`, `W/"v1"`},
			{`"v1"`, `"v1"`, `"v1"`},
			{`W/"v2"`, `W/"v2"`, `W/"v2"`},
		} {
			resp, body := s.do(t, "GET", "/?etag="+c.etag, "If-None-Match", c.inm)
			if resp.StatusCode != 304 || len(body) != 0 || resp.Header.Get("Etag") != c.want || resp.Header.Get("Robots-Tag") != "*;noindex" {
				t.Errorf("%s ETag %s If-None-Match %s: %d, ETag %q, Robots-Tag %q", s.name, c.etag, c.inm, resp.StatusCode, resp.Header.Get("Etag"), resp.Header.Get("Robots-Tag"))
			}
		}
	}
}

// TestRangeDroppedForPages: on a route with meta elements, a GET with Range for a path that
// may be a page reaches the handler without Range and If-Range (so the client gets the whole
// rewritten page); other files, HEAD, and header-only routes keep them.
func TestRangeDroppedForPages(t *testing.T) {
	core := mustCore(t, policy.Config{RobotsTag: []policy.Route{
		{Paths: []string{"/meta/*"}, Tags: policy.Tags{Rules: rules("*", "noindex"), Meta: true}},
		{Paths: []string{"/header/*"}, Tags: policy.Tags{Rules: rules("*", "noindex")}},
	}})
	h := frontEnd(core, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = fmt.Fprintf(w, "range=%q if-range=%q", r.Header.Get("Range"), r.Header.Get("If-Range"))
	}))
	s := startH1(t, h)
	for _, c := range []struct {
		method, path string
		kept         bool
	}{
		{"GET", "/meta/page", false},
		{"GET", "/meta/page.html", false},
		{"GET", "/meta/index.PHP", false},
		{"GET", "/meta/video.mp4", true},
		{"GET", "/meta/doc.pdf", true},
		{"HEAD", "/meta/page", true},
		{"GET", "/header/page", true},
	} {
		resp, body := s.do(t, c.method, c.path, "Range", "bytes=0-9", "If-Range", `"v1"`)
		want := `range="bytes=0-9" if-range="\"v1\""`
		if !c.kept {
			want = `range="" if-range=""`
		}
		if c.method == "HEAD" {
			if resp.StatusCode != 200 {
				t.Errorf("HEAD %s: %d", c.path, resp.StatusCode)
			}
			continue
		}
		if string(body) != want {
			t.Errorf("%s %s: the handler saw %s, want %s", c.method, c.path, body, want)
		}
	}
}

// TestMetaXHTML: an XHTML page gets its meta elements as empty elements, in the head.
func TestMetaXHTML(t *testing.T) {
	const xhtml = `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head><body><p>x</p></body></html>`
	s := startH1(t, frontEnd(mustCore(t, metaConfig), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xhtml+xml")
		_, _ = io.WriteString(w, xhtml)
	})))
	_, body := s.do(t, "GET", "/")
	if want := strings.Replace(xhtml, "<head>", `<head><meta name="robots" content="noindex" />`, 1); string(body) != want {
		t.Errorf("body %s", body)
	}
}

// letters names the i-th of many tokens with letters only (a digit in a token draws a
// warning).
func letters(i int) string {
	b := []byte{'a', 'a', 'a', 'a'}
	for j := len(b) - 1; i > 0; j-- {
		b[j] = byte('a' + i%26)
		i /= 26
	}
	return string(b)
}

// TestFieldLimits: routes that fit the 8 KiB field limit one by one but not together are
// cut when they meet on one request: Robots-Tag keeps "*" first, Content-Usage the
// vocabulary's keys and its n values before extension y values; each is warned about once,
// naming what was left out. A handler's header that cannot be read in full is told to the
// debug log.
func TestFieldLimits(t *testing.T) {
	half := func(prefix string) map[string][]string {
		r := map[string][]string{}
		for i := 0; len(r)*len("xxxxx;nosnippet, ") < 5000; i++ {
			r[prefix+letters(i)] = []string{"nosnippet"}
		}
		return r
	}
	a, b := half("a"), half("b")
	b["*"] = []string{"noindex"}
	ext := func(prefix, v string, n int) map[string]string {
		m := map[string]string{}
		for i := range n {
			m["+"+prefix+"-"+letters(i)] = v
		}
		return m
	}
	siteUsage := ext("site", "n", 400)
	siteUsage["train-ai"] = "n"
	xUsage := ext("x", "y", 400)
	xUsage["search"] = "y"
	l := &logs{}
	core := mustCore(t, policy.Config{RobotsTag: []policy.Route{
		{Tags: policy.Tags{Rules: a, ContentUsage: siteUsage}},
		{Paths: []string{"/x*"}, Tags: policy.Tags{Rules: b, ContentUsage: xUsage}},
	}}, l.options())
	s := startH1(t, frontEnd(core, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("own") != "" {
			w.Header()["Robots-Tag"] = []string{"*;noarchive, garbage ;;; ,,"}
			w.Header()["Content-Usage"] = []string{"Train-AI=n, search=y,"}
		}
		_, _ = io.WriteString(w, "ok")
	})))
	for range 2 {
		resp, _ := s.do(t, "GET", "/x")
		v := resp.Header.Get("Robots-Tag")
		if len(v) > tagemit.MaxFieldSize || !strings.HasPrefix(v, "*;noindex") {
			t.Fatalf("union is %d bytes, starts %.20q", len(v), v)
		}
		members := sfvMembers(t, resp.Header.Values("Robots-Tag"))
		if len(members) < 300 || len(members) >= len(a)+len(b) {
			t.Errorf("%d members of %d kept", len(members), len(a)+len(b))
		}
		u := contentUsage(t, resp.Header)
		if len(strings.Join(resp.Header.Values("Content-Usage"), "")) > tagemit.MaxFieldSize || u["train-ai"] != "n" || u["search"] != "y" || u["site-aaaa"] != "n" || u["x-aaaa"] != "" {
			t.Errorf("Content-Usage of %d keys: train-ai=%q search=%q site-aaaa=%q x-aaaa=%q", len(u), u["train-ai"], u["search"], u["site-aaaa"], u["x-aaaa"])
		}
	}
	if l.count("warn", "Robots-Tag: the union of the routes' and the backend's rules is over 8192 bytes") != 1 ||
		l.count("warn", "more (the routes' members are kept first") != 1 ||
		l.count("warn", "Content-Usage: the routes' preferences together are over 8192 bytes") != 1 ||
		l.count("warn", "left out +x-aaaa=y, ") != 1 ||
		l.count("warn", "") != 2 {
		t.Errorf("warnings:\n%.2000s", l.all("warn"))
	}
	resp, _ := s.do(t, "GET", "/?own=1")
	if got := sfvMembers(t, resp.Header.Values("Robots-Tag"))["*"]; fmt.Sprint(got) != "[noarchive]" {
		t.Errorf("the handler's readable member: %v", got)
	}
	if u := contentUsage(t, resp.Header); u["train-ai"] != "n" || u["search"] != "" {
		t.Errorf("the handler's unparsable Content-Usage passed on as %v", resp.Header.Values("Content-Usage"))
	}
	if l.count("debug", "reading the handler's robots header") == 0 || l.count("debug", "Content-Usage from the handler, not all passed on") == 0 {
		t.Errorf("debug:\n%s", l.all("debug"))
	}
}

// TestSuperfluousWriteHeader: a second WriteHeader is ignored, as net/http ignores it, also
// while the wrapper holds the first status back (for a page whose meta elements are being
// placed, or whose type is being sniffed): the client gets the first status.
func TestSuperfluousWriteHeader(t *testing.T) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ct := r.URL.Query().Get("ct"); ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		w.WriteHeader(200)
		w.WriteHeader(500)
		w.WriteHeader(http.StatusEarlyHints)
		_, _ = io.WriteString(w, page)
	})
	bare := startH1(t, handler)
	for _, s := range both(t, frontEnd(mustCore(t, metaConfig), handler)) {
		for _, q := range []string{"?ct=text/html", "", "?ct=text/plain"} {
			bresp, _ := bare.do(t, "GET", "/"+q)
			resp, body := s.do(t, "GET", "/"+q)
			if resp.StatusCode != 200 || bresp.StatusCode != 200 {
				t.Errorf("%s %s: status %d (bare %d), want 200", s.name, q, resp.StatusCode, bresp.StatusCode)
			}
			metas, _ := headMeta(t, body)
			if want := q != "?ct=text/plain"; (metas["robots"] == "noindex") != want {
				t.Errorf("%s %s: meta elements %v, want them %v", s.name, q, metas, want)
			}
		}
	}
}
