package caddymodule

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/tagemit"
)

func TestRobotsTagHeaderUnionAndMatchers(t *testing.T) {
	t.Setenv("CADDY_ROBOTS_TEST_RULE", "noarchive")
	t.Setenv("CADDY_ROBOTS_TEST_AGENT", "EnvBot")
	startCaddyfile(t, `
http://localhost:@PORT@ {
	robots_tag noindex nosnippet {
		agent ExampleBot max-snippet=20
		agent * max-image-preview=large
	}
	robots_tag /drafts/* noarchive {
		agent ExampleBot noimageindex unavailable_after=2027-01-01T00:00:00Z
		x_robots_tag
	}
	@pdf path *.pdf
	robots_tag @pdf nofollow
	robots_tag /env/* {env.CADDY_ROBOTS_TEST_RULE} {
		agent {env.CADDY_ROBOTS_TEST_AGENT} max-video-preview=10
	}
	respond /nocontent 204
	respond /error 500
	respond "hello"
}
`)
	site := map[string][]string{
		"*":          {"noindex", "nosnippet", "max-image-preview=large"},
		"ExampleBot": {"max-snippet=20"},
	}
	drafts := map[string][]string{
		"*":          {"noarchive"},
		"ExampleBot": {"noimageindex", "unavailable_after=2027-01-01T00:00:00Z"},
	}
	pdf := map[string][]string{"*": {"nofollow"}}
	env := map[string][]string{"*": {"noarchive"}, "EnvBot": {"max-video-preview=10"}}

	resp, body := do(t, "GET", siteURL("/"))
	wantStatus(t, resp, 200)
	if string(body) != "hello" {
		t.Errorf("body %q", body)
	}
	wantRobotsTag(t, resp, policy(t, site))
	if v := resp.Header.Values("X-Robots-Tag"); len(v) != 0 {
		t.Errorf("X-Robots-Tag %q without x_robots_tag", v)
	}

	// Two robots_tag handlers on one request: one field line with the union, and the legacy
	// header (asked for by one of them) carries the union too.
	resp, _ = do(t, "GET", siteURL("/drafts/a"))
	union := policy(t, site).Union(policy(t, drafts))
	wantRobotsTag(t, resp, union)
	wantXRobotsTag(t, resp, union)

	// A named matcher; three handlers on one request.
	resp, _ = do(t, "GET", siteURL("/drafts/report.PDF"))
	wantRobotsTag(t, resp, union.Union(policy(t, pdf)))
	resp, _ = do(t, "GET", siteURL("/files/report.pdf"))
	wantRobotsTag(t, resp, policy(t, site).Union(policy(t, pdf)))

	// {env.*} placeholders in rules and tokens.
	resp, _ = do(t, "GET", siteURL("/env/x"))
	wantRobotsTag(t, resp, policy(t, site).Union(policy(t, env)))

	// Responses without a body, and error statuses, are tagged too.
	resp, body = do(t, "GET", siteURL("/nocontent"))
	wantStatus(t, resp, 204)
	if len(body) != 0 {
		t.Errorf("204 body %q", body)
	}
	wantRobotsTag(t, resp, policy(t, site))
	resp, _ = do(t, "GET", siteURL("/error"))
	wantStatus(t, resp, 500)
	wantRobotsTag(t, resp, policy(t, site))
	resp, _ = do(t, "HEAD", siteURL("/"))
	wantRobotsTag(t, resp, policy(t, site))
}

// TestRobotsTagMergesBackendHeader checks that a Robots-Tag and an X-Robots-Tag sent by a
// reverse_proxy backend are merged with the configured rules into one union.
func TestRobotsTagMergesBackendHeader(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/both":
			w.Header().Set("Robots-Tag", "otherbot;noarchive, *;nofollow")
			w.Header().Set("X-Robots-Tag", "noimageindex")
		case "/two-lines":
			w.Header().Add("Robots-Tag", "*;noindex")
			w.Header().Add("Robots-Tag", "examplebot;nosnippet")
		case "/legacy":
			w.Header().Set("X-Robots-Tag", "examplebot: noarchive")
		}
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("from the backend"))
	}))
	defer backend.Close()
	startCaddyfile(t, strings.ReplaceAll(`
http://localhost:@PORT@ {
	robots_tag noindex {
		x_robots_tag
	}
	robots_tag /two-lines max-snippet=5
	reverse_proxy @BACKEND@
}
`, "@BACKEND@", backend.Listener.Addr().String()))

	ours := policy(t, map[string][]string{"*": {"noindex"}})
	cases := []struct {
		path string
		want tagemit.Policy
	}{
		{"/both", ours.Union(policy(t, map[string][]string{"*": {"nofollow", "noimageindex"}, "otherbot": {"noarchive"}}))},
		{"/two-lines", ours.Union(policy(t, map[string][]string{"*": {"max-snippet=5"}, "examplebot": {"nosnippet"}}))},
		{"/legacy", ours.Union(policy(t, map[string][]string{"examplebot": {"noarchive"}}))},
		{"/none", ours},
	}
	for _, c := range cases {
		resp, body := do(t, "GET", siteURL(c.path))
		wantStatus(t, resp, 200)
		if string(body) != "from the backend" {
			t.Errorf("%s: body %q", c.path, body)
		}
		wantRobotsTag(t, resp, c.want)
		wantXRobotsTag(t, resp, c.want)
	}
}

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
	p := policy(t, map[string][]string{"*": {"noindex"}, "GPTBot": {"nosnippet"}})
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

