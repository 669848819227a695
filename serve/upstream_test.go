package serve

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// upstreamFor returns an Upstream over a declared "Disallow: /drafts/" for * whose backend
// serves "Disallow: /wp-admin/", and a func that serves one GET /robots.txt through it.
func upstreamFor(t *testing.T, maxAge time.Duration) (*upstream, func() string) {
	t.Helper()
	declared := robotsgen.File{Groups: []robotsgen.Group{{
		UserAgents: []string{"*"},
		Rules:      []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/drafts/"}},
	}}}
	_, u, err := newMergingRobotsTxt(declared, maxAge, policy.Merge{MergeUpstream: true}, requestLog{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fetch := HandlerFunc(func(w http.ResponseWriter, _ *http.Request) error {
		w.Header().Set("Content-Type", "text/plain")
		_, err := w.Write([]byte("User-agent: *\nDisallow: /wp-admin/\n"))
		return err
	})
	get := func() string {
		w := httptest.NewRecorder()
		if err := u.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://example.com/robots.txt", nil), fetch); err != nil {
			t.Fatal(err)
		}
		return w.Body.String()
	}
	return u, get
}

// TestUpstreamExpiresByTimer: a cached merge is served without a fetch until max_age has
// passed, and revalidated (one background fetch) after it, without reading a clock per request.
func TestUpstreamExpiresByTimer(t *testing.T) {
	t.Parallel()
	u, get := upstreamFor(t, time.Second)
	if body := get(); !strings.Contains(body, "Disallow: /wp-admin/") || !strings.Contains(body, "Disallow: /drafts/") {
		t.Fatalf("not a merge:\n%s", body)
	}
	for range 100 {
		get()
	}
	if n := u.Fetches(); n != 1 {
		t.Fatalf("%d fetches within max_age, want 1", n)
	}
	deadline := time.Now().Add(5 * time.Second)
	for u.Fetches() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("no revalidation after max_age")
		}
		time.Sleep(50 * time.Millisecond)
		get()
	}
}

// TestUpstreamStop: after Stop (a Caddy reload replaced the handler) no timer holds a merge,
// and a request still served by the old handler revalidates instead of serving it forever.
func TestUpstreamStop(t *testing.T) {
	u, get := upstreamFor(t, time.Hour)
	get()
	u.Stop()
	u.mu.RLock()
	for k, e := range u.hosts {
		if e.timer != nil {
			t.Errorf("%v: timer still armed after Stop", k)
		}
	}
	u.mu.RUnlock()
	get()
	deadline := time.Now().Add(5 * time.Second)
	for u.Fetches() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("a stopped Upstream served its cached merge without revalidating")
		}
		time.Sleep(10 * time.Millisecond)
		get()
	}
	u.mu.RLock()
	defer u.mu.RUnlock()
	for k, e := range u.hosts {
		if e.timer != nil {
			t.Errorf("%v: a fetch after Stop armed a timer", k)
		}
	}
}

// TestLooksLikeHTML: a backend's /robots.txt is an HTML page when its Content-Type says so as
// a browser reads it, whatever malformed parameter it carries, or its body opens a tag.
func TestLooksLikeHTML(t *testing.T) {
	text := []byte("User-agent: *\nDisallow: /x\n")
	for _, ct := range [][]string{
		{"text/html"}, {"TEXT/HTML"}, {"text/html; charset"}, {"text/html;;"}, {`text/html; charset=""`},
		{"text/html; charset=utf-8; foo"}, {"\ttext/html ;charset=utf-8 "}, {"text/html; charset=a; charset=b"},
		{"application/xhtml+xml"}, {"text/plain", "text/html"}, {"text/plain, text/html; x"},
		{"text/html", "*/*"}, {"text/html", "nonsense"},
	} {
		if !looksLikeHTML(ct, text) {
			t.Errorf("Content-Type %q: not HTML", ct)
		}
	}
	for _, ct := range [][]string{nil, {""}, {"text/plain"}, {"text/html", "text/plain"}, {"text /html"}, {"text/htm"}, {"html"}} {
		if looksLikeHTML(ct, text) {
			t.Errorf("Content-Type %q: HTML", ct)
		}
	}
	if !looksLikeHTML([]string{"text/plain"}, []byte("\xEF\xBB\xBF \n<!DOCTYPE html>")) {
		t.Error("a body that opens a tag is HTML whatever its type")
	}
}
