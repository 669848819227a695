package identity_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/identity"
)

const googleSelector = `$.prefixes[*][\"ipv6Prefix\",\"ipv4Prefix\"]`

// operator is a local HTTPS server publishing a list as Google does, with an ETag; body and
// status can change between requests.
type operator struct {
	srv          *httptest.Server
	mu           sync.Mutex
	body         string
	status       int
	requests     atomic.Int32
	conditionals atomic.Int32
}

func newOperator(t *testing.T, body string) *operator {
	o := &operator{body: body, status: http.StatusOK}
	o.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.requests.Add(1)
		o.mu.Lock()
		body, status := o.body, o.status
		o.mu.Unlock()
		etag := fmt.Sprintf(`"%x"`, sha256.Sum256([]byte(body)))
		if status == http.StatusOK && r.Header.Get("If-None-Match") == etag {
			o.conditionals.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", etag)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(o.srv.Close)
	return o
}

func (o *operator) set(status int, body string) {
	o.mu.Lock()
	o.status, o.body = status, body
	o.mu.Unlock()
}

func (o *operator) source(path string) identity.Source {
	return identity.Source{URL: o.srv.URL + path, Format: "json", Selector: googleSelector}
}

func googleDoc(t *testing.T) string {
	b, err := os.ReadFile("testdata/googlebot.json")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestListsFetchRefreshAndKeep(t *testing.T) {
	op := newOperator(t, googleDoc(t))
	src := op.source("/googlebot.json")
	l := identity.NewLists([]identity.Source{src}, identity.ListsOptions{Client: op.srv.Client(), Log: quiet})
	googlebot := netip.MustParseAddr("66.249.64.5")
	if _, ok := l.Prefixes(src.URL); ok {
		t.Fatal("a list before any fetch")
	}
	l.Refresh(context.Background())
	p, ok := l.Prefixes(src.URL)
	if !ok || !p.Contains(googlebot) {
		t.Fatalf("after a fetch: %v %v", ok, l.Status())
	}
	st := l.Status()[0]
	if !st.Trusted || st.Prefixes != 5 || st.Size == 0 || st.LastError != "" {
		t.Errorf("status %+v", st)
	}
	// Unchanged: a conditional request, answered 304, keeps the list.
	l.Refresh(context.Background())
	if op.conditionals.Load() != 1 {
		t.Errorf("%d conditional requests, want 1", op.conditionals.Load())
	}
	if p, ok := l.Prefixes(src.URL); !ok || !p.Contains(googlebot) {
		t.Fatal("lost the list on 304")
	}
	// Failures keep the last good list and say why.
	for _, c := range []struct {
		status int
		body   string
		want   string
	}{
		{http.StatusInternalServerError, "oops", "500"},
		{http.StatusOK, "<html>maintenance</html>", "not a JSON document"},
		{http.StatusOK, `{"prefixes": [{"ipv4Prefix": "0.0.0.0/0"}]}`, "shorter than /8"},
		{http.StatusOK, `{"prefixes": []}`, "no prefix"},
	} {
		op.set(c.status, c.body)
		l.Refresh(context.Background())
		p, ok := l.Prefixes(src.URL)
		st := l.Status()[0]
		if !ok || !p.Contains(googlebot) || p.Contains(netip.MustParseAddr("8.8.8.8")) || !strings.Contains(st.LastError, c.want) {
			t.Errorf("after %d %q: list kept %v, status %+v", c.status, c.body, ok, st)
		}
	}
	// A new list replaces the old one.
	op.set(http.StatusOK, `{"prefixes": [{"ipv4Prefix": "192.0.2.0/24"}]}`)
	l.Refresh(context.Background())
	if p, _ := l.Prefixes(src.URL); p.Contains(googlebot) || !p.Contains(netip.MustParseAddr("192.0.2.9")) || l.Status()[0].LastError != "" {
		t.Errorf("the new list is not in use: %+v", l.Status()[0])
	}
}

func TestListsMaxAge(t *testing.T) {
	op := newOperator(t, googleDoc(t))
	src := op.source("/googlebot.json")
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	l := identity.NewLists([]identity.Source{src}, identity.ListsOptions{Client: op.srv.Client(), Log: quiet, MaxAge: 48 * time.Hour, Now: func() time.Time { return now }})
	l.Refresh(context.Background())
	op.set(http.StatusServiceUnavailable, "down")
	now = now.Add(47 * time.Hour)
	l.Refresh(context.Background())
	if _, ok := l.Prefixes(src.URL); !ok {
		t.Fatal("a 47-hour-old list is not trusted with MaxAge 48h")
	}
	now = now.Add(2 * time.Hour)
	if _, ok := l.Prefixes(src.URL); ok || l.Status()[0].Trusted {
		t.Fatalf("a 49-hour-old list is trusted: %+v", l.Status()[0])
	}
	if age := l.Status()[0].Age; age != 49*time.Hour {
		t.Errorf("Age %v by the Lists' clock, want 49h", age)
	}
	// A 304 confirms the list: trusted again.
	op.set(http.StatusOK, googleDoc(t))
	l.Refresh(context.Background())
	if _, ok := l.Prefixes(src.URL); !ok || op.conditionals.Load() != 1 {
		t.Errorf("after a 304: trusted %v, %d conditional requests", ok, op.conditionals.Load())
	}
}

// TestListsFromDisk: a restart without network verifies with the list kept on disk, and a
// list on disk younger than Refresh is not fetched again at start.
func TestListsFromDisk(t *testing.T) {
	dir := t.TempDir()
	op := newOperator(t, googleDoc(t))
	src := op.source("/googlebot.json")
	first := identity.NewLists([]identity.Source{src}, identity.ListsOptions{Client: op.srv.Client(), Log: quiet, Dir: dir})
	first.Refresh(context.Background())

	// A list on disk younger than Refresh is used at start and not fetched again.
	second := identity.NewLists([]identity.Source{src}, identity.ListsOptions{Client: op.srv.Client(), Log: quiet, Dir: dir, Refresh: time.Hour})
	second.Start(context.Background())
	time.Sleep(200 * time.Millisecond)
	second.Stop()
	if n := op.requests.Load(); n != 1 {
		t.Errorf("%d requests: a list on disk younger than Refresh was fetched again at start", n)
	}

	// Without network, the list on disk verifies.
	op.srv.Close()
	offline := identity.NewLists([]identity.Source{src}, identity.ListsOptions{Client: op.srv.Client(), Log: quiet, Dir: dir})
	offline.Start(context.Background())
	defer offline.Stop()
	if p, ok := offline.Prefixes(src.URL); !ok || !p.Contains(netip.MustParseAddr("66.249.64.5")) {
		t.Fatalf("the list on disk is not used: %+v", offline.Status())
	}
	// A corrupt file is ignored, not trusted.
	files, _ := filepath.Glob(filepath.Join(dir, "list-*.json"))
	if len(files) != 1 {
		t.Fatalf("files on disk: %v", files)
	}
	os.WriteFile(files[0], []byte(`{"url": "`+src.URL+`", "body": "eyJwcmVmaXhlcyI6IFtdfQ=="}`), 0o644) // {"prefixes": []}
	third := identity.NewLists([]identity.Source{src}, identity.ListsOptions{Client: op.srv.Client(), Log: quiet, Dir: dir})
	third.Start(context.Background())
	defer third.Stop()
	if _, ok := third.Prefixes(src.URL); ok {
		t.Error("a refused list on disk is trusted")
	}
}

// TestListsBackgroundRefresh: Start fetches at once in the background and again every
// Refresh; requests during a refresh always see a whole list.
func TestListsBackgroundRefresh(t *testing.T) {
	op := newOperator(t, googleDoc(t))
	src := op.source("/googlebot.json")
	l := identity.NewLists([]identity.Source{src}, identity.ListsOptions{Client: op.srv.Client(), Log: quiet, Refresh: 50 * time.Millisecond})
	l.Start(context.Background())
	deadline := time.Now().Add(5 * time.Second)
	for op.requests.Load() < 4 && time.Now().Before(deadline) {
		if p, ok := l.Prefixes(src.URL); ok && !p.Contains(netip.MustParseAddr("66.249.64.5")) {
			t.Fatal("a list without Googlebot's address during a refresh")
		}
		time.Sleep(time.Millisecond)
	}
	l.Stop()
	n := op.requests.Load()
	if n < 4 {
		t.Fatalf("%d fetches in 5s with Refresh 50ms", n)
	}
	time.Sleep(150 * time.Millisecond)
	if op.requests.Load() != n {
		t.Error("fetches after Stop")
	}
}

func TestListsFetchRules(t *testing.T) {
	op := newOperator(t, googleDoc(t))
	mux := http.NewServeMux()
	other := httptest.NewTLSServer(mux)
	defer other.Close()
	redirecting := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/elsewhere":
			http.Redirect(w, r, "https://example.org/list.json", http.StatusFound)
		case "/plain":
			http.Redirect(w, r, "http://"+strings.TrimPrefix(op.srv.URL, "https://")+"/googlebot.json", http.StatusFound)
		case "/big":
			w.Write([]byte(`{"prefixes": [` + strings.Repeat(`{"ipv4Prefix": "66.249.64.0/27"},`, 1000) + `{"ipv4Prefix": "66.249.64.0/27"}]}`))
		case "/same":
			http.Redirect(w, r, "/big", http.StatusMovedPermanently)
		}
	}))
	defer redirecting.Close()
	for _, c := range []struct {
		url, want string
	}{
		{redirecting.URL + "/elsewhere", "only redirects within"},
		{redirecting.URL + "/plain", "only HTTPS is followed"},
		{redirecting.URL + "/big", "larger than 4096 bytes"},
		{"ftp://example.com/list", "only https URLs"},
	} {
		src := identity.Source{URL: c.url, Format: "json", Selector: googleSelector}
		l := identity.NewLists([]identity.Source{src}, identity.ListsOptions{Client: redirecting.Client(), Log: quiet, MaxSize: 4096})
		l.Refresh(context.Background())
		if st := l.Status()[0]; !strings.Contains(st.LastError, c.want) || st.Prefixes != 0 {
			t.Errorf("%s: status %+v, want an error saying %q", c.url, st, c.want)
		}
	}
	// A redirect within the site is followed; an http URL is fetched over https.
	for _, u := range []string{redirecting.URL + "/same", strings.Replace(op.srv.URL, "https://", "http://", 1) + "/googlebot.json"} {
		src := identity.Source{URL: u, Format: "json", Selector: googleSelector}
		client := redirecting.Client()
		if strings.HasPrefix(u, "http://") {
			client = op.srv.Client()
		}
		l := identity.NewLists([]identity.Source{src}, identity.ListsOptions{Client: client, Log: quiet})
		l.Refresh(context.Background())
		if _, ok := l.Prefixes(u); !ok {
			t.Errorf("%s: %+v", u, l.Status()[0])
		}
	}
}