// TestRobotsTagStreaming checks that flushes go through robots_tag to the client while the
// backend is still writing: server-sent events, and an HTML page whose head is flushed early.
func TestRobotsTagStreaming(t *testing.T) {
	// One release channel per path, made before the backend starts and never reassigned.
	releases := map[string]chan struct{}{"/events": make(chan struct{}), "/page": make(chan struct{})}
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if r.URL.Path == "/events" {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("data: one\n\n"))
		} else {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<!DOCTYPE html><html><head><title>t</title></head><body><p>first</p>\n"))
		}
		_ = rc.Flush()
		select {
		case <-releases[r.URL.Path]:
		case <-time.After(20 * time.Second):
		case <-r.Context().Done():
		}
		_, _ = w.Write([]byte("data: two\n\n"))
	}))
	defer backend.Close()
	startCaddyfile(t, strings.ReplaceAll(`
http://localhost:@PORT@ {
	robots_tag noindex {
		meta
	}
	reverse_proxy @BACKEND@ {
		flush_interval -1
	}
}
`, "@BACKEND@", backend.Listener.Addr().String()))

	p := policy(t, map[string][]string{"*": {"noindex"}})
	for _, c := range []struct{ path, first string }{
		{"/events", "data: one"},
		{"/page", "<p>first</p>"},
	} {
		t.Run(c.path, func(t *testing.T) {
			req, _ := http.NewRequest("GET", siteURL(c.path), nil)
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			wantRobotsTag(t, resp, p)
			got := make(chan string, 1)
			go func() {
				br := bufio.NewReader(resp.Body)
				var seen strings.Builder
				for {
					line, err := br.ReadString('\n')
					seen.WriteString(line)
					if strings.Contains(seen.String(), c.first) || err != nil {
						got <- seen.String()
						return
					}
				}
			}()
			select {
			case s := <-got:
				if !strings.Contains(s, c.first) {
					t.Fatalf("stream ended before %q: %q", c.first, s)
				}
				if c.path == "/page" && !strings.Contains(s, `<meta name="robots"`) {
					t.Errorf("flushed head lacks the meta elements: %q", s)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%q did not reach the client while the backend was still running: a flush was held back", c.first)
			}
			close(releases[c.path])
		})
	}
}

// TestRobotsTagDebugLog checks that responses left unchanged are explained in Caddy's log at
// debug level, by the handler's logger.
func TestRobotsTagDebugLog(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	tester := caddyTesterWithGlobals(t, `
	log {
		output file "`+logFile+`"
		level DEBUG
	}
`, `
http://localhost:@PORT@ {
	robots_tag noindex {
		meta
	}
	header Content-Type text/html
	respond "<html><head></head><body>x</body></html>"
}
`)
	_ = tester
	resp, _ := do(t, "HEAD", siteURL("/headrequest"))
	wantStatus(t, resp, 200)
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(logFile)
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "http.handlers.robots_tag") && strings.Contains(line, "meta elements not added: HEAD request") && strings.Contains(line, "/headrequest") && strings.Contains(line, `"level":"debug"`) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no debug entry from robots_tag for the HEAD request in the log:\n%s", b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRobotsTagInformational checks that a 103 Early Hints response from a backend passes
// through robots_tag to the client, and that the final response is still tagged and rewritten.
func TestRobotsTagInformational(t *testing.T) {
	page := "<!DOCTYPE html><html><head><title>hints</title></head><body>x</body></html>"
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</style.css>; rel=preload; as=style")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Del("Link")
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(page))
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

	var hints []string
	trace := &httptrace.ClientTrace{Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
		hints = append(hints, fmt.Sprintf("%d %s robots-tag=%q", code, h.Get("Link"), h.Get("Robots-Tag")))
		return nil
	}}
	req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), "GET", siteURL("/"), nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	want := `103 </style.css>; rel=preload; as=style robots-tag=""`
	if len(hints) != 1 || hints[0] != want {
		t.Errorf("informational responses %q, want [%q]", hints, want)
	}
	wantStatus(t, resp, 200)
	p := policy(t, map[string][]string{"*": {"noindex"}})
	wantRobotsTag(t, resp, p)
	wantInjected(t, body, []byte(page), p)
}
