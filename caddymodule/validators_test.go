// Validator tests under Caddy: a rewritten page's HEAD and 304 responses describe the response
// GET sends. They were found failing in the core and fixed there.

package caddymodule

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

const coreBugSite = `
http://localhost:@PORT@ {
	root * "@ROOT@"
	robots_tag noindex {
		meta
	}
	file_server
}
`

// TestMetaHEADMatchesGET: RFC 9110 §8.6 says a server MUST NOT send Content-Length in a
// response to HEAD unless it equals the length GET would send. For an HTML page under meta,
// GET sends the injected length but HEAD sends the file's length (the response is "left
// unchanged"). The core should drop Content-Length (and weaken a strong ETag, as GET does) on
// a HEAD response that GET would rewrite.
func TestMetaHEADMatchesGET(t *testing.T) {
	startCaddyfile(t, expandRoot(t, coreBugSite))
	get, body := do(t, "GET", siteURL("/drafts/post.html"))
	wantStatus(t, get, 200)
	head, _ := do(t, "HEAD", siteURL("/drafts/post.html"))
	wantStatus(t, head, 200)
	if cl := head.Header.Get("Content-Length"); cl != "" && cl != strconv.Itoa(len(body)) {
		t.Errorf("HEAD Content-Length %s, but GET sends %d bytes", cl, len(body))
	}
	if g, h := get.Header.Get("Etag"), head.Header.Get("Etag"); g != h {
		t.Errorf("HEAD ETag %s, GET ETag %s", h, g)
	}
}

// TestMetaNotModifiedETag: RFC 9110 §15.4.5 — a 304 carries the ETag that a 200 would.
// GET of an HTML page under meta sends W/"x"; a conditional GET with that validator gets a 304
// with the strong "x", which a cache cannot match to the stored W/"x" response (RFC 9111
// §4.3.4), so it must not use the 304 to refresh it.
func TestMetaNotModifiedETag(t *testing.T) {
	startCaddyfile(t, expandRoot(t, coreBugSite))
	get, _ := do(t, "GET", siteURL("/drafts/post.html"))
	wantStatus(t, get, 200)
	etag := get.Header.Get("Etag")
	nm, _ := do(t, "GET", siteURL("/drafts/post.html"), "If-None-Match: "+etag)
	wantStatus(t, nm, http.StatusNotModified)
	if got := nm.Header.Get("Etag"); got != etag {
		t.Errorf("304 ETag %s, the 200 sent %s", got, etag)
	}
}

func expandRoot(t *testing.T, site string) string {
	return strings.ReplaceAll(site, "@ROOT@", exampleRoot(t))
}