// TestListsLocal: air-gapped hosts read the lists from files.
func TestListsLocal(t *testing.T) {
	src := identity.Source{URL: "https://developers.google.com/static/search/apis/ipranges/googlebot.json", Format: "json", Selector: googleSelector}
	l := identity.NewLists([]identity.Source{src}, identity.ListsOptions{
		Log:   quiet,
		Local: map[string]string{src.URL: "testdata/googlebot.json"},
		Client: &http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) {
			t.Fatal("the network was used")
			return nil, nil
		})},
	})
	l.Refresh(context.Background())
	if p, ok := l.Prefixes(src.URL); !ok || !p.Contains(netip.MustParseAddr("66.249.64.5")) {
		t.Fatalf("%+v", l.Status())
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestListsReadOnly: a read-only Lists (a check's) reads the local files and the lists kept
// on disk at Start, and nothing more: no fetch, not even of a list missing from the disk, no
// background refresh, and nothing written to the disk, while Status says where each list is
// read from.
func TestListsReadOnly(t *testing.T) {
	dir := t.TempDir()
	op := newOperator(t, googleDoc(t))
	kept, missing := op.source("/googlebot.json"), op.source("/missing.json")
	local := identity.Source{URL: "https://developers.google.com/static/search/apis/ipranges/googlebot.json", Format: "json", Selector: googleSelector}
	server := identity.NewLists([]identity.Source{kept}, identity.ListsOptions{Client: op.srv.Client(), Log: quiet, Dir: dir})
	server.Refresh(context.Background())
	before, _ := filepath.Glob(filepath.Join(dir, "*"))

	l := identity.NewLists([]identity.Source{kept, missing, local}, identity.ListsOptions{
		Client: op.srv.Client(), Log: quiet, Dir: dir, ReadOnly: true, Refresh: time.Millisecond,
		Local: map[string]string{local.URL: "testdata/googlebot.json"},
	})
	l.Start(context.Background())
	time.Sleep(50 * time.Millisecond) // a background refresh would have fetched by now
	l.Refresh(context.Background())
	l.Stop() // returns: there is no background refresh to wait for
	if n := op.requests.Load(); n != 1 {
		t.Errorf("%d requests: a read-only Lists fetched", n)
	}
	after, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(after) != len(before) {
		t.Errorf("a read-only Lists wrote to the disk: %v, before %v", after, before)
	}
	inside := netip.MustParseAddr("66.249.64.5")
	for _, u := range []string{kept.URL, local.URL} {
		if p, ok := l.Prefixes(u); !ok || !p.Contains(inside) {
			t.Errorf("%s not read: %+v", u, l.Status())
		}
	}
	if _, ok := l.Prefixes(missing.URL); ok {
		t.Errorf("a list on neither the disk nor a local file is in use")
	}
	st := l.Status()
	if st[0].Local || !strings.HasPrefix(st[0].File, dir+string(filepath.Separator)) || !slices.Contains(after, st[0].File) {
		t.Errorf("the list kept on disk: %+v (files %v)", st[0], after)
	}
	if st[1].Local || st[1].File == "" || st[1].Prefixes != 0 || st[1].Trusted || !st[1].Fetched.IsZero() || st[1].Age != 0 {
		t.Errorf("the missing list: %+v", st[1])
	}
	if !st[2].Local || st[2].File != "testdata/googlebot.json" || !st[2].Trusted {
		t.Errorf("the local file: %+v", st[2])
	}
}
