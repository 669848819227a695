package nethttp_test

// Tests of how a body is delivered to the middleware: how the handler splits and flushes its
// writes, whether it sets a Content-Type, ranges, empty bodies, encodings and encoded bodies.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/tagemit"
)

var metaRoute = nethttp.Config{RobotsTag: []nethttp.Route{
	{Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, Meta: true}},
}}

const noindexMeta = `<meta name="robots" content="noindex">`

// writePlan is how a handler delivers a body: the sizes of its writes, and after which write
// (if any) it flushes.
type writePlan struct {
	body   []byte
	ctype  string // "" sets none
	splits []int
	flush  int // flush after this many writes; 0 for none
}

func (p writePlan) serve(w http.ResponseWriter) {
	if p.ctype != "" {
		w.Header().Set("Content-Type", p.ctype)
	}
	rest := p.body
	for i, n := range p.splits {
		n = min(n, len(rest))
		_, _ = w.Write(rest[:n])
		rest = rest[n:]
		if i+1 == p.flush {
			_ = http.NewResponseController(w).Flush()
		}
	}
	_, _ = w.Write(rest)
}

// planServers starts two servers running the plans selected by the "i" query parameter: one
// bare, one behind the middleware.
func planServers(t *testing.T, plans []writePlan, h2 bool) (bare, tagged *httptest.Server, c *http.Client) {
	t.Helper()
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i, _ := strconv.Atoi(r.URL.Query().Get("i"))
		plans[i].serve(w)
	})
	start := func(h http.Handler) *httptest.Server {
		srv := httptest.NewUnstartedServer(h)
		if h2 {
			srv.EnableHTTP2 = true
			srv.StartTLS()
		} else {
			srv.Start()
		}
		t.Cleanup(srv.Close)
		return srv
	}
	bare = start(handler)
	tagged = start(mustNew(t, metaRoute).Handler(handler))
	c = http.DefaultClient
	if h2 {
		c = tagged.Client()
		tr := c.Transport.(*http.Transport)
		tr.ForceAttemptHTTP2 = true
		// One client for both servers: both use httptest's certificate.
	}
	return bare, tagged, c
}

var sniffBodies = []string{
	page,
	"\r\n\t <!DOCTYPE html><html><head><title>x</title></head><body>y</body></html>",
	"<html><head></head><body>" + strings.Repeat("x", 700) + "</body></html>",
	"   <p>para</p>",
	"<!-- c --><head><title>t</title></head>",
	"<?xml version=\"1.0\"?><html xmlns=\"http://www.w3.org/1999/xhtml\"><head></head></html>",
	"plain text that mentions <html> later",
	strings.Repeat(" ", 600) + "<html><head></head></html>", // whitespace past the sniff window
	"%PDF-1.4 binary",
	"\x89PNG\r\n\x1a\n....",
	"{\"json\": true}",
	"\xef\xbb\xbf<html><head></head></html>",
	"GIF89a",
	"<SCRIPT>var x</SCRIPT>",
	"<br>",
	"<ht",
}

