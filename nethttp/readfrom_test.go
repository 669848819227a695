package nethttp_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/nethttp"
)

// readFromRecorder is a ResponseWriter with a ReadFrom of its own, like net/http's (sendfile):
// it records whether bodies came through it.
type readFromRecorder struct {
	*httptest.ResponseRecorder
	readFromCalls int
}

func (r *readFromRecorder) ReadFrom(src io.Reader) (int64, error) {
	r.readFromCalls++
	return io.Copy(r.ResponseRecorder, src)
}

// TestReadFromPaths: a body that is not rewritten keeps the underlying ReadFrom (the sendfile
// path); a rewritten body goes through the injector even when copied with ReadFrom.
func TestReadFromPaths(t *testing.T) {
	m := mustNew(t, nethttp.Config{RobotsTag: []nethttp.Route{
		{Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, Meta: true}},
	}})
	for _, c := range []struct {
		ct           string
		wantReadFrom bool
		wantMeta     bool
	}{
		{"application/pdf", true, false},
		{"image/png", true, false},
		{"text/html; charset=utf-8", false, true},
	} {
		h := m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", c.ct)
			w.WriteHeader(200)
			if _, err := w.(io.ReaderFrom).ReadFrom(strings.NewReader(page)); err != nil {
				t.Error(err)
			}
		}))
		rec := &readFromRecorder{ResponseRecorder: httptest.NewRecorder()}
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/x", nil))
		if got := rec.readFromCalls > 0; got != c.wantReadFrom {
			t.Errorf("%s: underlying ReadFrom used = %v, want %v", c.ct, got, c.wantReadFrom)
		}
		hasMeta := bytes.Contains(rec.Body.Bytes(), []byte(`<meta name="robots" content="noindex">`))
		if hasMeta != c.wantMeta {
			t.Errorf("%s: meta injected = %v, want %v; body %s", c.ct, hasMeta, c.wantMeta, rec.Body.Bytes())
		}
		if !c.wantMeta && rec.Body.String() != page {
			t.Errorf("%s: body changed", c.ct)
		}
	}
}
