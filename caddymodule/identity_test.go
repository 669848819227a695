package caddymodule

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
)

// crawlersGlobals verifies Google's crawler from the identity package's copy of Google's
// published list, read as a local file (no network: offline), without reverse DNS, and
// trusts loopback as a proxy so that X-Forwarded-For gives the client address.
func crawlersGlobals(t *testing.T, dir string) string {
	t.Helper()
	g, _ := crawlers.BotByID("google-crawler")
	file, err := filepath.Abs("../identity/testdata/googlebot.json")
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`	crawlers {
		lists offline
		list_file %s %s
		lists_dir %s
		reverse_dns off
	}
	servers {
		trusted_proxies static 127.0.0.1/8 ::1/128
	}
`, g.Verification.IPRanges[0].URL, file, dir)
}

// identitySites: the first site enforces the file and impostors (410) and answers with the
// identity's placeholders; the second acts on the crawler matcher alone.
const identitySites = `
:@PORT@ {
	robots_txt {
		group GPTBot {
			disallow /
		}
		enforce {
			impostors 410
		}
	}
	respond "{http.crawler.id}|{http.crawler.name}|{http.crawler.status}|{http.crawler.verified_by}|{http.crawler.operator}"
}
:@PORT2@ {
	@fake crawler impostor
	respond @fake "fake {http.crawler.name}" 418
	@google crawler Googlebot verified
	respond @google "real {http.crawler.verified_by}" 200
	@search crawler search-engine
	respond @search "search {http.crawler.status}" 200
	respond "other {http.crawler.status}" 200
}
`

// TestCrawlerIdentityThroughCaddy: a request claiming Googlebot from an address outside
// Google's published list (the client address a trusted proxy reports) is answered with the
// impostor status; from inside the list it is served; a browser is untouched; the matcher
// and the placeholders say the same; a forwarding header from an untrusted client is not
// believed.
func TestCrawlerIdentityThroughCaddy(t *testing.T) {
	caddyTesterWithGlobals(t, crawlersGlobals(t, t.TempDir()), identitySites)
	const browser = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	for _, c := range []struct {
		ua, client string
		status     int
		body       string
		status2    int
		body2      string
	}{
		{googlebotUA, "203.0.113.9", 410, "refused as an impostor: its User-Agent names Googlebot, but its address is not in Google's published address lists\n", 418, "fake Googlebot"},
		{googlebotUA, "66.249.64.5", 200, "google-crawler|Googlebot|verified|ip-list|Google", 200, "real ip-list"},
		{googlebotUA, "2001:4860:4801:10::1", 200, "google-crawler|Googlebot|verified|ip-list|Google", 200, "real ip-list"},
		{browser, "203.0.113.9", 200, "||none||", 200, "other none"},
		// A bot whose operator publishes nothing: its claim is all there is.
		{"Mozilla/5.0 (compatible; Barkrowler/0.9; +https://babbar.eu/crawling-bot/)", "203.0.113.9", 200, "exensa-crawler|Barkrowler|unverifiable||", 200, "other unverifiable"},
		// The file's enforcement is unchanged.
		{"GPTBot/1.2", "203.0.113.9", 403, "robots.txt disallows", 200, ""},
	} {
		resp, body := do(t, "GET", siteURL("/page"), "User-Agent: "+c.ua, "X-Forwarded-For: "+c.client)
		if resp.StatusCode != c.status || !strings.Contains(string(body), c.body) {
			t.Errorf("%s from %s: %d %q, want %d with %q", c.ua, c.client, resp.StatusCode, body, c.status, c.body)
		}
		resp, body = do(t, "GET", site2URL("/page"), "User-Agent: "+c.ua, "X-Forwarded-For: "+c.client)
		if resp.StatusCode != c.status2 || !strings.Contains(string(body), c.body2) {
			t.Errorf("matcher: %s from %s: %d %q, want %d with %q", c.ua, c.client, resp.StatusCode, body, c.status2, c.body2)
		}
	}
	// A second User-Agent field claiming Googlebot is read, as enforcement reads every value.
	// (Written by hand: Go's client sends one User-Agent line.)
	conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", sitePort))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /page HTTP/1.1\r\nHost: localhost\r\nUser-Agent: Mozilla/5.0 Firefox/133.0\r\nUser-Agent: %s\r\nX-Forwarded-For: 203.0.113.9\r\nConnection: close\r\n\r\n", googlebotUA)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 410 {
		t.Errorf("Googlebot in a second User-Agent field from outside the list: %d, want 410", res.StatusCode)
	}
	res.Body.Close()
	var resp *http.Response
	// robots.txt is served to an impostor.
	resp, _ = do(t, "GET", siteURL("/robots.txt"), "User-Agent: "+googlebotUA, "X-Forwarded-For: 203.0.113.9")
	wantStatus(t, resp, 200)
}

