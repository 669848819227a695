package serve_test

// Helpers of the black-box tests: Cores built with serve.New, a front end as thin as
// nethttp's, and real loopback servers (HTTP/1.1, and HTTP/2 over TLS) to drive them.

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sitepolicy/caddy-robots/internal/fixture"

	"github.com/dunglas/httpsfv"
	"golang.org/x/net/html"

	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/serve"
	"github.com/sitepolicy/caddy-robots/tagemit"
)

// frontEnd is the smallest front end over a Core, as thin as nethttp's: the Core's pipeline,
// with the wrapped handler serving merge_upstream's fetch.
func frontEnd(c *serve.Core, next http.Handler) http.Handler {
	h := serve.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error { next.ServeHTTP(w, r); return nil })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _ = c.ServeHTTP(w, r, h) })
}

func mustCore(t testing.TB, cfg policy.Config, opts ...serve.Options) *serve.Core {
	t.Helper()
	var o serve.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	c, err := serve.New(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// site is a loopback server and the client to reach it.
type site struct {
	name string // "h1" or "h2"
	url  string
	c    *http.Client
}

// startH1 serves h over HTTP/1.1 on loopback.
func startH1(t testing.TB, h http.Handler) site {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	tr := &http.Transport{DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	return site{"h1", srv.URL, &http.Client{Transport: tr}}
}

// startH2 serves h over HTTP/2 with TLS on loopback.
func startH2(t testing.TB, h http.Handler) site {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	c := srv.Client()
	tr := c.Transport.(*http.Transport)
	tr.ForceAttemptHTTP2 = true
	tr.DisableCompression = true
	return site{"h2", srv.URL, c}
}

// both serves h over HTTP/1.1 and HTTP/2.
func both(t testing.TB, h http.Handler) []site {
	t.Helper()
	return []site{startH1(t, h), startH2(t, h)}
}

// do sends one request with the header pairs hdr and returns the response with its body read.
func (s site) do(t testing.TB, method, path string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if strings.EqualFold(hdr[i], "Host") {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Add(hdr[i], hdr[i+1])
	}
	resp, err := s.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if want := "HTTP/1.1"; s.name == "h2" {
		if resp.ProtoMajor != 2 {
			t.Fatalf("h2 server answered over %s", resp.Proto)
		}
	} else if resp.Proto != want {
		t.Fatalf("h1 server answered over %s", resp.Proto)
	}
	return resp, body
}

var robotsTag = fixture.RobotsTag

// sfvMembers is the Robots-Tag list as httpsfv reads it: each member's token and its
// parameters ("name" or "name=value"), in order.
func sfvMembers(t testing.TB, lines []string) map[string][]string {
	t.Helper()
	l, err := httpsfv.UnmarshalList(lines)
	if err != nil {
		t.Fatalf("%q is not a Structured Field List: %v", lines, err)
	}
	out := map[string][]string{}
	for _, m := range l {
		it, ok := m.(httpsfv.Item)
		if !ok {
			t.Fatalf("%q: member %v is not an Item", lines, m)
		}
		var tok string
		switch v := it.Value.(type) {
		case httpsfv.Token:
			tok = string(v)
		case string:
			tok = v
		default:
			t.Fatalf("%q: member %v is neither a Token nor a String", lines, it.Value)
		}
		for _, k := range it.Params.Names() {
			v, _ := it.Params.Get(k)
			switch v := v.(type) {
			case bool:
				out[tok] = append(out[tok], k)
			case int64:
				out[tok] = append(out[tok], k+"="+strconv.FormatInt(v, 10))
			case httpsfv.Token:
				out[tok] = append(out[tok], k+"="+string(v))
			case string:
				out[tok] = append(out[tok], k+"="+v)
			default:
				t.Fatalf("%q: parameter %s is %T", lines, k, v)
			}
		}
	}
	return out
}

// contentUsage reads a Content-Usage field with httpsfv as the Dictionary it must be.
func contentUsage(t testing.TB, h http.Header) map[string]string {
	t.Helper()
	lines := h.Values("Content-Usage")
	if len(lines) == 0 {
		return nil
	}
	d, err := httpsfv.UnmarshalDictionary(lines)
	if err != nil {
		t.Fatalf("Content-Usage %q is not a Structured Field Dictionary: %v", lines, err)
	}
	out := map[string]string{}
	for _, k := range d.Names() {
		m, _ := d.Get(k)
		it, ok := m.(httpsfv.Item)
		if !ok {
			t.Fatalf("Content-Usage %q: %s is not an Item", lines, k)
		}
		tok, ok := it.Value.(httpsfv.Token)
		if !ok {
			t.Fatalf("Content-Usage %q: %s is %T, want a Token", lines, k, it.Value)
		}
		out[k] = string(tok)
	}
	return out
}

// headMeta returns the name/content pairs of the meta elements x/net/html's full parser puts
// in <head>, and how many there are.
func headMeta(t testing.TB, body []byte) (map[string]string, int) {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	n := 0
	var walk func(n *html.Node, inHead bool)
	walk = func(nd *html.Node, inHead bool) {
		if nd.Type == html.ElementNode && nd.Data == "head" {
			inHead = true
		}
		if inHead && nd.Type == html.ElementNode && nd.Data == "meta" {
			var name, content string
			for _, a := range nd.Attr {
				switch a.Key {
				case "name":
					name = a.Val
				case "content":
					content = a.Val
				}
			}
			if name != "" {
				out[name] = content
				n++
			}
		}
		for c := nd.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inHead)
		}
	}
	walk(doc, false)
	return out, n
}

// logs collects what a Core reports through Options.
type logs struct {
	mu    sync.Mutex
	debug []string
	warn  []string
	file  []string // merge_file's warnings
}

func (l *logs) options() serve.Options {
	return serve.Options{Logger: slog.New(l)}
}

// logs is a slog.Handler: a line about a request (with "uri") is debug or warn, one without
// is about merge_file ("file").
func (l *logs) Enabled(context.Context, slog.Level) bool { return true }
func (l *logs) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logs) WithGroup(string) slog.Handler            { return l }
func (l *logs) Handle(_ context.Context, rec slog.Record) error {
	request := false
	rec.Attrs(func(a slog.Attr) bool { request = request || a.Key == "uri"; return true })
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case !request && rec.Level == slog.LevelWarn:
		l.file = append(l.file, rec.Message)
	case rec.Level == slog.LevelDebug:
		l.debug = append(l.debug, rec.Message)
	case rec.Level == slog.LevelWarn:
		l.warn = append(l.warn, rec.Message)
	}
	return nil
}

// count returns how many messages of the kind ("debug", "warn", "file") contain substr.
func (l *logs) count(kind, substr string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	var list []string
	switch kind {
	case "debug":
		list = l.debug
	case "warn":
		list = l.warn
	default:
		list = l.file
	}
	n := 0
	for _, m := range list {
		if strings.Contains(m, substr) {
			n++
		}
	}
	return n
}

func (l *logs) all(kind string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch kind {
	case "debug":
		return strings.Join(l.debug, "\n")
	case "warn":
		return strings.Join(l.warn, "\n")
	}
	return strings.Join(l.file, "\n")
}

func rules(kv ...string) map[string][]string {
	m := map[string][]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = append(m[kv[i]], strings.Split(kv[i+1], ",")...)
	}
	return m
}

func mustPolicy(t testing.TB, r map[string][]string) tagemit.Policy {
	t.Helper()
	p, err := tagemit.NewPolicy(r)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