// TestSniffedContentTypeMatchesNetHTTP: a handler that sets no Content-Type gets, through the
// middleware, the Content-Type net/http gives it without, however it splits and flushes its
// writes; an HTML page that net/http sniffs as text/html gets the meta element.
func TestSniffedContentTypeMatchesNetHTTP(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	var plans []writePlan
	for _, b := range sniffBodies {
		for k := 0; k < 12; k++ {
			p := writePlan{body: []byte(b)}
			for n := len(b); n > 0; {
				s := 1 + r.Intn(max(1, len(b)/3))
				if r.Intn(4) == 0 {
					s = r.Intn(3) // tiny writes, and empty ones
				}
				p.splits = append(p.splits, s)
				n -= s
			}
			if r.Intn(3) == 0 {
				p.flush = 1 + r.Intn(len(p.splits)+1)
			}
			plans = append(plans, p)
		}
	}
	for _, h2 := range []bool{false, true} {
		t.Run(fmt.Sprintf("h2=%v", h2), func(t *testing.T) {
			bare, tagged, c := planServers(t, plans, h2)
			for i, p := range plans {
				q := fmt.Sprintf("/?i=%d", i)
				bresp, bbody := get(t, c, "GET", bare.URL+q)
				tresp, tbody := get(t, c, "GET", tagged.URL+q)
				if h2 && tresp.ProtoMajor != 2 {
					t.Fatalf("proto %s", tresp.Proto)
				}
				bct, tct := bresp.Header.Values("Content-Type"), tresp.Header.Values("Content-Type")
				if fmt.Sprint(bct) != fmt.Sprint(tct) {
					t.Fatalf("plan %d (%q, writes %v, flush after %d): Content-Type %q through the middleware, %q without", i, p.body, p.splits, p.flush, tct, bct)
				}
				if !bytes.Equal(bbody, p.body) {
					t.Fatalf("bare server changed the body")
				}
				isHTML := strings.HasPrefix(tresp.Header.Get("Content-Type"), "text/html")
				injected := bytes.Contains(tbody, []byte(noindexMeta))
				if !isHTML && !bytes.Equal(tbody, p.body) {
					t.Fatalf("plan %d: a %s body was changed: %q", i, tct, tbody)
				}
				if isHTML && !injected && !bytes.Equal(tbody, p.body) {
					t.Fatalf("plan %d: body %q", i, tbody)
				}
				if isHTML && p.flush == 0 && !injected {
					t.Fatalf("plan %d: HTML page without the meta element: %q", i, tbody)
				}
			}
		})
	}
}

// TestEmptyBody: an empty HTML body is answered the same however the handler produces it, and
// gets no meta element (the injector passes an empty body through): status 200, Content-Length
// 0, the handler's Content-Type. Without a Content-Type, the middleware answers as net/http.
func TestEmptyBody(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "empty.html"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fs := http.FileServer(http.Dir(dir))
	const ct = "text/html; charset=utf-8"
	variants := map[string]http.HandlerFunc{
		"nothing":     func(w http.ResponseWriter, r *http.Request) {},
		"WriteHeader": func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) },
		"Write(nil)":  func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(nil) },
		"Write([]byte{})": func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte{})
		},
		"Flush": func(w http.ResponseWriter, r *http.Request) { _ = http.NewResponseController(w).Flush() },
		"ReadFrom": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(w, strings.NewReader(""))
		},
		"ServeContent": func(w http.ResponseWriter, r *http.Request) {
			http.ServeContent(w, r, "empty.html", time.Unix(1e9, 0), strings.NewReader(""))
		},
		"FileServer": func(w http.ResponseWriter, r *http.Request) {
			r.URL.Path = "/empty.html"
			fs.ServeHTTP(w, r)
		},
	}
	for name, h := range variants {
		for _, setCT := range []bool{true, false} {
			if !setCT && (name == "ServeContent" || name == "FileServer") {
				continue // they always set one
			}
			t.Run(fmt.Sprintf("%s/ct=%v", name, setCT), func(t *testing.T) {
				handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if setCT {
						w.Header().Set("Content-Type", ct)
					}
					h(w, r)
				})
				bare := httptest.NewServer(handler)
				defer bare.Close()
				tagged := serve(t, mustNew(t, metaRoute), handler)
				bresp, _ := get(t, nil, "GET", bare.URL+"/")
				resp, body := get(t, nil, "GET", tagged.URL+"/")
				if resp.StatusCode != 200 || len(body) != 0 {
					t.Fatalf("status %d, body %q", resp.StatusCode, body)
				}
				for _, k := range []string{"Content-Type", "Content-Length"} {
					if got, want := resp.Header.Values(k), bresp.Header.Values(k); fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("%s %q through the middleware, %q without", k, got, want)
					}
				}
				// (A flushed response has no Content-Length, with or without the middleware.)
				if setCT && (resp.Header.Get("Content-Type") != ct || resp.Header.Get("Content-Length") != "0" && name != "Flush") {
					t.Errorf("Content-Type %q, Content-Length %q", resp.Header.Get("Content-Type"), resp.Header.Get("Content-Length"))
				}
				if resp.Header.Get("Robots-Tag") != "*;noindex" {
					t.Errorf("Robots-Tag %q", resp.Header.Get("Robots-Tag"))
				}
			})
		}
	}
}

