package caddymodule

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddytest"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/usage"
)

// The lines of Caddyfile.example that take their ports from the environment, with defaults.
const (
	exampleSite  = "http://localhost:{$HTTP_PORT:8080} {"
	exampleAdmin = "admin localhost:{$ADMIN_PORT:2019}"
)

// exampleCaddyfile returns ../Caddyfile.example with its site on port and its admin endpoint at
// admin ("off" to disable it). Nothing else is changed.
func exampleCaddyfile(t *testing.T, port int, admin string) string {
	t.Helper()
	b, err := os.ReadFile("../Caddyfile.example")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, old := range []string{exampleSite, exampleAdmin} {
		if strings.Count(s, old) != 1 {
			t.Fatalf("Caddyfile.example has %d lines %q; the test rewrites exactly one", strings.Count(s, old), old)
		}
	}
	s = strings.Replace(s, exampleSite, fmt.Sprintf("http://localhost:%d {", port), 1)
	return strings.Replace(s, exampleAdmin, "admin "+admin, 1)
}

// exampleRequests are the requests the documentation shows, and a few more.
var exampleRequests = []struct {
	method, path string
	header       []string
}{
	{"GET", "/robots.txt", nil},
	{"HEAD", "/robots.txt", nil},
	{"POST", "/robots.txt", nil},
	{"GET", "/", nil},
	{"GET", "/index.html", nil},
	{"GET", "/drafts/post.html", nil},
	{"GET", "/drafts/post.html", []string{"Accept-Encoding: gzip"}},
	{"HEAD", "/drafts/post.html", nil},
	{"GET", "/drafts/post.html", []string{"Range: bytes=0-63"}},
	{"GET", "/reports/annual-report.pdf", nil},
	{"GET", "/articles/first.html", nil},
	{"GET", "/api/status", nil},
	{"GET", "/sitemap.xml", nil},
	{"GET", "/missing.html", nil},
	{"GET", "/open-data/stations.csv", nil},
}

type exchange struct {
	Status int
	Header map[string][]string
	Body   string
}

var comparedHeaders = []string{"Robots-Tag", "X-Robots-Tag", "Content-Type", "Content-Length", "Content-Encoding",
	"Cache-Control", "Etag", "Allow", "Content-Range", "Vary", "X-Content-Type-Options", "Content-Usage"}

func exchanges(t *testing.T, base string) []exchange {
	t.Helper()
	var out []exchange
	for _, r := range exampleRequests {
		resp, body := do(t, r.method, base+r.path, r.header...)
		ex := exchange{Status: resp.StatusCode, Header: map[string][]string{}, Body: string(body)}
		for _, h := range comparedHeaders {
			if v := resp.Header.Values(h); len(v) > 0 {
				ex.Header[h] = v
			}
		}
		out = append(out, ex)
	}
	return out
}