// TestCrawlerIdentityUntrustedForwarding: without trusted_proxies, X-Forwarded-For is not
// the client address: a Googlebot request from loopback claiming an address inside Google's
// list is an impostor (loopback is not Google's).
func TestCrawlerIdentityUntrustedForwarding(t *testing.T) {
	g := crawlersGlobals(t, t.TempDir())
	g = g[:strings.Index(g, "\tservers {")]
	caddyTesterWithGlobals(t, g, identitySites)
	resp, body := do(t, "GET", siteURL("/page"), "User-Agent: "+googlebotUA, "X-Forwarded-For: 66.249.64.5")
	if resp.StatusCode != 410 {
		t.Errorf("forwarded address believed without trusted_proxies: %d %q", resp.StatusCode, body)
	}
}

// TestCrawlersReloadKeepsVerification: a reload with the same crawlers config keeps the
// running verification (its lists are not read or fetched again); a changed config gets its
// own.
func TestCrawlersReloadKeepsVerification(t *testing.T) {
	dir := t.TempDir()
	tester := caddyTesterWithGlobals(t, crawlersGlobals(t, dir), identitySites)
	first := runningService(t)
	fetched := first.Lists()[0].Fetched
	time.Sleep(10 * time.Millisecond)
	tester.InitServer(globalsWith(crawlersGlobals(t, dir))+expand(identitySites+"\n:@PORT2@/x {\n\trespond x\n}\n"), "caddyfile")
	if again := runningService(t); again != first || again.Lists()[0].Fetched != fetched {
		t.Errorf("a reload with the same crawlers config restarted the verification")
	}
	tester.InitServer(globalsWith(strings.Replace(crawlersGlobals(t, dir), "reverse_dns off", "reverse_dns off\n\t\trefresh 12h", 1))+expand(identitySites), "caddyfile")
	if changed := runningService(t); changed == first {
		t.Errorf("a changed crawlers config kept the old verification")
	}
	resp, _ := do(t, "GET", siteURL("/page"), "User-Agent: "+googlebotUA, "X-Forwarded-For: 66.249.64.5")
	wantStatus(t, resp, 200)
}

// runningService is the verification of the running config's crawlers app.
func runningService(t *testing.T) *identity.Service {
	t.Helper()
	app, err := caddy.ActiveContext().AppIfConfigured("crawlers")
	if err != nil {
		t.Fatal(err)
	}
	return app.(*Crawlers).Service()
}

// TestCrawlerMatcherForms: the Caddyfile form (arguments joined over lines of one named
// matcher), the CEL form and the JSON form match alike; categories of either catalogue and
// the status none work.
func TestCrawlerMatcherForms(t *testing.T) {
	caddyTesterWithGlobals(t, crawlersGlobals(t, t.TempDir()), `
:@PORT@ {
	@training {
		crawler ai-training
	}
	respond @training "training" 200
	@cel expression crawler('Googlebot', 'verified') || crawler('impostor')
	respond @cel "cel {http.crawler.status}" 200
	@none crawler none
	respond @none "nobody" 200
	@twitter crawler Twitterbot
	respond @twitter "twitter {http.crawler.id}" 200
	@user crawler claude-user unverifiable
	respond @user "user {http.crawler.name} {http.crawler.operator}" 200
	respond "other {http.crawler.id}" 200
}
`)
	for _, c := range []struct{ ua, client, body string }{
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", "203.0.113.9", "training"},
		{googlebotUA, "66.249.64.5", "cel verified"},
		{googlebotUA, "203.0.113.9", "cel impostor"},
		{"curl/8.5.0", "203.0.113.9", "other curl"},
		// A name two bots of the catalogue send stands for both.
		{"Twitterbot/1.0", "203.0.113.9", "twitter twitter-crawler"},
		{"facebookexternalhit/1.1 Facebot Twitterbot/1.0", "203.0.113.9", "twitter imessage-preview"},
		{"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "203.0.113.9", "nobody"},
		// A crawler only the AI catalogue knows, by its name.
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)", "203.0.113.9", "user Claude-User Anthropic"},
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-SearchBot/1.0)", "203.0.113.9", "other "},
	} {
		_, body := do(t, "GET", siteURL("/"), "User-Agent: "+c.ua, "X-Forwarded-For: "+c.client)
		if string(body) != c.body {
			t.Errorf("%s from %s: %q, want %q", c.ua, c.client, body, c.body)
		}
	}
}

