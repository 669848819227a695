package nethttp_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/sitepolicy/caddy-robots/nethttp"
)

func htmlHandler(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Header().Set("Etag", `"v1"`)
		_, _ = io.WriteString(w, body)
	}
}

// headMeta returns the name/content pairs of the meta elements html.Parse puts in <head>.
func headMeta(t testing.TB, body []byte) map[string]string {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var walk func(n *html.Node, inHead bool)
	walk = func(n *html.Node, inHead bool) {
		if n.Type == html.ElementNode && n.Data == "head" {
			inHead = true
		}
		if inHead && n.Type == html.ElementNode && n.Data == "meta" {
			var name, content string
			for _, a := range n.Attr {
				switch a.Key {
				case "name":
					name = a.Val
				case "content":
					content = a.Val
				}
			}
			out[name] = content
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inHead)
		}
	}
	walk(doc, false)
	return out
}

// TestMetaBehindFileServer serves through http.FileServer, which copies bodies with
// io.Copy into the ResponseWriter's ReadFrom: the injector must still see every byte.
func TestMetaBehindFileServer(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("<p>paragraph</p>\n", 20000) // well past any single read
	doc := "<!doctype html><html><head><title>t</title></head><body>" + big + "</body></html>"
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "doc.pdf"), []byte("%PDF-1.4 not html"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := mustNew(t, nethttp.Config{RobotsTag: []nethttp.Route{
		{Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, Meta: true}},
	}})
	// http.FileServer sets no ETag of its own but honours one set before it runs (as an app
	// serving versioned files does): that makes the ETag checks below run.
	fs := http.FileServer(http.Dir(dir))
	srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Etag", `"idx-v1"`)
		fs.ServeHTTP(w, r)
	}))

	resp, body := get(t, nil, "GET", srv.URL+"/index.html")
	full, lm := body, resp.Header.Get("Last-Modified")
	if headMeta(t, body)["robots"] != "noindex" {
		t.Fatalf("no meta element behind http.FileServer; first bytes: %.200s", body)
	}
	if want := len(doc) + len(`<meta name="robots" content="noindex">`); len(body) != want {
		t.Errorf("body %d bytes, want %d (original + meta)", len(body), want)
	}
	if resp.Header.Get("Content-Length") != strconv.Itoa(len(body)) {
		t.Errorf("Content-Length %q for %d bytes", resp.Header.Get("Content-Length"), len(body))
	}
	if resp.Header.Get("Accept-Ranges") != "" {
		t.Error("Accept-Ranges kept on a rewritten body")
	}

	// Non-HTML: header, bytes untouched.
	resp, body = get(t, nil, "GET", srv.URL+"/doc.pdf")
	if string(body) != "%PDF-1.4 not html" || resp.Header.Get("Robots-Tag") != "*;noindex" {
		t.Errorf("pdf: body %q Robots-Tag %q", body, resp.Header.Get("Robots-Tag"))
	}

	// Range on a meta route: the full rewritten page, never a part of the original file.
	resp, body = get(t, nil, "GET", srv.URL+"/index.html", "Range", "bytes=0-99")
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, full) {
		t.Errorf("range: status %d, %d bytes (the rewritten page has %d)", resp.StatusCode, len(body), len(full))
	}
	if resp.Header.Get("Robots-Tag") == "" {
		t.Error("range: Robots-Tag missing")
	}

	// 304: conditional request against the weakened ETag still validates.
	resp, _ = get(t, nil, "GET", srv.URL+"/index.html")
	etag := resp.Header.Get("Etag")
	if etag != `W/"idx-v1"` {
		t.Fatalf("ETag %q of the rewritten page, want W/\"idx-v1\"", etag)
	}
	resp, _ = get(t, nil, "GET", srv.URL+"/index.html", "If-None-Match", etag)
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match %s: status %d", etag, resp.StatusCode)
	}
	// A 304 carries the validator of the 200 it refreshes (RFC 9110 §15.4.5).
	if got := resp.Header.Get("Etag"); got != etag {
		t.Errorf("304 ETag %s, the 200 sent %s", got, etag)
	}
	if lm == "" {
		t.Fatal("http.FileServer sent no Last-Modified")
	}
	resp, body = get(t, nil, "GET", srv.URL+"/index.html", "If-Modified-Since", lm)
	if resp.StatusCode != http.StatusNotModified || len(body) != 0 || resp.Header.Get("Robots-Tag") == "" {
		t.Errorf("If-Modified-Since: status %d, %d bytes, Robots-Tag %q", resp.StatusCode, len(body), resp.Header.Get("Robots-Tag"))
	}
}