// checkExampleResponses checks what the documentation shows about the example, given the base
// URL.
func checkExampleResponses(t *testing.T, base string) {
	t.Helper()
	resp, body := do(t, "GET", base+"/robots.txt")
	wantStatus(t, resp, 200)
	host := strings.TrimPrefix(base, "http://")
	for _, line := range []string{
		"Sitemap: http://" + host + "/sitemap.xml\n",
		"Sitemap: https://news.example.com/news-sitemap.xml\n",
		"User-agent: GPTBot\nUser-agent: CCBot\nUser-agent: Google-Extended\nUser-agent: Bytespider\nDisallow: /\n",
		"User-Agent-Purpose: EXAMPLE-PURPOSE-1\nDisallow: /articles/\n",
		"Crawl-delay: 2\n",
		"Content-Usage: train-ai=n, search=y\nContent-Usage: /open-data/ train-ai=y\n",
		"Content-Signal: search=yes, ai-input=yes, ai-train=no\nContent-Signal: /open-data/ search=yes, ai-input=yes, ai-train=yes\n",
	} {
		if !strings.Contains(string(body), line) {
			t.Errorf("robots.txt lacks %q:\n%s", line, body)
		}
	}
	f, diags := robotsgen.Parse(body)
	if len(diags) > 0 {
		t.Errorf("robots.txt diagnostics: %v", diags)
	}
	m := robotsgen.NewMatcher(f)
	for _, c := range []struct {
		agent, path string
		allowed     bool
	}{{"GPTBot", "/", false}, {"CCBot", "/articles/first.html", false}, {"Googlebot", "/drafts/post.html", false}, {"Googlebot", "/articles/first.html", true},
		{"ClaudeBot", "/articles/first.html", false}, {"ClaudeBot", "/", true}, {"ClaudeBot", "/drafts/post.html", true},
		// Left out of the preset: the * group.
		{"Applebot", "/articles/first.html", true}, {"Applebot", "/drafts/post.html", false},
		{"PetalBot", "/articles/first.html", true}, {"facebookexternalhit", "/articles/first.html", true}, {"ChatGPT-User", "/articles/first.html", true}} {
		if got := m.Decide(c.agent, "", c.path).Allowed; got != c.allowed {
			t.Errorf("robots.txt: %s may fetch %s = %v, want %v", c.agent, c.path, got, c.allowed)
		}
	}
	checkExamplePreferences(t, m)
	if got := resp.Header.Get("Cache-Control"); got != "max-age=86400" {
		t.Errorf("robots.txt Cache-Control %q, want max-age=86400 (max_age 1d)", got)
	}

	siteWide := tagPolicy(t, map[string][]string{"*": {"max-image-preview=large"}, "GPTBot": {"noindex"}})
	resp, _ = do(t, "GET", base+"/")
	wantStatus(t, resp, 200)
	wantRobotsTag(t, resp, siteWide)

	drafts := siteWide.Union(tagPolicy(t, map[string][]string{"*": {"noindex", "nosnippet"}}))
	page, err := os.ReadFile("../example/drafts/post.html")
	if err != nil {
		t.Fatal(err)
	}
	// The drafts route asks for meta elements, so the TDMRep declaration of the route beside
	// it (tdm derive) is stated in the page too.
	const tdmPolicy = "https://example.com/policies/tdm.json"
	tdmMeta := `<meta name="tdm-reservation" content="1"><meta name="tdm-policy" content="` + tdmPolicy + `">`
	resp, body = do(t, "GET", base+"/drafts/post.html")
	wantStatus(t, resp, 200)
	wantRobotsTag(t, resp, drafts)
	wantXRobotsTag(t, resp, drafts)
	wantInjected(t, body, page, drafts, tdmMeta)
	if r, p := resp.Header.Values("Tdm-Reservation"), resp.Header.Values("Tdm-Policy"); len(r) != 1 || r[0] != "1" || len(p) != 1 || p[0] != tdmPolicy {
		t.Errorf("drafts/post.html: tdm-reservation %q tdm-policy %q, want 1 and %s (tdm derive)", r, p, tdmPolicy)
	}
	resp, body = do(t, "GET", base+"/drafts/post.html", "Accept-Encoding: gzip")
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("drafts/post.html is not gzip-encoded for a client that accepts it")
	} else {
		wantInjected(t, gunzip(t, body), page, drafts, tdmMeta)
	}

	resp, _ = do(t, "GET", base+"/reports/annual-report.pdf")
	wantStatus(t, resp, 200)
	wantRobotsTag(t, resp, siteWide.Union(tagPolicy(t, map[string][]string{"*": {"noindex"}})))

	resp, _ = do(t, "GET", base+"/articles/first.html")
	articles := tagPolicy(t, map[string][]string{
		"*": {"unavailable_after=2027-01-01T00:00:00Z"}, "Googlebot": {"max-snippet=50"}, "ChatGPT-User": {"noarchive"}, "Claude-User": {"noarchive"},
	})
	wantRobotsTag(t, resp, siteWide.Union(articles))
	// Every article carries the field: it stays small (a preset in robots_tag would write a
	// rule for each crawler of its category, over a kilobyte).
	if n := len(strings.Join(resp.Header.Values("Robots-Tag"), ", ")); n > 200 {
		t.Errorf("articles: a Robots-Tag of %d bytes: %s", n, resp.Header.Get("Robots-Tag"))
	}

	// enforce: a crawler the file names is refused where it is disallowed, nowhere else; a
	// browser never.
	for _, c := range []struct {
		ua, path string
		status   int
	}{
		{"Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", "/articles/first.html", 403},
		{"Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", "/", 200},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)", "/articles/first.html", 200},
		{"Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)", "/", 403},
		{"Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)", "/robots.txt", 200},
		{"Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0", "/drafts/post.html", 200},
		{"facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", "/articles/first.html", 200},
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot", "/articles/first.html", 200},
	} {
		if resp, _ := do(t, "GET", base+c.path, "User-Agent: "+c.ua); resp.StatusCode != c.status {
			t.Errorf("%q %s: %d, want %d", c.ua, c.path, resp.StatusCode, c.status)
		}
	}
	// Every fetcher that acts for a person, of either catalogue (link previews, AI
	// assistants' user-triggered fetchers), reads articles: the example refuses none.
	for _, ua := range personFetchers() {
		if resp, _ := do(t, "GET", base+"/articles/first.html", "User-Agent: "+ua+"/1.0"); resp.StatusCode == 403 {
			t.Errorf("%q is refused an article: link previews and user-triggered fetchers must be kept", ua)
		}
	}

	resp, body = do(t, "GET", base+"/api/status")
	wantStatus(t, resp, 200)
	if string(body) != `{"status":"ok"}` || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("/api/status: %q %q", body, resp.Header.Get("Content-Type"))
	}
	wantRobotsTag(t, resp, siteWide)

	// Content-Usage: the site-wide preferences, except on the open data.
	for path, want := range map[string]string{
		"/":                       "train-ai=n, search=y",
		"/drafts/post.html":       "train-ai=n, search=y",
		"/api/status":             "train-ai=n, search=y",
		"/open-data/stations.csv": "train-ai=y, search=y",
	} {
		resp, _ = do(t, "GET", base+path)
		wantStatus(t, resp, 200)
		if got := resp.Header.Values("Content-Usage"); len(got) != 1 || got[0] != want {
			t.Errorf("%s: Content-Usage %q, want %q", path, got, want)
		}
		// TDMRep derived from the same preferences: reserved wherever train-ai=n.
		wantTDM := ""
		if strings.HasPrefix(want, "train-ai=n") {
			wantTDM = "1"
		}
		if got := strings.Join(resp.Header.Values("Tdm-Reservation"), "|"); got != wantTDM {
			t.Errorf("%s: tdm-reservation %q, want %q", path, got, wantTDM)
		}
	}
}