// TestCrawlerConfigErrors: a wrong matcher argument, impostors status or crawlers option is
// refused at load, naming the line (Caddyfile) or the field, with a suggestion where one is
// close.
func TestCrawlerConfigErrors(t *testing.T) {
	site := func(body string) string {
		return globals() + expand(":@PORT@ {\n"+body+"\n}\n")
	}
	for _, c := range []struct{ cfg, want string }{
		{site("\t@g crawler Googlebott\n\trespond @g 1"), `did you mean "Googlebot"?, at Caddyfile:8`},
		{site("\t@g crawler verifed\n\trespond @g 1"), `did you mean`},
		{site("\t@g expression crawler('nobot-at-all')\n\trespond @g 1"), `"nobot-at-all": not a status`},
		{site("\trobots_txt {\n\t\tgroup GPTBot {\n\t\t\tdisallow /\n\t\t}\n\t\tenforce {\n\t\t\timpostors 302\n\t\t}\n\t}"), `impostors "302": the status of a blocked request is a client or server error, 400 to 599 (default 403), at Caddyfile:13`},
		{site("\trobots_txt {\n\t\tgroup GPTBot {\n\t\t\tdisallow /\n\t\t}\n\t\tenforce {\n\t\t\timpostors x\n\t\t}\n\t}"), `impostors "x": the status is a number`},
		{site("\trobots_txt {\n\t\tgroup GPTBot {\n\t\t\tdisallow /\n\t\t}\n\t\tenforce {\n\t\t\tblock\n\t\t}\n\t}"), `enforce's block takes impostors, accept_signature, crawl_delay (got "block")`},
		{strings.Replace(globals(), "}\n", "\tcrawlers {\n\t\tlists sometimes\n\t}\n}\n", 1) + expand(":@PORT@ {\n\trespond 1\n}\n"), `lists "sometimes": on, off or offline`},
		{strings.Replace(globals(), "}\n", "\tcrawlers {\n\t\trefrsh 1h\n\t}\n}\n", 1) + expand(":@PORT@ {\n\trespond 1\n}\n"), `unknown sub-directive "refrsh"`},
		{strings.Replace(globals(), "}\n", "\tcrawlers {\n\t\trefrsh 1h\n\t}\n}\n", 1) + expand(":@PORT@ {\n\trespond 1\n}\n"), `did you mean "refresh"?`},
		{strings.Replace(globals(), "}\n", "\tcrawlers {\n\t\trefresh soon\n\t}\n}\n", 1) + expand(":@PORT@ {\n\trespond 1\n}\n"), `refresh "soon"`},
		{strings.Replace(globals(), "}\n", "\tcrawlers {\n\t\tlist_file https://example.com/list.json /tmp/x\n\t}\n}\n", 1) + expand(":@PORT@ {\n\trespond 1\n}\n"), "names no list at this URL"},
		{strings.Replace(globals(), "}\n", "\tcrawlers {\n\t\tlists offline\n\t\treverse_dns off\n\t}\n}\n", 1) + expand(":@PORT@ {\n\trespond 1\n}\n"), "nothing would verify a crawler, at Caddyfile:7"},
		{strings.Replace(globals(), "}\n", "\tcrawlers {\n\t\trefresh 1s\n\t}\n}\n", 1) + expand(":@PORT@ {\n\trespond 1\n}\n"), `refresh "1s": at least 10m0s (the operators' servers, or the files, would be read in a loop), at Caddyfile:7`},
		{strings.Replace(globals(), "}\n", "\tcrawlers {\n\t\tlists off\n\t}\n\tcrawlers {\n\t\treverse_dns off\n\t}\n}\n", 1) + expand(":@PORT@ {\n\trespond 1\n}\n"), "crawlers: given twice"},
		{strings.Replace(globals(), "}\n", "\tcrawlers {\n\t\tlists off\n\t\tlist_file https://developers.google.com/static/search/apis/ipranges/googlebot.json /tmp/x\n\t}\n}\n", 1) + expand(":@PORT@ {\n\trespond 1\n}\n"), "off, and yet offline or local files given"},
		{strings.Replace(globals(), "}\n", "\tcrawlers {\n\t\tlist_file https://developers.google.com/static/search/apis/ipranges/googlebot.json /nonexistent/googlebot.json\n\t}\n}\n", 1) + expand(":@PORT@ {\n\trespond 1\n}\n"), "no such file or directory"},
		{site("\trobots_txt {\n\t\tgroup * {\n\t\t\tdisallow /admin/\n\t\t}\n\t\tenforce\n\t}"), "no group names a crawler"},
	} {
		status, msg := loadRaw(t, c.cfg, "text/caddyfile")
		if status == http.StatusOK || !strings.Contains(msg, c.want) {
			t.Errorf("config\n%s\nloaded with %d %q, want an error containing %q", c.cfg, status, msg, c.want)
		}
	}
	// The JSON form is checked at provision too.
	for bot, want := range map[string]string{
		"Googlebott": `bots[0] "Googlebott": not a bot of the catalogue; did you mean "Googlebot"?`,
		"impostor":   `bots[0] "impostor": not a bot of the catalogue but a status: put it in statuses`,
		"ai-search":  `bots[0] "ai-search": not a bot of the catalogue but a category: put it in categories`,
	} {
		status, msg := loadRaw(t, fmt.Sprintf(`{"admin": {"listen": "localhost:%d"}, "apps": {"http": {"servers": {"s": {"listen": [":%d"], "routes": [{"match": [{"crawler": {"bots": [%q]}}], "handle": [{"handler": "static_response"}]}]}}}}}`, adminPort, sitePort, bot), "application/json")
		if status == http.StatusOK || !strings.Contains(msg, want) {
			t.Errorf("JSON matcher with bot %q: %d %q, want %q", bot, status, msg, want)
		}
	}
}

