package metrics

import (
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/mimetype"
)

// HTMLPage's shortcut for one Content-Type value answers as mimetype.Extract does, over
// values made of pieces that parse, fail to parse, or confuse a naive reading.
func TestHTMLPageAgreesWithExtract(t *testing.T) {
	pieces := []string{"text/html", "TEXT/HTML", "text/htm", "text/html2", "application/xhtml+xml", "application/xhtml", "text", "/html", "text/", "", " ", "\t", ";", "; charset=utf-8", ";charset=\"x;y\"", ",", "text/plain", "\"", "=", "x", "html", "/", "\r\n"}
	r := rand.New(rand.NewPCG(37, 5))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for range 1 + r.IntN(4) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		v := b.String()
		mt, ok := mimetype.Extract([]string{v})
		want := ok && (mt.IsHTML() || mt.IsXHTML())
		if got := HTMLPage(http.MethodGet, 200, []string{v}); got != want {
			t.Fatalf("HTMLPage(%q) = %v, mimetype.Extract says %v", v, got, want)
		}
	}
	for _, c := range []struct {
		method string
		status int
		ct     []string
		want   bool
	}{
		{"GET", 200, []string{"text/html"}, true},
		{"HEAD", 200, []string{"text/html"}, false},
		{"GET", 301, []string{"text/html"}, false},
		{"GET", 404, []string{"text/html"}, false},
		{"GET", 206, []string{"text/html"}, true},
		{"GET", 200, nil, false},
		{"GET", 200, []string{"image/png", "text/html"}, true}, // the last valid value decides
	} {
		if got := HTMLPage(c.method, c.status, c.ct); got != c.want {
			t.Errorf("HTMLPage(%s, %d, %q) = %v", c.method, c.status, c.ct, got)
		}
	}
}