// checkExamplePreferences checks the AI usage preferences the example's robots.txt states,
// as the matcher reads them (attach-05: longest path, crawlable paths only).
func checkExamplePreferences(t *testing.T, m *robotsgen.Matcher) {
	t.Helper()
	for _, c := range []struct{ agent, path, cu, cs string }{
		{"Googlebot", "/articles/first.html", "train-ai=n, search=y", "search=yes, ai-input=yes, ai-train=no"},
		{"Googlebot", "/open-data/stations.csv", "train-ai=y", "search=yes, ai-input=yes, ai-train=yes"},
		{"Googlebot", "/drafts/post.html", "", ""}, // disallowed: no preferences
		{"GPTBot", "/open-data/stations.csv", "", ""},
	} {
		if got := m.Preferences(usage.ContentUsage, c.agent, "", c.path).String(); got != c.cu {
			t.Errorf("robots.txt: %s %s: Content-Usage %q, want %q", c.agent, c.path, got, c.cu)
		}
		if got := m.Preferences(usage.ContentSignal, c.agent, "", c.path).String(); got != c.cs {
			t.Errorf("robots.txt: %s %s: Content-Signal %q, want %q", c.agent, c.path, got, c.cs)
		}
	}
}

// TestExampleAdaptRoundTrip loads Caddyfile.example into the in-process Caddy, then the JSON
// that the caddyfile adapter makes of it, and checks that both serve the same responses.
func TestExampleAdaptRoundTrip(t *testing.T) {
	cfg := exampleCaddyfile(t, sitePort, fmt.Sprintf("localhost:%d", adminPort))
	base := fmt.Sprintf("http://localhost:%d", sitePort)

	tester := caddytest.NewTester(t)
	tester.InitServer(cfg, "caddyfile")
	if t.Failed() {
		t.FailNow()
	}
	checkExampleResponses(t, base)
	fromCaddyfile := exchanges(t, base)

	adapted, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cfg), map[string]any{"filename": "Caddyfile.example"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range warnings {
		t.Errorf("adapt warning: %s:%d: %s", w.File, w.Line, w.Message)
	}
	if !bytes.Contains(adapted, []byte(`"handler":"robots_txt"`)) || !bytes.Contains(adapted, []byte(`"handler":"robots_tag"`)) {
		t.Fatalf("adapted JSON lacks the handlers: %s", adapted)
	}
	tester2 := caddytest.NewTester(t)
	tester2.InitServer(string(adapted), "json")
	if t.Failed() {
		t.FailNow()
	}
	checkExampleResponses(t, base)
	fromJSON := exchanges(t, base)
	for i := range exampleRequests {
		if !reflect.DeepEqual(fromCaddyfile[i], fromJSON[i]) {
			r := exampleRequests[i]
			t.Errorf("%s %s %v differs:\nCaddyfile: %+v\n     JSON: %+v", r.method, r.path, r.header, fromCaddyfile[i], fromJSON[i])
		}
	}
}