// TestRangeOnMetaRoute: a Range request on a route with meta elements never gets bytes of the
// unrewritten page, with or without If-Range (a date equal to Last-Modified, the weak or the
// strong entity tag): the answer is the full rewritten page. Files that are never rewritten
// keep their ranges, on that route too, and so do header-only routes.
func TestRangeOnMetaRoute(t *testing.T) {
	dir := t.TempDir()
	doc := "<!doctype html><html><head><title>t</title></head><body>" + strings.Repeat("<p>resume me</p>\n", 500) + "</body></html>"
	for name, b := range map[string]string{"page.html": doc, "video.mp4": strings.Repeat("\x00video", 1000)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fs := http.FileServer(http.Dir(dir))
	m := mustNew(t, nethttp.Config{RobotsTag: []nethttp.Route{
		{Paths: []string{"/meta/*"}, Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, Meta: true}},
		{Paths: []string{"/header/*"}, Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}}},
	}})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Etag", `"v7"`)
		r.URL.Path = r.URL.Path[strings.LastIndexByte(r.URL.Path, '/'):]
		fs.ServeHTTP(w, r)
	})
	for _, h2 := range []bool{false, true} {
		t.Run(fmt.Sprintf("h2=%v", h2), func(t *testing.T) {
			srv, c := loopback(t, m.Handler(h), h2)
			resp, full := get(t, c, "GET", srv.URL+"/meta/page.html")
			lm, etag := resp.Header.Get("Last-Modified"), resp.Header.Get("Etag")
			if !bytes.Contains(full, []byte(noindexMeta)) || etag != `W/"v7"` || lm == "" || resp.Header.Get("Accept-Ranges") != "" {
				t.Fatalf("rewritten page: ETag %q, Last-Modified %q, Accept-Ranges %q", etag, lm, resp.Header.Get("Accept-Ranges"))
			}
			for _, rng := range []string{"bytes=0-99", "bytes=100-", "bytes=-50", "bytes=10-19,40-49", "bytes=0-"} {
				for _, ifRange := range []string{"", lm, etag, `"v7"`, `"other"`, "Mon, 02 Jan 2006 15:04:05 GMT"} {
					hdr := []string{"Range", rng}
					if ifRange != "" {
						hdr = append(hdr, "If-Range", ifRange)
					}
					resp, body := get(t, c, "GET", srv.URL+"/meta/page.html", hdr...)
					if resp.StatusCode != http.StatusOK || !bytes.Equal(body, full) {
						t.Errorf("Range %s If-Range %q: status %d, %d bytes (Content-Range %q); want the full rewritten page", rng, ifRange, resp.StatusCode, len(body), resp.Header.Get("Content-Range"))
					}
					if resp.Header.Get("Accept-Ranges") != "" || resp.Header.Get("Robots-Tag") == "" {
						t.Errorf("Accept-Ranges %q, Robots-Tag %q", resp.Header.Get("Accept-Ranges"), resp.Header.Get("Robots-Tag"))
					}
				}
			}
			// A file we never rewrite keeps its byte ranges on the meta route (video seeking).
			resp, body := get(t, c, "GET", srv.URL+"/meta/video.mp4", "Range", "bytes=0-9")
			if resp.StatusCode != http.StatusPartialContent || string(body) != "\x00video\x00vid" || resp.Header.Get("Accept-Ranges") != "bytes" || resp.Header.Get("Robots-Tag") == "" {
				t.Errorf("video on the meta route: status %d, body %q, Accept-Ranges %q", resp.StatusCode, body, resp.Header.Get("Accept-Ranges"))
			}
			// A header-only route keeps ranges.
			resp, body = get(t, c, "GET", srv.URL+"/header/page.html", "Range", "bytes=0-9", "If-Range", `"v7"`)
			if resp.StatusCode != http.StatusPartialContent || string(body) != doc[:10] || resp.Header.Get("Robots-Tag") == "" {
				t.Errorf("header route: status %d body %q", resp.StatusCode, body)
			}
			// HEAD on the meta route describes GET: no Accept-Ranges.
			resp, _ = get(t, c, "HEAD", srv.URL+"/meta/page.html")
			if resp.Header.Get("Accept-Ranges") != "" || resp.Header.Get("Etag") != etag {
				t.Errorf("HEAD: Accept-Ranges %q ETag %q", resp.Header.Get("Accept-Ranges"), resp.Header.Get("Etag"))
			}
		})
	}
}

