package serve_test

// What the tag response wrapper passes through: Flush, io.ReaderFrom (sendfile), Hijack and
// the rest of http.ResponseController.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a log destination the server goroutines write to while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestFlushReachesClient: bytes written before a Flush reach the client while the handler is
// still running (server-sent events, streamed HTML), with the meta element in flushed HTML.
func TestFlushReachesClient(t *testing.T) {
	for _, ct := range []string{"text/event-stream", "text/html"} {
		t.Run(ct, func(t *testing.T) {
			release := make(chan struct{})
			h := frontEnd(mustCore(t, metaConfig), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", ct)
				_, _ = io.WriteString(w, "<html><head><title>x</title></head><body>data: first\n\n")
				// What the flush does is checked at the client, which may hang up as soon as
				// it has the line: the error is then "client disconnected", and the test over.
				_ = http.NewResponseController(w).Flush()
				<-release
				_, _ = io.WriteString(w, "data: second\n\n")
			}))
			defer close(release)
			for _, s := range both(t, h) {
				resp := getWithin(t, s, "/", 5*time.Second)
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
						t.Fatalf("%s: first line %q", s.name, line)
					}
					if hasMeta := strings.Contains(line, noindexMeta); hasMeta != (ct == "text/html") {
						t.Fatalf("%s: flushed %s, meta element %v: %q", s.name, ct, hasMeta, line)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("%s: flushed bytes did not reach the client", s.name)
				}
				if resp.Header.Get("Robots-Tag") != "*;noindex" || resp.ContentLength != -1 {
					t.Errorf("%s: Robots-Tag %q, ContentLength %d", s.name, resp.Header.Get("Robots-Tag"), resp.ContentLength)
				}
			}
		})
	}
}

// getWithin starts a GET whose response must arrive, header and body, within d: a flush that
// does not reach the client fails the test instead of hanging it.
func getWithin(t *testing.T, s site, path string, d time.Duration) *http.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, "GET", s.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.c.Do(req)
	if err != nil {
		t.Fatalf("%s: the flushed header did not reach the client: %v", s.name, err)
	}
	return resp
}

// TestFlushDirectly: a handler that asserts http.Flusher (older code) flushes through the
// wrapper too, before and after it writes, and a flush before any byte sends the header.
func TestFlushDirectly(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	h := frontEnd(mustCore(t, metaConfig), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := w.(http.Flusher)
		if !ok {
			t.Errorf("%T is no http.Flusher", w)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		f.Flush() // the header, with no byte of the body yet
		<-release
		_, _ = io.WriteString(w, page)
		f.Flush()
	}))
	for _, s := range both(t, h) {
		resp := getWithin(t, s, "/", 5*time.Second)
		if resp.StatusCode != 200 || resp.Header.Get("Robots-Tag") != "*;noindex" {
			t.Errorf("%s: %d %q", s.name, resp.StatusCode, resp.Header.Get("Robots-Tag"))
		}
		release <- struct{}{}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if metas, _ := headMeta(t, body); metas["robots"] != "noindex" {
			t.Errorf("%s: %s", s.name, body)
		}
	}
}