// TestExampleBinary builds the caddy-robots command once and runs it on Caddyfile.example the
// way the README does (from this directory, so the example's root ../example resolves), then
// checks the responses the documentation shows, and that the command's validate refuses a bad
// Caddyfile naming its line.
// serving waits until the caddy-robots process whose exit exited reports answers probe, a
// URL on port, and its admin endpoint on adminPort is its own: the config it holds listens
// on port (a free port found by freePorts can be taken by another process before the binary
// listens on it; the binary then exits, and what answers is another server). False when the
// process exited first.
func serving(t *testing.T, probe string, port, adminPort int, exited chan error) bool {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			exited <- err
			return false
		default:
		}
		if resp, err := http.Get(probe); err == nil {
			resp.Body.Close()
			if resp, err := http.Get(fmt.Sprintf("http://localhost:%d/config/", adminPort)); err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if bytes.Contains(b, []byte(fmt.Sprintf(`:%d"`, port))) {
					return true
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("caddy-robots did not serve %s within 60s", probe)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestExampleBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the caddy-robots binary")
	}
	dir := t.TempDir()
	bin, err := caddyBinary()
	if err != nil {
		t.Fatal(err)
	}

	out, err := exec.Command(bin, "list-modules").CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("http.handlers.robots_txt\n")) || !bytes.Contains(out, []byte("http.handlers.robots_tag\n")) {
		t.Errorf("list-modules: %v\n%s", err, out)
	}

	// The README's command, with the ports the README says to set in the environment. A port
	// found free may be taken by another process (other packages' tests run beside these)
	// before the binary listens on it: the binary then exits, and the test tries other ports,
	// rather than reading whatever else answers there.
	cmdDir, args := readmeRunCommand(t)
	out, err = exec.Command(bin, "validate", "--config", filepath.Join(cmdDir, "../Caddyfile.example"), "--adapter", "caddyfile").CombinedOutput()
	if err != nil {
		t.Fatalf("validate Caddyfile.example: %v\n%s", err, out)
	}
	var (
		ports  []int
		port   int
		base   string
		exited chan error
	)
	for attempt := 1; ; attempt++ {
		ports = freePorts(2)
		port = ports[0]
		env := append(os.Environ(), fmt.Sprintf("HTTP_PORT=%d", ports[0]), fmt.Sprintf("ADMIN_PORT=%d", ports[1]))
		ctx, cancel := context.WithCancel(context.Background())
		run := exec.CommandContext(ctx, bin, args...)
		run.Dir, run.Env = cmdDir, env
		logs := &bytes.Buffer{}
		run.Stdout, run.Stderr = logs, logs
		if err := run.Start(); err != nil {
			cancel()
			t.Fatal(err)
		}
		exited = make(chan error, 1)
		go func() { exited <- run.Wait() }()
		base = fmt.Sprintf("http://localhost:%d", port)
		if serving(t, base+"/robots.txt", port, ports[1], exited) {
			defer func() {
				cancel()
				err := <-exited
				exited <- err
				if t.Failed() {
					t.Logf("caddy-robots output:\n%s", logs.String())
				}
			}()
			break
		}
		cancel()
		err := <-exited
		if attempt == 3 || !strings.Contains(logs.String(), "address already in use") {
			t.Fatalf("caddy-robots did not serve %s: %v\n%s", base, err, logs.String())
		}
	}
	checkExampleResponses(t, base)

	// Stopped as the README says, through the admin endpoint on ADMIN_PORT.
	if out, err := exec.Command(bin, "stop", "--address", fmt.Sprintf("localhost:%d", ports[1])).CombinedOutput(); err != nil {
		t.Errorf("stop --address localhost:%d: %v\n%s", ports[1], err, out)
	}
	select {
	case err := <-exited:
		exited <- err
	case <-time.After(30 * time.Second):
		t.Errorf("caddy-robots still runs 30s after stop")
	}

	// The command line names the line of a bad value.
	bad := strings.Replace(exampleCaddyfile(t, port, "off"), "crawl_delay 2", "crawl_delay two", 1)
	badPath := filepath.Join(dir, "Caddyfile.bad")
	if err := os.WriteFile(badPath, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	line := 1 + strings.Count(bad[:strings.Index(bad, "crawl_delay two")], "\n")
	out, err = exec.Command(bin, "validate", "--config", badPath, "--adapter", "caddyfile").CombinedOutput()
	if err == nil {
		t.Fatalf("validate accepted crawl_delay two:\n%s", out)
	}
	if !regexp.MustCompile(fmt.Sprintf(`Caddyfile\.bad:%d\b`, line)).Match(out) || !regexp.MustCompile(`crawl_delay \\?"two\\?": a crawl delay is a finite number of seconds`).Match(out) {
		t.Errorf("validate output does not name Caddyfile.bad:%d and the problem:\n%s", line, out)
	}
}