func utf16LE(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

// TestEncodingsLeftAlone: pages in encodings that are not ASCII-compatible, whether the
// Content-Type, a byte order mark or the page itself says so, go out byte for byte with the
// header set and their own Content-Length.
func TestEncodingsLeftAlone(t *testing.T) {
	cases := []struct {
		ctype string
		body  []byte
	}{
		{"text/html; charset=UTF-16", utf16LE(page)},
		{"text/html; charset=utf-16le", utf16LE(page)},
		{`text/html; charset="UTF-16BE"`, []byte(page)},
		{"text/html;charset=utf-32", []byte(page)},
		{"text/html; charset=ISO-2022-JP", []byte(page)},
		{"text/html; charset=iso-2022-kr", []byte(page)},
		{"text/html; charset=HZ-GB-2312", []byte(page)},
		{"text/html; charset=utf-7", []byte(page)},
		{"TEXT/HTML; CHARSET=csUnicode", []byte(page)},
		{"text/html", append([]byte{0xFF, 0xFE}, utf16LE(page)...)},
		{"text/html", append([]byte{0xFE, 0xFF}, []byte("\x00<\x00h")...)},
		{"text/html", utf16LE(page)},
		{"text/html; charset=utf-8", append([]byte{0xFF, 0xFE}, utf16LE(page)...)}, // the BOM wins
		{"text/html", []byte(`<html><head><meta charset="utf-16"><title>t</title></head></html>`)},
		{"text/html", []byte("<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-2022-jp\"><title>\x1b$B<head>\x1b(B</title></head></html>")},
		{"text/html", []byte("<html><head><title>\x1b$B<head>\x1b(B</title></head></html>")},
		// A charset a browser does not know, or an empty one, is none: the page decides.
		{"text/html; charset=no-such-label", []byte(`<html><head><meta charset="utf-16"><title>t</title></head></html>`)},
		{`text/html; charset=""`, []byte(`<html><head><meta charset="utf-16"><title>t</title></head></html>`)},
		{"text/html; charset", []byte("<html><head><title>\x1b$B<head>\x1b(B</title></head></html>")},
		{"text/html;;charset=utf-7;charset=utf-8", []byte(page)}, // the first charset counts
		{"text/plain, text/html;charset=utf-16", []byte(page)},
		{"text/html;charset=utf-16, text/html", []byte(page)}, // the charset carries over
		{"", append([]byte{0xFF, 0xFE}, utf16LE(page)...)},    // sniffed text/plain; charset=utf-16le
	}
	for i, c := range cases {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if c.ctype != "" {
				w.Header().Set("Content-Type", c.ctype)
			}
			w.Header().Set("Content-Length", strconv.Itoa(len(c.body)))
			// Split writes: the decision waits for the bytes it needs.
			for b := c.body; len(b) > 0; b = b[min(3, len(b)):] {
				_, _ = w.Write(b[:min(3, len(b))])
			}
		})
		srv := serve(t, mustNew(t, metaRoute), h)
		resp, body := get(t, nil, "GET", srv.URL+"/")
		if !bytes.Equal(body, c.body) {
			t.Errorf("case %d (%s, %.20q): body changed to %.80q", i, c.ctype, c.body, body)
		}
		if resp.Header.Get("Robots-Tag") != "*;noindex" || resp.Header.Get("Content-Length") != strconv.Itoa(len(c.body)) {
			t.Errorf("case %d: Robots-Tag %q, Content-Length %q", i, resp.Header.Get("Robots-Tag"), resp.Header.Get("Content-Length"))
		}
	}
	// ASCII-compatible charsets are rewritten.
	for _, cs := range []string{"utf-8", "ISO-8859-1", "windows-1252", "Shift_JIS", "euc-jp", "gb18030", "koi8-r", "x-user-defined"} {
		srv := serve(t, mustNew(t, metaRoute), htmlHandlerWithType(page, "text/html; charset="+cs))
		_, body := get(t, nil, "GET", srv.URL+"/")
		if !bytes.Contains(body, []byte(noindexMeta)) {
			t.Errorf("charset %s: not rewritten", cs)
		}
	}
}

