package nethttp_test

import (
	"net/http"
	"testing"

	"github.com/sitepolicy/caddy-robots/nethttp"
)

// licenseMiddleware is benchMiddleware's routes with an RSL license each (the same on both,
// another on *.pdf), and a route with only a license.
func licenseMiddleware(b testing.TB) *nethttp.Middleware {
	m, err := nethttp.New(nethttp.Config{
		RobotsTag: []nethttp.Route{
			{Paths: []string{"/drafts/*"}, Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex", "nosnippet"}}, Licenses: []string{"/license.xml"}}},
			{Paths: []string{"*.pdf"}, Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, Licenses: []string{"https://rights.example.org/rsl.xml"}}},
			{Paths: []string{"/open/*"}, Tags: nethttp.TagConfig{Licenses: []string{"/license.xml"}}},
		},
	}, nethttp.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// backendLinkHandler sends a Link of its own, as pages with preload hints do.
func backendLinkHandler(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Link", `</style.css>; rel=preload; as=style`)
	_, _ = w.Write(okBody)
}

// BenchmarkMiddlewareLicense is BenchmarkMiddlewareHeaderRoute's request on the route with a
// license: the Link field is precomputed.
func BenchmarkMiddlewareLicense(b *testing.B) {
	benchServe(b, licenseMiddleware(b).Handler(http.HandlerFunc(okHandler)), "/drafts/post")
}

// BenchmarkMiddlewareLicenseTwoRoutes: two routes with licenses, their union cached.
func BenchmarkMiddlewareLicenseTwoRoutes(b *testing.B) {
	benchServe(b, licenseMiddleware(b).Handler(http.HandlerFunc(okHandler)), "/drafts/x.pdf")
}

// BenchmarkMiddlewareLicenseOnly: a route with a license and nothing else, to compare with
// BenchmarkBareHandlerSettingHeader.
func BenchmarkMiddlewareLicenseOnly(b *testing.B) {
	benchServe(b, licenseMiddleware(b).Handler(http.HandlerFunc(okHandler)), "/open/post")
}

// BenchmarkMiddlewareLicenseBackendLink: the handler sends a Link of its own; the license's
// is added after it when the handler's does not link the license already.
func BenchmarkMiddlewareLicenseBackendLink(b *testing.B) {
	benchServe(b, licenseMiddleware(b).Handler(http.HandlerFunc(backendLinkHandler)), "/drafts/post")
}

// BenchmarkMiddlewareBackendLinkAlone is BenchmarkMiddlewareLicenseBackendLink's handler on the
// same route without a license: its baseline.
func BenchmarkMiddlewareBackendLinkAlone(b *testing.B) {
	benchServe(b, benchMiddleware(b).Handler(http.HandlerFunc(backendLinkHandler)), "/drafts/post")
}
