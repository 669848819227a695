package caddymodule

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// htmlBackend serves an HTML page with Content-Length and a strong ETag, and the same page
// gzip-encoded at /gz (whatever the request accepts).
func htmlBackend(t *testing.T, page []byte) *httptest.Server {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(page)
	_ = zw.Close()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Etag", `"backend-v1"`)
		if r.URL.Path == "/proxy/gz" {
			h.Set("Content-Encoding", "gzip")
			h.Set("Content-Length", strconv.Itoa(gz.Len()))
			_, _ = w.Write(gz.Bytes())
			return
		}
		h.Set("Content-Length", strconv.Itoa(len(page)))
		_, _ = w.Write(page)
	}))
}

func exampleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../example")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestRobotsTagMetaInjection checks the meta elements behind file_server (which copies through
// ReadFrom), reverse_proxy and respond, with encode gzip in front, and the responses that must
// be left alone.
func TestRobotsTagMetaInjection(t *testing.T) {
	root := exampleRoot(t)
	page, err := os.ReadFile(filepath.Join(root, "drafts", "post.html"))
	if err != nil {
		t.Fatal(err)
	}
	backend := htmlBackend(t, page)
	defer backend.Close()
	small := `<!DOCTYPE html><html><head><title>Small</title></head><body><p>respond</p></body></html>`
	startCaddyfile(t, strings.NewReplacer("@BACKEND@", backend.Listener.Addr().String(), "@ROOT@", root, "@SMALL@", small).Replace(`
http://localhost:@PORT@ {
	root * "@ROOT@"
	encode gzip
	robots_tag noindex {
		agent GPTBot nosnippet
		meta
	}
	handle /proxy/* {
		reverse_proxy @BACKEND@
	}
	handle /respond {
		header Content-Type "text/html; charset=utf-8"
		respond "@SMALL@"
	}
	handle {
		file_server
	}
}
http://localhost:@PORT2@ {
	root * "@ROOT@"
	file_server
}
`))
	p := tagPolicy(t, map[string][]string{"*": {"noindex"}, "GPTBot": {"nosnippet"}})
	origResp, orig := do(t, "GET", site2URL("/drafts/post.html"))
	wantStatus(t, origResp, 200)
	origETag := origResp.Header.Get("Etag")
	if !bytes.Equal(orig, page) || origETag == "" || strings.HasPrefix(origETag, "W/") {
		t.Fatalf("the untagged site serves %d bytes with ETag %q; want the file and a strong ETag", len(orig), origETag)
	}

	t.Run("file_server", func(t *testing.T) {
		resp, body := do(t, "GET", siteURL("/drafts/post.html"))
		wantStatus(t, resp, 200)
		wantRobotsTag(t, resp, p)
		wantInjected(t, body, page, p)
		if got := resp.Header.Get("Content-Length"); got != strconv.Itoa(len(body)) {
			t.Errorf("Content-Length %q, body has %d bytes", got, len(body))
		}
		if got := resp.Header.Get("Etag"); got != "W/"+origETag {
			t.Errorf("ETag %q, want the weakened %q", got, "W/"+origETag)
		}
		if got := resp.Header.Get("Accept-Ranges"); got != "" {
			t.Errorf("Accept-Ranges %q on a rewritten body", got)
		}

		// A conditional request with the validator the client was given.
		nm, nmBody := do(t, "GET", siteURL("/drafts/post.html"), "If-None-Match: "+resp.Header.Get("Etag"))
		wantStatus(t, nm, http.StatusNotModified)
		if len(nmBody) != 0 {
			t.Errorf("304 with a body %q", nmBody)
		}
		wantRobotsTag(t, nm, p)
	})

	t.Run("encode gzip", func(t *testing.T) {
		resp, body := do(t, "GET", siteURL("/drafts/post.html"), "Accept-Encoding: gzip")
		wantStatus(t, resp, 200)
		if got := resp.Header.Get("Content-Encoding"); got != "gzip" {
			t.Fatalf("Content-Encoding %q, want gzip (the page is larger than encode's minimum)", got)
		}
		wantRobotsTag(t, resp, p)
		wantInjected(t, gunzip(t, body), page, p)
		if cl := resp.Header.Get("Content-Length"); cl != "" && cl != strconv.Itoa(len(body)) {
			t.Errorf("Content-Length %q, compressed body has %d bytes", cl, len(body))
		}
	})

	t.Run("reverse_proxy", func(t *testing.T) {
		resp, body := do(t, "GET", siteURL("/proxy/page"))
		wantStatus(t, resp, 200)
		wantRobotsTag(t, resp, p)
		wantInjected(t, body, page, p)
		if got := resp.Header.Get("Content-Length"); got != strconv.Itoa(len(body)) {
			t.Errorf("Content-Length %q, body has %d bytes", got, len(body))
		}
		if got := resp.Header.Get("Etag"); got != `W/"backend-v1"` {
			t.Errorf("ETag %q", got)
		}
	})

	t.Run("respond", func(t *testing.T) {
		resp, body := do(t, "GET", siteURL("/respond"))
		wantStatus(t, resp, 200)
		wantRobotsTag(t, resp, p)
		wantInjected(t, body, []byte(small), p)
		if got := resp.Header.Get("Content-Length"); got != strconv.Itoa(len(body)) {
			t.Errorf("Content-Length %q, body has %d bytes", got, len(body))
		}
	})

	t.Run("backend gzip left alone", func(t *testing.T) {
		// The client accepts gzip, so the proxy passes the backend's encoded body through:
		// robots_tag must not touch its bytes.
		direct, want := do(t, "GET", "http://"+backend.Listener.Addr().String()+"/proxy/gz", "Accept-Encoding: gzip")
		wantStatus(t, direct, 200)
		resp, body := do(t, "GET", siteURL("/proxy/gz"), "Accept-Encoding: gzip")
		wantStatus(t, resp, 200)
		wantRobotsTag(t, resp, p)
		if !bytes.Equal(body, want) || resp.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("an encoded backend body was changed: %d bytes (want %d), Content-Encoding %q", len(body), len(want), resp.Header.Get("Content-Encoding"))
		}
		if got := resp.Header.Get("Etag"); got != `"backend-v1"` {
			t.Errorf("ETag %q of an unchanged body", got)
		}

		// A client that does not accept gzip gets the body decoded by the proxy's transport:
		// that is identity HTML again, and it is rewritten.
		resp, body = do(t, "GET", siteURL("/proxy/gz"))
		wantStatus(t, resp, 200)
		if resp.Header.Get("Content-Encoding") != "" {
			t.Fatalf("Content-Encoding %q for a client that accepts none", resp.Header.Get("Content-Encoding"))
		}
		wantInjected(t, body, page, p)
	})

	t.Run("HEAD", func(t *testing.T) {
		// HEAD describes what GET sends (RFC 9110 §9.3.2): the rewritten page's validators,
		// and no Content-Length of the unrewritten file.
		get, getBody := do(t, "GET", siteURL("/drafts/post.html"))
		resp, body := do(t, "HEAD", siteURL("/drafts/post.html"))
		wantStatus(t, resp, 200)
		wantRobotsTag(t, resp, p)
		if len(body) != 0 {
			t.Errorf("HEAD body %q", body)
		}
		if got := resp.Header.Get("Content-Length"); got != "" && got != strconv.Itoa(len(getBody)) {
			t.Errorf("HEAD Content-Length %q, GET sends %d bytes", got, len(getBody))
		}
		if got, want := resp.Header.Get("Etag"), get.Header.Get("Etag"); got != want {
			t.Errorf("HEAD ETag %q, GET ETag %q", got, want)
		}
	})

	t.Run("range", func(t *testing.T) {
		// A Range request on a meta route gets the full rewritten page, whatever If-Range
		// says: never bytes of the file that a client would join to the rewritten page.
		full, fullBody := do(t, "GET", siteURL("/drafts/post.html"))
		lm, etag := full.Header.Get("Last-Modified"), full.Header.Get("Etag")
		for _, ifRange := range []string{"", lm, etag, origETag, strings.TrimPrefix(etag, "W/")} {
			for _, rng := range []string{"bytes=0-99", "bytes=100-", "bytes=-20", "bytes=0-9,50-59"} {
				hdr := []string{"Range: " + rng}
				if ifRange != "" {
					hdr = append(hdr, "If-Range: "+ifRange)
				}
				resp, body := do(t, "GET", siteURL("/drafts/post.html"), hdr...)
				wantStatus(t, resp, http.StatusOK)
				wantRobotsTag(t, resp, p)
				if !bytes.Equal(body, fullBody) || resp.Header.Get("Accept-Ranges") != "" {
					t.Errorf("Range %s If-Range %q: %d bytes (the rewritten page has %d), Accept-Ranges %q", rng, ifRange, len(body), len(fullBody), resp.Header.Get("Accept-Ranges"))
				}
			}
		}
		// The untagged site still serves ranges of the file.
		resp, body := do(t, "GET", site2URL("/drafts/post.html"), "Range: bytes=0-99")
		wantStatus(t, resp, http.StatusPartialContent)
		if !bytes.Equal(body, page[:100]) {
			t.Errorf("206 body is not the first 100 bytes of the file: %q", body)
		}
	})

	t.Run("not HTML", func(t *testing.T) {
		pdf, err := os.ReadFile(filepath.Join(root, "reports", "annual-report.pdf"))
		if err != nil {
			t.Fatal(err)
		}
		oresp, _ := do(t, "GET", site2URL("/reports/annual-report.pdf"))
		resp, body := do(t, "GET", siteURL("/reports/annual-report.pdf"))
		wantStatus(t, resp, 200)
		wantRobotsTag(t, resp, p)
		if !bytes.Equal(body, pdf) {
			t.Errorf("a PDF was changed")
		}
		if got := resp.Header.Get("Etag"); got != oresp.Header.Get("Etag") {
			t.Errorf("ETag %q of an unchanged body, want %q", got, oresp.Header.Get("Etag"))
		}
	})
}

