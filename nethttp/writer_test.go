package nethttp_test

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/nethttp"
)

// TestFlushReachesClient: bytes written before a Flush reach the client while the handler is
// still running (server-sent events, streamed HTML).
func TestFlushReachesClient(t *testing.T) {
	for _, ct := range []string{"text/event-stream", "text/html"} {
		t.Run(ct, func(t *testing.T) {
			release := make(chan struct{})
			m := mustNew(t, nethttp.Config{RobotsTag: []nethttp.Route{
				{Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, Meta: true}},
			}})
			srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", ct)
				_, _ = io.WriteString(w, "<html><head><title>x</title></head><body>data: first\n\n")
				if err := http.NewResponseController(w).Flush(); err != nil {
					t.Errorf("flush: %v", err)
				}
				<-release
				_, _ = io.WriteString(w, "data: second\n\n")
			}))
			defer close(release)
			resp, err := http.Get(srv.URL + "/")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			got := make(chan string, 1)
			go func() {
				line, _ := br.ReadString('\n')
				got <- line
			}()
			select {
			case line := <-got:
				if !strings.Contains(line, "data: first") {
					t.Fatalf("first line %q", line)
				}
				if ct == "text/html" && !strings.Contains(line, `<meta name="robots" content="noindex">`) {
					t.Fatalf("flushed HTML lost its meta element: %q", line)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("flushed bytes did not reach the client")
			}
		})
	}
}

// TestResponseControllerAndHijack: SetWriteDeadline works through the wrapper, and a handler
// can hijack the connection (WebSocket upgrades).
func TestResponseControllerAndHijack(t *testing.T) {
	m := mustNew(t, nethttp.Config{RobotsTag: []nethttp.Route{
		{Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, Meta: true}},
	}})
	srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if err := rc.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
			t.Errorf("SetWriteDeadline through the wrapper: %v", err)
		}
		if r.Header.Get("Upgrade") != "" {
			conn, brw, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Errorf("hijack: %v", err)
				return
			}
			defer conn.Close()
			_, _ = brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\nhello")
			_ = brw.Flush()
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	resp, body := get(t, nil, "GET", srv.URL+"/")
	if string(body) != "ok" || resp.Header.Get("Robots-Tag") == "" {
		t.Fatalf("plain: %q %q", body, resp.Header.Get("Robots-Tag"))
	}
	req, _ := http.NewRequest("GET", srv.URL+"/ws", nil)
	req.Header.Set("Upgrade", "echo")
	req.Header.Set("Connection", "Upgrade")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: status %d", resp.StatusCode)
	}
	rwc, ok := resp.Body.(io.ReadWriteCloser)
	if !ok {
		t.Fatalf("upgrade: body is %T", resp.Body)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(rwc, buf); err != nil || string(buf) != "hello" {
		t.Fatalf("hijacked stream: %q %v", buf, err)
	}
}

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

// TestStatusesLeftUntouched: responses that cannot be rewritten keep their bytes but get the
// header.
func TestStatusesLeftUntouched(t *testing.T) {
	m := mustNew(t, nethttp.Config{RobotsTag: []nethttp.Route{
		{Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, Meta: true}},
	}})
	srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/404":
			w.WriteHeader(404)
			_, _ = io.WriteString(w, page)
		case "/gzip":
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = io.WriteString(w, page) // not really gzip: it must not be touched
		case "/notransform":
			w.Header().Set("Cache-Control", "no-transform")
			_, _ = io.WriteString(w, page)
		case "/204":
			w.WriteHeader(204)
		case "/early":
			w.WriteHeader(http.StatusEarlyHints)
			_, _ = io.WriteString(w, page)
		case "/empty":
			// writes nothing: net/http answers 200 with no body
		}
	}))
	for _, p := range []string{"/404", "/gzip", "/notransform"} {
		resp, body := get(t, &http.Client{Transport: &http.Transport{DisableCompression: true}}, "GET", srv.URL+p)
		if string(body) != page || resp.Header.Get("Robots-Tag") != "*;noindex" {
			t.Errorf("%s: body changed or header missing: %q %q", p, body, resp.Header.Get("Robots-Tag"))
		}
	}
	resp, _ := get(t, nil, "GET", srv.URL+"/204")
	if resp.StatusCode != 204 || resp.Header.Get("Robots-Tag") != "*;noindex" {
		t.Errorf("204: %d %q", resp.StatusCode, resp.Header.Get("Robots-Tag"))
	}
	resp, body := get(t, nil, "GET", srv.URL+"/early")
	if resp.StatusCode != 200 || headMeta(t, body)["robots"] != "noindex" {
		t.Errorf("after 103: status %d body %s", resp.StatusCode, body)
	}
	resp, _ = get(t, nil, "GET", srv.URL+"/empty")
	if resp.StatusCode != 200 || resp.Header.Get("Robots-Tag") != "*;noindex" {
		t.Errorf("empty handler: %d %q", resp.StatusCode, resp.Header.Get("Robots-Tag"))
	}
}