// personFetchers are the names of the crawlers that fetch a page for a person: the bot
// catalogue's link previews and the AI catalogue's ai-assistants that are in no other
// category (PetalBot, also in ai-search, is kept out by a preset of ai-search on purpose).
func personFetchers() []string {
	var out []string
	for _, b := range crawlers.Bots() {
		if slices.Contains(b.Categories, "preview") {
			out = append(out, b.Names...)
		}
	}
	cs, _ := crawlers.Category(crawlers.AIAssistants)
	for _, c := range cs {
		if !c.In(crawlers.AISearch) && !c.In(crawlers.AITraining) {
			out = append(out, c.Name)
		}
	}
	return out
}

// readmeRunCommand returns the directory and the caddy-robots arguments of the README's
// "Two commands" block (cd DIR && go run ./cmd/caddy-robots ARGS...), which TestExampleBinary
// runs with the binary that go run would build.
func readmeRunCommand(t *testing.T) (dir string, args []string) {
	t.Helper()
	block := docBlock(t, "../README.md", "two-commands", "sh")
	var cmds []string
	for _, l := range strings.Split(block, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			cmds = append(cmds, l)
		}
	}
	if len(cmds) != 2 || cmds[1] != "./test.sh" {
		t.Fatalf("the README's two commands are %q", cmds)
	}
	m := regexp.MustCompile(`^cd (\S+) && go run \./cmd/caddy-robots (.+)$`).FindStringSubmatch(cmds[0])
	if m == nil {
		t.Fatalf("the README's first command %q is not cd DIR && go run ./cmd/caddy-robots ...", cmds[0])
	}
	if fi, err := os.Stat("../test.sh"); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("the README's ./test.sh is not an executable file: %v", err)
	}
	return filepath.Join("..", m[1]), strings.Fields(m[2])
}