// TestRobotsTagMetaMalformedHTMLTypes: behind reverse_proxy, a page whose Content-Type a
// browser reads as HTML (a parameter without a value, stray ";", an empty or repeated
// charset, upper case, a second Content-Type line, XHTML) gets its meta elements in Caddy too.
func TestRobotsTagMetaMalformedHTMLTypes(t *testing.T) {
	page := []byte(`<!DOCTYPE html><html><head><title>T</title></head><body><p>x</p></body></html>`)
	types := [][]string{
		{"text/html; charset"}, {"TEXT/HTML;;"}, {`text/html; charset=""; charset=utf-16`},
		{"text/plain", "text/html ;charset=utf-8; foo"}, {"application/xhtml+xml; charset"},
	}
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/"))
		w.Header()["Content-Type"] = types[i]
		_, _ = w.Write(page)
	}))
	defer backend.Close()
	startCaddyfile(t, strings.ReplaceAll(`
http://localhost:@PORT@ {
	robots_tag noindex {
		meta
	}
	reverse_proxy @BACKEND@
}
`, "@BACKEND@", backend.Listener.Addr().String()))
	p := tagPolicy(t, map[string][]string{"*": {"noindex"}})
	for i, ct := range types {
		resp, body := do(t, "GET", siteURL("/p/"+strconv.Itoa(i)))
		wantStatus(t, resp, 200)
		if got := resp.Header.Values("Content-Type"); len(got) != len(ct) {
			t.Fatalf("%q: Caddy passed on Content-Type %q", ct, got)
		}
		wantRobotsTag(t, resp, p)
		wantInjected(t, body, page, p)
	}
}
