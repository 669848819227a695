package nethttp_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// The cost of merge_upstream once the merge is cached (the goal: at least 0.95x the req/s
// of a declared-only robots.txt). BenchmarkRobotsTxtMergePair runs both sides in one run:
//
//	go test -run '^$' -bench RobotsTxtMergePair -count 10 ./nethttp/

// wordpressHandler is a wrapped application serving WordPress's robots.txt and a page.
func wordpressHandler(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte(wordpressRobots))
		return
	}
	_, _ = w.Write(okBody)
}

// mergePairHandlers returns the middleware serving siteRobots alone and serving it merged
// with wordpressHandler's robots.txt, both wrapping wordpressHandler, the merged one's cache
// filled (and checked to hold the backend's rules).
func mergePairHandlers(tb testing.TB) (declared, merged http.Handler) {
	tb.Helper()
	m, err := nethttp.New(nethttp.Config{RobotsTxt: siteRobots}, nethttp.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	cfg := *siteRobots
	cfg.MergeUpstream = true
	mm, err := nethttp.New(nethttp.Config{RobotsTxt: &cfg}, nethttp.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	declared, merged = m.Handler(http.HandlerFunc(wordpressHandler)), mm.Handler(http.HandlerFunc(wordpressHandler))
	rec := httptest.NewRecorder()
	merged.ServeHTTP(rec, httptest.NewRequest("GET", "/robots.txt", nil))
	if rec.Code != 200 || !bytes.Contains(rec.Body.Bytes(), []byte("Disallow: /wp-admin/")) || !bytes.Contains(rec.Body.Bytes(), []byte("Disallow: /drafts/")) {
		tb.Fatalf("merged robots.txt: status %d\n%s", rec.Code, rec.Body.Bytes())
	}
	f, _ := robotsgen.Parse(rec.Body.Bytes())
	if robotsgen.NewMatcher(f).Decide("Bingbot", "", "/wp-admin/options.php").Allowed {
		tb.Fatalf("merged robots.txt lacks the backend's restriction:\n%s", rec.Body.Bytes())
	}
	return declared, merged
}

// BenchmarkRobotsTxtMergePair serves /robots.txt declared-only ("declared") and merged with
// the wrapped handler's cached robots.txt ("merged"), side by side.
func BenchmarkRobotsTxtMergePair(b *testing.B) {
	declared, merged := mergePairHandlers(b)
	b.Run("declared", func(b *testing.B) { benchServe(b, declared, "/robots.txt") })
	b.Run("merged", func(b *testing.B) { benchServe(b, merged, "/robots.txt") })
}
