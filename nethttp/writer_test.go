package nethttp_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sitepolicy/caddy-robots/nethttp"
)

// TestHTTP2 runs robots.txt, the header and meta injection over HTTP/2 with TLS.
func TestHTTP2(t *testing.T) {
	m := mustNew(t, nethttp.Config{
		RobotsTxt: siteRobots,
		RobotsTag: []nethttp.Route{{Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, Meta: true}}},
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
