package caddymodule

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"os"
	"path/filepath"
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
	wantRobotsTag(t, resp, tagPolicy(t, site))
	if v := resp.Header.Values("X-Robots-Tag"); len(v) != 0 {
		t.Errorf("X-Robots-Tag %q without x_robots_tag", v)
	}

	// Two robots_tag handlers on one request: one field line with the union, and the legacy
	// header (asked for by one of them) carries the union too.
	resp, _ = do(t, "GET", siteURL("/drafts/a"))
	union := tagPolicy(t, site).Union(tagPolicy(t, drafts))
	wantRobotsTag(t, resp, union)
	wantXRobotsTag(t, resp, union)

	// A named matcher; three handlers on one request.
	resp, _ = do(t, "GET", siteURL("/drafts/report.PDF"))
	wantRobotsTag(t, resp, union.Union(tagPolicy(t, pdf)))
	resp, _ = do(t, "GET", siteURL("/files/report.pdf"))
	wantRobotsTag(t, resp, tagPolicy(t, site).Union(tagPolicy(t, pdf)))

	// {env.*} placeholders in rules and tokens.
	resp, _ = do(t, "GET", siteURL("/env/x"))
	wantRobotsTag(t, resp, tagPolicy(t, site).Union(tagPolicy(t, env)))

	// Responses without a body, and error statuses, are tagged too.
	resp, body = do(t, "GET", siteURL("/nocontent"))
	wantStatus(t, resp, 204)
	if len(body) != 0 {
		t.Errorf("204 body %q", body)
	}
	wantRobotsTag(t, resp, tagPolicy(t, site))
	resp, _ = do(t, "GET", siteURL("/error"))
	wantStatus(t, resp, 500)
	wantRobotsTag(t, resp, tagPolicy(t, site))
	resp, _ = do(t, "HEAD", siteURL("/"))
	wantRobotsTag(t, resp, tagPolicy(t, site))
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
		case "/per-member":
			// Each member in its own syntax, one with a stray trailing ";": the
			// crawlers' rules stay theirs, none becomes a rule for every crawler.
			w.Header().Set("Robots-Tag", "googlebot;noindex, bingbot;nosnippet;, examplebot=noarchive;, {junk}")
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

	ours := tagPolicy(t, map[string][]string{"*": {"noindex"}})
	cases := []struct {
		path string
		want tagemit.Policy
	}{
		{"/both", ours.Union(tagPolicy(t, map[string][]string{"*": {"nofollow", "noimageindex"}, "otherbot": {"noarchive"}}))},
		{"/two-lines", ours.Union(tagPolicy(t, map[string][]string{"*": {"max-snippet=5"}, "examplebot": {"nosnippet"}}))},
		{"/legacy", ours.Union(tagPolicy(t, map[string][]string{"examplebot": {"noarchive"}}))},
		{"/per-member", ours.Union(tagPolicy(t, map[string][]string{"googlebot": {"noindex"}, "bingbot": {"nosnippet"}, "examplebot": {"noarchive"}}))},
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

	p := tagPolicy(t, map[string][]string{"*": {"noindex"}})
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
	resp, err := send(t, req)
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
	p := tagPolicy(t, map[string][]string{"*": {"noindex"}})
	wantRobotsTag(t, resp, p)
	wantInjected(t, body, []byte(page), p)
}