// TestMetaForMalformedHTMLTypes: a page whose Content-Type a browser reads as HTML, however
// malformed its parameters, however it is cased or spaced, sent on several lines (the last
// valid value counts), gets its meta elements over a real connection, as x/net/html's full
// parser finds them in the head; application/xhtml+xml gets them as XML and stays well-formed
// (encoding/xml); the types that are not HTML to a browser go out byte-identical.
func TestMetaForMalformedHTMLTypes(t *testing.T) {
	html := [][]string{
		{"text/html; charset"}, {"text/html;;"}, {`text/html; charset=""`}, {"text/html; charset=utf-8; foo"},
		{"TEXT/HTML"}, {"Text/Html; Charset=UTF-8"}, {" \ttext/html\t "}, {"text/html ;charset=utf-8"},
		{"text/html\t;\tcharset=utf-8"}, {"text/html; charset=utf-8; charset=utf-8"},
		{"text/html; charset=utf-8; charset=utf-16"}, {"text/html; charset=\u00e9"}, {`text/html; charset="utf\-8"`},
		{`text/html; charset="utf-8`}, {`text/html; a="x;y\"z"; charset=utf-8`}, {"text/html; charset=no-such-label"},
		{"text/html;=utf-8"}, {"text/html; foo; bar=; =baz"}, {"text/plain", "text/html; charset"},
		{"text/html", "*/*"}, {"text/html", "not a type"}, {"text/plain, TEXT/HTML;;"},
	}
	notHTML := [][]string{
		{"text/plain"}, {"text/html", "text/plain"}, {"text /html"}, {"text/htm"}, {"text/html/x"},
		{"text/html; charset=utf-16; charset=utf-8"}, // the first charset counts: not ASCII-compatible
	}
	const xhtml = `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<!DOCTYPE html>` + "\n" +
		`<html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head><body><p>x</p></body></html>`
	types := append(append([][]string{}, html...), notHTML...)
	xhtmlTypes := [][]string{{"application/xhtml+xml"}, {"Application/XHTML+XML; charset"}, {"application/xhtml+xml;;charset=utf-8"}}
	srv := serve(t, mustNew(t, metaRoute), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i, _ := strconv.Atoi(r.URL.Query().Get("i"))
		body := page
		if r.URL.Path == "/xhtml" {
			w.Header()["Content-Type"] = xhtmlTypes[i]
			body = xhtml
		} else {
			w.Header()["Content-Type"] = types[i]
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = io.WriteString(w, body)
	}))
	for i, ct := range types {
		resp, body := get(t, nil, "GET", srv.URL+"/?i="+strconv.Itoa(i))
		// The client trims white space around a field value, as the field syntax says.
		if got := resp.Header.Values("Content-Type"); strings.Join(got, "\n") != strings.TrimSpace(strings.Join(ct, "\n")) {
			t.Fatalf("%q: the client received Content-Type %q", ct, got)
		}
		if resp.Header.Get("Robots-Tag") != "*;noindex" || resp.Header.Get("Content-Length") != strconv.Itoa(len(body)) {
			t.Errorf("%q: Robots-Tag %q, Content-Length %q for %d bytes", ct, resp.Header.Get("Robots-Tag"), resp.Header.Get("Content-Length"), len(body))
		}
		if i >= len(html) {
			if string(body) != page {
				t.Errorf("%q is not HTML to a browser, but the body changed: %s", ct, body)
			}
			continue
		}
		if metas := headMeta(t, body); metas["robots"] != "noindex" {
			t.Errorf("%q: meta elements in head %v\nbody: %s", ct, metas, body)
		}
	}
	for i, ct := range xhtmlTypes {
		_, body := get(t, nil, "GET", srv.URL+"/xhtml?i="+strconv.Itoa(i))
		if !strings.Contains(string(body), `<head><meta name="robots" content="noindex" /><title>`) {
			t.Errorf("%q: %s", ct, body)
		}
		d := xml.NewDecoder(bytes.NewReader(body))
		d.Strict = true
		for {
			_, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%q: not well-formed XML: %v\n%s", ct, err, body)
			}
		}
		if metas := headMeta(t, body); metas["robots"] != "noindex" {
			t.Errorf("%q: meta elements in head %v", ct, metas)
		}
	}
}
