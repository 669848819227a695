package caddymodule

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddytest"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/tagemit"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// Ports of the in-process Caddy that caddytest starts, chosen free at start-up so that two test
// runs on one machine (or a Caddy a developer runs) do not load configs into each other.
var (
	adminPort int
	sitePort  int
	site2Port int
)

func TestMain(m *testing.M) {
	// The tests' Caddy, in this process and in the binaries the tests start, keeps its data
	// (the crawler lists it fetched, locks) in a directory of its own rather than the user's,
	// and never reaches the real network: the crawler lists a config leaves on by default
	// are fetched through a proxy that is not there (the loopback servers of the tests are
	// reached directly, as Go does for loopback addresses), so they fail as they would
	// offline. Reverse DNS of the loopback address the requests come from is answered by the
	// hosts file.
	userEnv = os.Environ()
	data, err := os.MkdirTemp("", "caddymodule-test-data-")
	if err != nil {
		panic(err)
	}
	for k, v := range map[string]string{
		"XDG_DATA_HOME": data, "XDG_CONFIG_HOME": data,
		"HTTPS_PROXY": noNetworkProxy, "https_proxy": noNetworkProxy, "HTTP_PROXY": noNetworkProxy, "http_proxy": noNetworkProxy,
		"NO_PROXY": "", "no_proxy": "",
	} {
		os.Setenv(k, v)
	}
	// Reverse DNS and key directory host names, in this process, are answered by the hosts
	// file or not at all, unless a test gives its own resolver.
	testResolver = noNetwork
	testDirectoryOptions = &webbotauth.DirectoryOptions{Resolver: noNetwork}
	ports := freePorts(3)
	adminPort, sitePort, site2Port = ports[0], ports[1], ports[2]
	caddytest.Default.AdminPort = adminPort
	caddytest.Default.LoadRequestTimeout = 30 * time.Second
	caddytest.Default.TestRequestTimeout = 30 * time.Second
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.RemoveAll(data)
	os.Exit(code)
}

// userEnv is the environment the tests were started with, before TestMain changed it.
var userEnv []string

// toolEnv is the environment of the go and git commands the tests run, with extra: the
// user's, as TestMain found it (their settings, their module proxy, and the network the go
// command may need to fetch a module), not the one TestMain gives Caddy.
func toolEnv(extra ...string) []string {
	return append(slices.Clip(userEnv), extra...)
}

// noNetwork is the resolver of the tests' Caddy in this process when a test gives none: the
// hosts file answers (localhost), and a question for a DNS server fails as it does offline.
var noNetwork = &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
	return nil, errors.New("a test never asks a real DNS server")
}}

// useResolver makes r the resolver of reverse DNS in the tests' Caddy until the test ends.
func useResolver(t testing.TB, r identity.Resolver) {
	prev := testResolver
	testResolver = r
	t.Cleanup(func() { testResolver = prev })
}

// useDirectoryOptions makes o the key directory fetcher's options until the test ends; with
// no resolver, it resolves as noNetwork does.
func useDirectoryOptions(t testing.TB, o webbotauth.DirectoryOptions) {
	if o.Resolver == nil {
		o.Resolver = noNetwork
	}
	prev := testDirectoryOptions
	testDirectoryOptions = &o
	t.Cleanup(func() { testDirectoryOptions = prev })
}

// noNetworkProxy is the proxy the tests' HTTP clients are given for every host that is not a
// loopback address: port 1 of the loopback address, where nothing listens.
const noNetworkProxy = "http://127.0.0.1:1"