// TestResponseControllerAndHijack: SetWriteDeadline works through the wrapper, a handler can
// hijack the connection (WebSocket upgrades) and the wrapper then refuses to flush; over
// HTTP/2, where there is no connection to take, Hijack reports an error.
func TestResponseControllerAndHijack(t *testing.T) {
	h := frontEnd(mustCore(t, metaConfig), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if err := rc.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
			t.Errorf("SetWriteDeadline through the wrapper: %v", err)
		}
		if r.Header.Get("Upgrade") != "" || r.ProtoMajor == 2 && r.URL.Path == "/ws" {
			conn, brw, err := w.(http.Hijacker).Hijack()
			if r.ProtoMajor == 2 {
				if err == nil {
					conn.Close()
					t.Error("hijacked an HTTP/2 stream")
				}
				_, _ = io.WriteString(w, "not hijacked")
				return
			}
			if err != nil {
				t.Errorf("hijack: %v", err)
				return
			}
			defer conn.Close()
			if err := rc.Flush(); !errors.Is(err, http.ErrHijacked) {
				t.Errorf("Flush after Hijack: %v", err)
			}
			_, _ = brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\nhello")
			_ = brw.Flush()
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	// The HTTP/1.1 server's error log shows any write to the hijacked connection through
	// the wrapper ("response.WriteHeader on hijacked connection").
	var errLog syncBuffer
	wsDone := make(chan struct{}) // the hijacking request has left the Core
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if r.URL.Path == "/ws" {
			close(wsDone)
		}
	}))
	srv.Config.ErrorLog = log.New(&errLog, "", 0)
	srv.Start()
	t.Cleanup(srv.Close)
	h1 := site{"h1", srv.URL, &http.Client{Transport: &http.Transport{}}}
	t.Cleanup(h1.c.Transport.(*http.Transport).CloseIdleConnections)
	h2 := startH2(t, h)
	defer func() {
		select {
		case <-wsDone:
		case <-time.After(5 * time.Second):
			t.Error("the hijacking request did not end")
		}
		if l := errLog.String(); l != "" {
			t.Errorf("the server logged:\n%s", l)
		}
	}()
	for _, s := range []site{h1, h2} {
		resp, body := s.do(t, "GET", "/")
		if string(body) != "ok" || resp.Header.Get("Robots-Tag") == "" {
			t.Fatalf("%s plain: %q %q", s.name, body, resp.Header.Get("Robots-Tag"))
		}
	}
	resp, body := h2.do(t, "GET", "/ws")
	if string(body) != "not hijacked" || resp.Header.Get("Robots-Tag") != "*;noindex" {
		t.Errorf("h2 after a failed Hijack: %q %q", body, resp.Header.Get("Robots-Tag"))
	}

	req, _ := http.NewRequest("GET", h1.url+"/ws", nil)
	req.Header.Set("Upgrade", "echo")
	req.Header.Set("Connection", "Upgrade")
	resp, err := h1.c.Do(req)
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
	core := mustCore(t, metaConfig)
	for _, c := range []struct {
		ct           string
		wantReadFrom bool
		wantMeta     bool
	}{
		{"application/pdf", true, false},
		{"image/png", true, false},
		{"text/html; charset=utf-8", false, true},
	} {
		h := frontEnd(core, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
		hasMeta := bytes.Contains(rec.Body.Bytes(), []byte(noindexMeta))
		if hasMeta != c.wantMeta {
			t.Errorf("%s: meta injected = %v, want %v; body %s", c.ct, hasMeta, c.wantMeta, rec.Body.Bytes())
		}
		if !c.wantMeta && rec.Body.String() != page {
			t.Errorf("%s: body changed", c.ct)
		}
		if rec.Header().Get("Robots-Tag") != "*;noindex" {
			t.Errorf("%s: Robots-Tag %q", c.ct, rec.Header().Get("Robots-Tag"))
		}
	}
	// An underlying writer without ReadFrom still gets every byte.
	h := frontEnd(core, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.WriteHeader(200)
		_, _ = w.(io.ReaderFrom).ReadFrom(strings.NewReader(page))
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(struct{ http.ResponseWriter }{rec}, httptest.NewRequest("GET", "/x", nil))
	if rec.Body.String() != page {
		t.Errorf("without an underlying ReadFrom: %q", rec.Body.String())
	}
}

// TestCopyFile: a handler that io.Copy's an *os.File into the response (the sendfile path
// of net/http) sends an HTML file rewritten with an exact Content-Length, and any other file
// byte for byte, over HTTP/1.1 and HTTP/2; HEAD of the page sends no body.
func TestCopyFile(t *testing.T) {
	dir := t.TempDir()
	doc := "<!doctype html><html><head><title>t</title></head><body>" + strings.Repeat("<p>paragraph</p>\n", 20000) + "</body></html>"
	bin := bytes.Repeat([]byte("%PDF-1.4 \x00\x01\x02 not html <head>\n"), 10000)
	for name, b := range map[string][]byte{"index.html": []byte(doc), "doc.pdf": bin} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := frontEnd(mustCore(t, metaConfig), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := os.Open(filepath.Join(dir, filepath.Base(r.URL.Path)))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		defer f.Close()
		st, _ := f.Stat()
		if strings.HasSuffix(r.URL.Path, ".html") {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		} else {
			w.Header().Set("Content-Type", "application/pdf")
		}
		w.Header().Set("Content-Length", strconv.FormatInt(st.Size(), 10))
		w.Header().Set("Accept-Ranges", "bytes")
		if r.URL.Query().Get("wh") != "" {
			w.WriteHeader(200) // else io.Copy's first Write sends the header
		}
		if _, err := io.Copy(w, f); err != nil {
			t.Errorf("io.Copy: %v", err)
		}
	}))
	want := strings.Replace(doc, "<head>", "<head>"+noindexMeta, 1)
	for _, s := range both(t, h) {
		for _, q := range []string{"", "?wh=1"} {
			resp, body := s.do(t, "GET", "/index.html"+q)
			if string(body) != want || resp.ContentLength != int64(len(want)) || resp.Header.Get("Accept-Ranges") != "" {
				t.Errorf("%s page%s: %d bytes, ContentLength %d, want %d; Accept-Ranges %q", s.name, q, len(body), resp.ContentLength, len(want), resp.Header.Get("Accept-Ranges"))
			}
			resp, body = s.do(t, "GET", "/doc.pdf"+q)
			if !bytes.Equal(body, bin) || resp.ContentLength != int64(len(bin)) || resp.Header.Get("Robots-Tag") != "*;noindex" || resp.Header.Get("Accept-Ranges") != "bytes" {
				t.Errorf("%s pdf%s: %d bytes, ContentLength %d, Robots-Tag %q", s.name, q, len(body), resp.ContentLength, resp.Header.Get("Robots-Tag"))
			}
			resp, body = s.do(t, "HEAD", "/index.html"+q)
			if len(body) != 0 || resp.Header.Get("Etag") != "" || resp.Header.Get("Robots-Tag") != "*;noindex" {
				t.Errorf("%s HEAD page%s: %d bytes, Robots-Tag %q", s.name, q, len(body), resp.Header.Get("Robots-Tag"))
			}
			if cl := resp.Header.Get("Content-Length"); cl != "" && cl != strconv.Itoa(len(want)) {
				t.Errorf("%s HEAD page%s: Content-Length %s, GET sends %d", s.name, q, cl, len(want))
			}
		}
	}
}
