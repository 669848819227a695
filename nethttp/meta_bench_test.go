package nethttp_test

import (
	"net/http"
	"testing"

	"github.com/sitepolicy/caddy-robots/nethttp"
)

var metaPage = []byte("<!DOCTYPE html><html><head><title>t</title></head><body><p>page</p></body></html>")

// benchMetaPage serves a small HTML page with contentType through a route with meta: the
// Content-Type decision and the injection of <meta name="robots">.
func benchMetaPage(b *testing.B, contentType string, licenses ...string) {
	benchServe(b, metaPageHandler(b, contentType, licenses...), "/drafts/a")
}

// metaPageHandler serves metaPage with contentType through a route with meta and, if given,
// RSL licenses.
func metaPageHandler(b testing.TB, contentType string, licenses ...string) http.Handler {
	m, err := nethttp.New(nethttp.Config{RobotsTag: []nethttp.Route{
		{Paths: []string{"/drafts/*"}, Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, Meta: true, Licenses: licenses}},
	}}, nethttp.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(metaPage)
	}))
}

func BenchmarkMetaPage(b *testing.B) { benchMetaPage(b, "text/html; charset=utf-8") }

// BenchmarkMetaPageMalformedType: a type browsers read as HTML that mime.ParseMediaType
// refuses.
func BenchmarkMetaPageMalformedType(b *testing.B) { benchMetaPage(b, "text/html; charset") }

// BenchmarkMetaPageLicense is BenchmarkMetaPage's page on the route with an RSL license too: a
// Link field and a <link> element after the meta element, both serialised at load.
func BenchmarkMetaPageLicense(b *testing.B) {
	benchMetaPage(b, "text/html; charset=utf-8", "/license.xml")
}