// TestExamplePorts: the example's ports come from HTTP_PORT and ADMIN_PORT when they are
// set, 8080 and 2019 otherwise, so it runs beside other servers without being edited.
func TestExamplePorts(t *testing.T) {
	src, err := os.ReadFile("../Caddyfile.example")
	if err != nil {
		t.Fatal(err)
	}
	adapt := func() string {
		out, _, err := caddyconfig.GetAdapter("caddyfile").Adapt(src, map[string]any{"filename": "Caddyfile.example"})
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	t.Setenv("HTTP_PORT", "")
	t.Setenv("ADMIN_PORT", "")
	os.Unsetenv("HTTP_PORT")
	os.Unsetenv("ADMIN_PORT")
	if out := adapt(); !strings.Contains(out, `"listen":[":8080"]`) || !strings.Contains(out, `"admin":{"listen":"localhost:2019"}`) {
		t.Errorf("without HTTP_PORT and ADMIN_PORT, not on 8080 and 2019:\n%s", out)
	}
	t.Setenv("HTTP_PORT", "18123")
	t.Setenv("ADMIN_PORT", "12456")
	out := adapt()
	if !strings.Contains(out, `"listen":[":18123"]`) || !strings.Contains(out, `"admin":{"listen":"localhost:12456"}`) || strings.Contains(out, "8080") {
		t.Errorf("with HTTP_PORT=18123 ADMIN_PORT=12456:\n%s", out)
	}
}

// TestExampleCaddyfileComplete checks that Caddyfile.example is formatted as caddy fmt would
// and uses every directive and sub-directive of the module, as the README promises.
func TestExampleCaddyfileComplete(t *testing.T) {
	src, err := os.ReadFile("../Caddyfile.example")
	if err != nil {
		t.Fatal(err)
	}
	if got := caddyfile.Format(src); !bytes.Equal(got, src) {
		t.Errorf("Caddyfile.example is not formatted; caddy fmt gives:\n%s", got)
	}
	blocks, err := caddyfile.Parse("Caddyfile.example", src)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, sb := range blocks {
		for _, seg := range sb.Segments {
			in := ""
			for _, tok := range seg {
				if tok.Text == "robots_txt" || tok.Text == "robots_tag" {
					in = tok.Text
				}
				if in != "" {
					seen[in+" "+tok.Text] = true
				}
			}
		}
	}
	for _, want := range []string{
		"robots_txt robots_txt", "robots_txt comment", "robots_txt sitemap", "robots_txt group",
		"robots_txt user_agent", "robots_txt purpose", "robots_txt allow", "robots_txt disallow",
		"robots_txt crawl_delay", "robots_txt record", "robots_txt max_age",
		"robots_txt preset", "robots_txt except", "robots_txt enforce",
		"robots_tag robots_tag", "robots_tag agent", "robots_tag meta", "robots_tag x_robots_tag",
		"robots_txt content_usage", "robots_txt content_signal", "robots_tag content_usage",
		"robots_tag tdm",
		// Not robots_tag's preset and except: a preset in a response header writes a rule
		// for each crawler of its category into every response (docs/ai-usage.md shows it).
	} {
		if !seen[want] {
			t.Errorf("Caddyfile.example does not use %s", want)
		}
	}
}
