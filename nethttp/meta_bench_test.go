package nethttp_test

import (
	"net/http"
	"testing"

	"github.com/sitepolicy/caddy-robots/nethttp"
)

var metaPage = []byte("<!DOCTYPE html><html><head><title>t</title></head><body><p>page</p></body></html>")

// benchMetaPage serves a small HTML page with contentType through a route with meta: the
// Content-Type decision and the injection of <meta name="robots">.
func benchMetaPage(b *testing.B, contentType string) {
	m, err := nethttp.New(nethttp.Config{RobotsTag: []nethttp.Route{
		{Paths: []string{"/drafts/*"}, Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, Meta: true}},
	}}, nethttp.Options{})
	if err != nil {
		b.Fatal(err)
	}
	benchServe(b, m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(metaPage)
	})), "/drafts/a")
}

func BenchmarkMetaPage(b *testing.B) { benchMetaPage(b, "text/html; charset=utf-8") }

// BenchmarkMetaPageMalformedType: a type browsers read as HTML that mime.ParseMediaType
// refuses.
func BenchmarkMetaPageMalformedType(b *testing.B) { benchMetaPage(b, "text/html; charset") }