func freePorts(n int) []int {
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			panic(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// globals is the global options block of every test Caddyfile.
func globals() string { return globalsWith("") }

// globalsWith is globals with more global options.
func globalsWith(extra string) string {
	return fmt.Sprintf(`{
	admin localhost:%d
	http_port %d
	auto_https off
	grace_period 1s
%s}
`, adminPort, sitePort, extra)
}

// expand replaces @ADMIN@, @PORT@ and @PORT2@ in a test config.
func expand(cfg string) string {
	return strings.NewReplacer(
		"@ADMIN@", fmt.Sprint(adminPort),
		"@PORT@", fmt.Sprint(sitePort),
		"@PORT2@", fmt.Sprint(site2Port),
	).Replace(cfg)
}

// startCaddyfile loads globals plus site into the in-process Caddy and fails the test if the
// config does not load.
func startCaddyfile(t *testing.T, site string) *caddytest.Tester {
	t.Helper()
	tester := caddytest.NewTester(t)
	tester.InitServer(globals()+expand(site), "caddyfile")
	if t.Failed() {
		t.FailNow()
	}
	return tester
}

// caddyTesterWithGlobals is startCaddyfile with more global options.
func caddyTesterWithGlobals(t *testing.T, extra, site string) *caddytest.Tester {
	t.Helper()
	tester := caddytest.NewTester(t)
	tester.InitServer(globalsWith(extra)+expand(site), "caddyfile")
	if t.Failed() {
		t.FailNow()
	}
	return tester
}

func siteURL(path string) string  { return fmt.Sprintf("http://localhost:%d%s", sitePort, path) }
func site2URL(path string) string { return fmt.Sprintf("http://localhost:%d%s", site2Port, path) }

// client sends requests as they are: no transparent gzip, no redirects followed.
var client = &http.Client{
	Transport: &http.Transport{DisableCompression: true, DisableKeepAlives: true},
	Timeout:   30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
}

// do sends a request; header is "Name: value" pairs. It returns the response with its body read.
// send is client.Do, once more for a GET or HEAD whose connection the server closed
// unanswered: the old server of a config just replaced can accept a connection as it shuts
// down (the listener is shared across loads). A handler's failure is a 5xx, never this.
func send(t *testing.T, req *http.Request) (*http.Response, error) {
	t.Helper()
	resp, err := client.Do(req)
	if err != nil && (req.Method == "GET" || req.Method == "HEAD") && (errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)) {
		t.Logf("%s %s: %v; once more", req.Method, req.URL, err)
		time.Sleep(50 * time.Millisecond)
		resp, err = client.Do(req)
	}
	return resp, err
}

func do(t *testing.T, method, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range header {
		k, v, _ := strings.Cut(h, ":")
		if strings.EqualFold(k, "Host") {
			req.Host = strings.TrimSpace(v)
			continue
		}
		req.Header.Add(k, strings.TrimSpace(v))
	}
	resp, err := send(t, req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return resp, body
}

func wantStatus(t *testing.T, resp *http.Response, want int) {
	t.Helper()
	if resp.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d", resp.Request.Method, resp.Request.URL, resp.StatusCode, want)
	}
}

// tagPolicy builds the policy that a config's rules denote, with the library the handler uses.
func tagPolicy(t *testing.T, rules map[string][]string) tagemit.Policy {
	t.Helper()
	p, err := tagemit.NewPolicy(rules)
	if err != nil {
		t.Fatalf("NewPolicy(%v): %v", rules, err)
	}
	return p
}

// wantRobotsTag checks that resp has exactly one Robots-Tag field line and that it means want.
func wantRobotsTag(t *testing.T, resp *http.Response, want tagemit.Policy) {
	t.Helper()
	lines := resp.Header.Values("Robots-Tag")
	if len(lines) != 1 {
		t.Fatalf("%s: Robots-Tag field lines %q, want exactly one", resp.Request.URL.Path, lines)
	}
	got, errs := tagemit.ParseRobotsTag(lines)
	if len(errs) > 0 {
		t.Fatalf("%s: Robots-Tag %q does not parse: %v", resp.Request.URL.Path, lines[0], errs)
	}
	if !got.Equal(want) {
		t.Fatalf("%s: Robots-Tag %q, want %q", resp.Request.URL.Path, lines[0], want.RobotsTag())
	}
}

// wantXRobotsTag checks the legacy header's meaning.
func wantXRobotsTag(t *testing.T, resp *http.Response, want tagemit.Policy) {
	t.Helper()
	lines := resp.Header.Values("X-Robots-Tag")
	if len(lines) == 0 {
		t.Fatalf("%s: no X-Robots-Tag, want %q", resp.Request.URL.Path, want.XRobotsTag())
	}
	got, errs := tagemit.ParseXRobotsTag(lines)
	if len(errs) > 0 {
		t.Fatalf("%s: X-Robots-Tag %q does not parse: %v", resp.Request.URL.Path, lines, errs)
	}
	if !got.Equal(want) {
		t.Fatalf("%s: X-Robots-Tag %q, want %q", resp.Request.URL.Path, lines, want.XRobotsTag())
	}
}

// gunzipBytes decodes gzip for goroutines that cannot call t.Fatal; nil on error.
func gunzipBytes(b []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return nil
	}
	return out
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	return out
}

// metaElements returns the name -> content of the <meta name=...> elements in the document's
// head, and the document rendered without the elements whose names are in strip.
func metaElements(t *testing.T, doc []byte, strip map[string]bool) (map[string][]string, string) {
	t.Helper()
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("html.Parse: %v", err)
	}
	metas := map[string][]string{}
	var head *html.Node
	var find func(*html.Node)
	find = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Head && head == nil {
			head = n
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(root)
	if head == nil {
		t.Fatalf("document has no head")
	}
	for c := head.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode && c.DataAtom == atom.Meta {
			var name, content string
			for _, a := range c.Attr {
				switch a.Key {
				case "name":
					name = strings.ToLower(a.Val)
				case "content":
					content = a.Val
				}
			}
			if name != "" {
				metas[name] = append(metas[name], content)
				if strip[name] {
					head.RemoveChild(c)
				}
			}
		}
		c = next
	}
	var buf bytes.Buffer
	if err := html.Render(&buf, root); err != nil {
		t.Fatal(err)
	}
	return metas, buf.String()
}

// renderHTML parses and renders a document, so that two documents can be compared as trees.
func renderHTML(t *testing.T, doc []byte) string {
	t.Helper()
	_, s := metaElements(t, doc, nil)
	return s
}

// wantInjected checks that got is orig with the meta elements of p (and the elements extra,
// such as TDMRep's) added to its head and nothing else changed, compared as parsed HTML trees.
func wantInjected(t *testing.T, got, orig []byte, p tagemit.Policy, extra ...string) {
	t.Helper()
	// What the injector must insert, read back the same way.
	wantMetas, _ := metaElements(t, []byte("<!DOCTYPE html><html><head>"+string(p.MetaElements())+strings.Join(extra, "")+"</head></html>"), nil)
	if len(wantMetas) == 0 {
		t.Fatalf("policy %q has no meta elements", p.RobotsTag())
	}
	strip := map[string]bool{}
	for name := range wantMetas {
		strip[name] = true
	}
	gotMetas, stripped := metaElements(t, got, strip)
	for name, want := range wantMetas {
		if strings.Join(gotMetas[name], "|") != strings.Join(want, "|") {
			t.Errorf("meta name=%q: content %q, want %q\nbody:\n%s", name, gotMetas[name], want, got)
		}
	}
	if orig := renderHTML(t, orig); stripped != orig {
		t.Errorf("injected page differs from the original beyond the meta elements:\n got: %s\nwant: %s", stripped, orig)
	}
}