// TestDocsVerificationRecipe serves the Caddyfile of docs/crawlers.md's verification section
// (its site block, with the test's globals: Google's list from a local file, loopback as the
// trusted proxy) and checks what it promises: impostors refused, the archive for Google's
// real crawlers only, the access log's crawler field, the backend reached otherwise.
func TestDocsVerificationRecipe(t *testing.T) {
	block := docBlock(t, "../docs/crawlers.md", "crawlers-verification", "caddyfile")
	site := block[strings.Index(block, "example.com {"):]
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "backend "+r.URL.Path)
	}))
	defer backend.Close()
	logFile := filepath.Join(t.TempDir(), "access.log")
	site = strings.NewReplacer("example.com {", ":@PORT@ {\n\tlog {\n\t\toutput file "+logFile+"\n\t}", "localhost:3000", strings.TrimPrefix(backend.URL, "http://")).Replace(site)
	caddyTesterWithGlobals(t, crawlersGlobals(t, t.TempDir()), site)
	for _, c := range []struct {
		ua, client, path string
		status           int
		body             string
	}{
		{googlebotUA, "203.0.113.9", "/page", 403, "Forbidden"},
		{googlebotUA, "66.249.64.5", "/archive/2020", 200, "backend /archive/2020"},
		{"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "203.0.113.9", "/archive/2020", 404, ""},
		{"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "203.0.113.9", "/page", 200, "backend /page"},
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", "203.0.113.9", "/page", 403, "robots.txt disallows"},
	} {
		resp, body := do(t, "GET", siteURL(c.path), "User-Agent: "+c.ua, "X-Forwarded-For: "+c.client)
		if resp.StatusCode != c.status || !strings.Contains(string(body), c.body) {
			t.Errorf("%s from %s %s: %d %q, want %d with %q", c.ua, c.client, c.path, resp.StatusCode, body, c.status, c.body)
		}
	}
	want := map[string]bool{"Googlebot verified": false, "Googlebot impostor": false, " none": false, "GPTBot pending": false}
	var logged []byte
	for range 50 {
		logged, _ = os.ReadFile(logFile)
		for _, line := range bytes.Split(logged, []byte("\n")) {
			var entry struct{ Crawler, CrawlerStatus string }
			var raw map[string]any
			if json.Unmarshal(line, &raw) == nil {
				entry.Crawler, _ = raw["crawler"].(string)
				entry.CrawlerStatus, _ = raw["crawler_status"].(string)
				if _, ok := want[entry.Crawler+" "+entry.CrawlerStatus]; ok {
					want[entry.Crawler+" "+entry.CrawlerStatus] = true
				}
			}
		}
		if !slices.Contains(slices.Collect(maps.Values(want)), false) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("the access log's crawler fields: found %v in\n%s", want, logged)
}

// fakeResolver answers reverse and forward lookups from maps (no network; forward by the
// name without its final dot), a name missing from them with a definite not-found.
type fakeResolver struct {
	ptr     map[string][]string
	forward map[string][]netip.Addr
}

func (f *fakeResolver) LookupAddr(_ context.Context, addr string) ([]string, error) {
	if names, ok := f.ptr[addr]; ok {
		return names, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: addr, IsNotFound: true}
}

func (f *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if ips, ok := f.forward[strings.TrimSuffix(host, ".")]; ok {
		return ips, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// TestCrawlerReverseDNSThroughCaddy: an address outside Google's list whose host name is
// Google's (forward-confirmed) is verified by reverse DNS, on its first request with
// dns_wait; an address without such a name is an impostor; a host name that does not resolve
// back is not believed.
func TestCrawlerReverseDNSThroughCaddy(t *testing.T) {
	useResolver(t, &fakeResolver{
		ptr: map[string][]string{
			"66.249.90.1":  {"crawl-66-249-90-1.googlebot.com."},
			"198.51.100.4": {"crawl-66-249-90-2.googlebot.com."}, // claims Google's name, resolves elsewhere
		},
		forward: map[string][]netip.Addr{
			"crawl-66-249-90-1.googlebot.com": {netip.MustParseAddr("66.249.90.1")},
			"crawl-66-249-90-2.googlebot.com": {netip.MustParseAddr("66.249.90.2")},
		},
	})
	g := strings.Replace(crawlersGlobals(t, t.TempDir()), "reverse_dns off", "dns_wait 5s", 1)
	caddyTesterWithGlobals(t, g, identitySites)
	for _, c := range []struct {
		client string
		status int
		body   string
	}{
		{"66.249.90.1", 200, "google-crawler|Googlebot|verified|reverse-dns|Google"},
		{"198.51.100.4", 410, "and its reverse DNS gives no host name of Google's that resolves back to it"},
		{"203.0.113.50", 410, "and its reverse DNS gives no host name of Google's that resolves back to it"},
		{"66.249.64.5", 200, "verified|ip-list"},
	} {
		resp, body := do(t, "GET", siteURL("/page"), "User-Agent: "+googlebotUA, "X-Forwarded-For: "+c.client)
		if resp.StatusCode != c.status || !strings.Contains(string(body), c.body) {
			t.Errorf("Googlebot from %s: %d %q, want %d with %q", c.client, resp.StatusCode, body, c.status, c.body)
		}
	}
}

// TestCrawlersValidateStartsNothing: a config that is only validated (caddy validate,
// caddy adapt) provisions the crawlers app but never starts it, so no list is fetched; a
// config that is run starts it.
func TestCrawlersValidateStartsNothing(t *testing.T) {
	cfg := fmt.Sprintf(`{"apps": {"crawlers": {"lists": {"dir": %q}}, "http": {"servers": {"s": {"listen": [":%d"], "routes": [{"match": [{"crawler": {"statuses": ["impostor"]}}], "handle": [{"handler": "static_response", "status_code": 403}]}]}}}}}`, t.TempDir(), sitePort)
	before := appStarts.Load()
	var c caddy.Config
	if err := json.Unmarshal([]byte(cfg), &c); err != nil {
		t.Fatal(err)
	}
	if err := caddy.Validate(&c); err != nil {
		t.Fatal(err)
	}
	if n := appStarts.Load() - before; n != 0 {
		t.Errorf("validating a config started the crawlers app %d times", n)
	}
	caddyTesterWithGlobals(t, crawlersGlobals(t, t.TempDir()), identitySites)
	if appStarts.Load() == before {
		t.Error("running a config did not start the crawlers app")
	}
}