func htmlHandlerWithType(body, ctype string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		_, _ = io.WriteString(w, body)
	}
}

// logCapture is a slog.Handler that keeps the records it is given.
type logCapture struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (l *logCapture) Enabled(context.Context, slog.Level) bool { return true }
func (l *logCapture) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recs = append(l.recs, r)
	return nil
}
func (l *logCapture) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logCapture) WithGroup(string) slog.Handler      { return l }

func (l *logCapture) at(level slog.Level, substr string) []slog.Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []slog.Record
	for _, r := range l.recs {
		if r.Level == level && strings.Contains(r.Message, substr) {
			out = append(out, r)
		}
	}
	return out
}

// TestEncodedBodyWarnsOnce: meta elements wanted, HTML body already encoded: the first such
// response logs a warning with the fix, once per route; the body is left alone.
func TestEncodedBodyWarnsOnce(t *testing.T) {
	logs := &logCapture{}
	m, err := nethttp.New(nethttp.Config{RobotsTag: []nethttp.Route{
		{Paths: []string{"/a/*"}, Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, Meta: true}},
		{Paths: []string{"/b/*"}, Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"nosnippet"}}, Meta: true}},
	}}, nethttp.Options{Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", r.URL.Query().Get("ce"))
		w.Header().Set("Content-Type", r.URL.Query().Get("ct"))
		_, _ = io.WriteString(w, "not really compressed")
	}))
	c := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, q := range []string{"/a/x?ce=identity&ct=text/html", "/a/x?ce=gzip&ct=text/css", "/a/x?ce=&ct=text/html"} {
		get(t, c, "GET", srv.URL+q)
	}
	if got := logs.at(slog.LevelWarn, ""); len(got) != 0 {
		t.Fatalf("warned without an encoded HTML body: %q", got[0].Message)
	}
	for i := 0; i < 3; i++ {
		_, body := get(t, c, "GET", srv.URL+"/a/x?ce=gzip&ct=text/html")
		if string(body) != "not really compressed" {
			t.Fatalf("encoded body changed: %q", body)
		}
		get(t, c, "GET", srv.URL+"/a/y?ce=br&ct=text/html%3Bcharset%3Dutf-8")
	}
	warns := logs.at(slog.LevelWarn, "already encoded")
	if len(warns) != 1 {
		t.Fatalf("%d warnings for one route, want 1", len(warns))
	}
	msg := warns[0].Message
	for _, want := range []string{"meta elements not added", "gzip", "inside the block", "encode at site level"} {
		if !strings.Contains(msg, want) {
			t.Errorf("warning %q does not mention %q", msg, want)
		}
	}
	get(t, c, "GET", srv.URL+"/b/x?ce=zstd&ct=text/html")
	if n := len(logs.at(slog.LevelWarn, "already encoded")); n != 2 {
		t.Fatalf("another route's first encoded body: %d warnings in all, want 2", n)
	}
	if n := len(logs.at(slog.LevelDebug, "meta elements not added")); n != 7 {
		t.Errorf("%d debug records, want one per skipped response (7)", n)
	}
}

// TestCorpusDelivery serves the injector's HTML corpus through the middleware in several ways
// (one write, split writes, no Content-Type, a flush in the middle, http.FileServer with Range
// and If-Range) and checks each body against the injector's own output for the same writes.
func TestCorpusDelivery(t *testing.T) {
	files, err := filepath.Glob("../tagemit/testdata/html/*.html")
	if err != nil || len(files) < 40 {
		t.Fatalf("corpus: %d files, %v", len(files), err)
	}
	pol, err := tagemit.NewPolicy(map[string][]string{"*": {"noindex"}})
	if err != nil {
		t.Fatal(err)
	}
	expect := func(doc []byte, flushAt int) []byte {
		var out bytes.Buffer
		in := tagemit.NewInjector(&out, pol, tagemit.InjectorOptions{})
		if flushAt > 0 {
			_, _ = in.Write(doc[:flushAt])
			_ = in.Flush()
			doc = doc[flushAt:]
		}
		_, _ = in.Write(doc)
		_ = in.Close()
		return out.Bytes()
	}
	dir := t.TempDir()
	docs := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[filepath.Base(f)] = b
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fs := http.FileServer(http.Dir(dir))
	srv := serve(t, mustNew(t, metaRoute), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		doc := docs[name]
		flushAt, _ := strconv.Atoi(r.URL.Query().Get("flush"))
		switch r.URL.Query().Get("how") {
		case "file":
			fs.ServeHTTP(w, r)
		case "one":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Content-Length", strconv.Itoa(len(doc)))
			_, _ = w.Write(doc)
		case "split":
			w.Header().Set("Content-Type", "text/html")
			for b := doc; len(b) > 0; b = b[min(7, len(b)):] {
				_, _ = w.Write(b[:min(7, len(b))])
			}
		case "nocontenttype":
			for b := doc; len(b) > 0; b = b[min(100, len(b)):] {
				_, _ = w.Write(b[:min(100, len(b))])
			}
		case "flush":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write(doc[:flushAt])
			_ = http.NewResponseController(w).Flush()
			_, _ = w.Write(doc[flushAt:])
		}
	}))
	for name, doc := range docs {
		lm := ""
		for _, how := range []string{"one", "split", "nocontenttype", "flush", "file", "range"} {
			flushAt := 0
			if how == "flush" {
				if i := bytes.Index(doc, []byte("<head>")); i >= 0 {
					flushAt = i + len("<head>") + 3 // mid-head
				}
				flushAt = min(flushAt, len(doc))
			}
			q := fmt.Sprintf("/%s?how=%s&flush=%d", name, how, flushAt)
			var hdr []string
			if how == "range" {
				q = fmt.Sprintf("/%s?how=file", name)
				hdr = []string{"Range", "bytes=5-", "If-Range", lm}
			}
			resp, body := get(t, nil, "GET", srv.URL+q, hdr...)
			if how == "file" {
				lm = resp.Header.Get("Last-Modified")
			}
			want := expect(doc, flushAt)
			if how == "nocontenttype" && !strings.HasPrefix(http.DetectContentType(doc), "text/html") {
				want = doc
			}
			if len(doc) == 0 {
				want = doc
			}
			if resp.StatusCode != 200 || !bytes.Equal(body, want) {
				t.Errorf("%s delivered %s: status %d, %d bytes, want %d bytes as the injector writes them", name, how, resp.StatusCode, len(body), len(want))
			}
			if cl := resp.Header.Get("Content-Length"); cl != "" && cl != strconv.Itoa(len(body)) {
				t.Errorf("%s delivered %s: Content-Length %s for %d bytes", name, how, cl, len(body))
			}
		}
	}
}

// TestRangeLeavesTheCallersRequestAlone: the Range-less request a meta route passes on is a
// copy; the caller's request keeps its headers and URL whatever the handler does to its own.
func TestRangeLeavesTheCallersRequestAlone(t *testing.T) {
	doc := "<!doctype html><html><head><title>t</title></head><body>" + strings.Repeat("x", 500) + "</body></html>"
	var seen []string
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.URL.Path+" Range="+r.Header.Get("Range"))
		r.URL.Path = strings.TrimPrefix(r.URL.Path, "/app") // an in-place rewrite
		http.ServeContent(w, r, "page.html", time.Unix(1e9, 0), strings.NewReader(doc))
	})
	m := mustNew(t, nethttp.Config{RobotsTag: []nethttp.Route{{Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, Meta: true}}}})
	var after string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.Handler(inner).ServeHTTP(w, r)
		after = r.URL.Path + " Range=" + r.Header.Get("Range")
	}))
	defer srv.Close()
	resp, body := get(t, nil, "GET", srv.URL+"/app/page.html", "Range", "bytes=0-9")
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(noindexMeta)) {
		t.Fatalf("status %d, body %.80q", resp.StatusCode, body)
	}
	if want := []string{"/app/page.html Range="}; fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("the handler saw %q, want %q", seen, want)
	}
	if after != "/app/page.html Range=bytes=0-9" {
		t.Errorf("the caller's request afterwards: %q", after)
	}
}
