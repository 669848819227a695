package logreport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/policycheck"
)

// The generator makes synthetic traffic with its own ground truth: who each client is, which
// requests violate testdata/site.json and by which rule, written down here from the file's
// rules by hand, not by the code under test.

// client is a sender of requests.
type client struct {
	ua    string
	id    string // catalogue ID expected; "" for a browser
	token string // the group of site.json that names it; "" for none
	ip    string // its usual address
	fake  string // an address it is not at (an impostor's), "" when it cannot be told
	tool  bool   // a tool or HTTP library (Report.Tools), not a crawler
}

var clients = []client{
	{ua: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", id: "google-crawler", token: "Googlebot", ip: "66.249.66.1", fake: "203.0.113.9"},
	{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", id: "openai-crawler", token: "GPTBot", ip: "20.15.240.64"},
	{ua: "CCBot/2.0 (https://commoncrawl.org/faq/)", id: "ccbot-crawler", token: "CCBot", ip: "2600:1f28:365:80b0::1"},
	{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", id: "anthropic-crawler", token: "ClaudeBot", ip: "160.79.104.10"},
	{ua: "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", id: "bing-crawler", ip: "157.55.39.1"},
	{ua: `Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/) "quoted"`, id: "ahrefs-crawler", ip: "54.36.148.1"},
	{ua: "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0", ip: "198.51.100.7"},
	{ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1", ip: "2001:db8::42"},
	{ua: "", ip: "192.0.2.1"}, // no User-Agent
	{ua: "curl/8.5.0", id: "curl", ip: "198.51.100.20", tool: true},
	{ua: "python-requests/2.31.0", id: "python-requests", ip: "2001:db8::77", tool: true},
}

var paths = []string{"/", "/robots.txt", "/private/x", "/articles/a", "/articles/free/b", "/search?q=caddy", "/search/about", "/news/1", "/news/2?page=3", "/a%20b"}

// disallowing is the rule of site.json that disallows path for the group token, "" when
// none does: read off the file's groups by hand.
func disallowing(token, target string) string {
	path, _, _ := strings.Cut(target, "?")
	if path == "/robots.txt" {
		return ""
	}
	switch token {
	case "GPTBot", "CCBot":
		return "Disallow: /"
	case "Googlebot":
		if strings.HasPrefix(path, "/search") && !strings.HasPrefix(path, "/search/about") {
			return "Disallow: /search"
		}
	case "ClaudeBot":
		if strings.HasPrefix(path, "/articles/") && !strings.HasPrefix(path, "/articles/free/") {
			return "Disallow: /articles/"
		}
	}
	return ""
}

// request is a generated request.
type request struct {
	t      time.Time
	c      client
	ip     string
	method string
	target string // "" for a request line that is not one
	status int
	size   int64 // -1 for "-"
	host   string
	paid   bool // the response carried PAYMENT-RESPONSE (Caddy's log only)
}

// truth is what the report must say, computed from the requests.
type truth struct {
	requests, bytes, other, otherBytes, violations, impostors, impostorBytes, otherHosts int64
	unreadable                                                                           int64
	crawlers                                                                             map[string]*crawlerTruth // by catalogue ID
	tools                                                                                map[string]*crawlerTruth // the tools', by catalogue ID
	toolRequests                                                                         int64
	impostorRows                                                                         map[string]*impostorTruth // by catalogue ID claimed
	// crawlerTimes, impostorTimes and otherTimes are when the requests counted were sent.
	crawlerTimes, impostorTimes, otherTimes, toolTimes []time.Time
}

// impostorTruth is what the impostors claiming one crawler did.
type impostorTruth struct {
	requests, bytes, disallowed int64
}

type crawlerTruth struct {
	requests, bytes, robots, violations int64
	statuses                            map[string]int64
	viol                                map[[2]string]int64 // (path, rule) -> count
	first, last                         time.Time           // of robots.txt fetches
}

// generate makes n requests over span from start with its own random source.
func generate(seed uint64, n int, start time.Time, span time.Duration, withHosts bool) []request {
	rnd := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([]request, 0, n)
	for range n {
		c := clients[rnd.IntN(len(clients))]
		r := request{c: c, ip: c.ip, method: "GET", target: paths[rnd.IntN(len(paths))], status: []int{200, 200, 200, 301, 404, 403, 500}[rnd.IntN(7)], size: int64(rnd.IntN(50000)), host: "example.com"}
		r.t = start.Add(time.Duration(rnd.Int64N(int64(span)))).Truncate(time.Second)
		switch rnd.IntN(40) {
		case 0:
			r.target, r.method = "", "" // a request line that is not one
		case 1:
			r.size = -1
		case 2:
			if c.fake != "" {
				r.ip = c.fake
			}
		case 3:
			r.method = "HEAD"
		}
		if withHosts && rnd.IntN(20) == 0 {
			r.host = "other.example"
		}
		out = append(out, r)
	}
	return out
}

// expected computes the truth of reqs for a log format (common carries no User-Agent) with
// verification on or off, counting only host (all when "").
func expected(reqs []request, common, verify bool, host string, unreadable int64) truth {
	tr := truth{crawlers: map[string]*crawlerTruth{}, tools: map[string]*crawlerTruth{}, impostorRows: map[string]*impostorTruth{}, unreadable: unreadable}
	for _, r := range reqs {
		if host != "" && r.host != host {
			tr.otherHosts++
			continue
		}
		size := max(r.size, 0)
		tr.requests++
		tr.bytes += size
		c := r.c
		if common {
			c = client{}
		}
		if c.id == "" {
			tr.other++
			tr.otherBytes += size
			tr.otherTimes = append(tr.otherTimes, r.t)
			continue
		}
		if verify && c.fake != "" && r.ip == c.fake {
			// An impostor's request is not the crawler's: counted apart, per crawler claimed.
			tr.impostors++
			tr.impostorBytes += size
			tr.impostorTimes = append(tr.impostorTimes, r.t)
			it := tr.impostorRows[c.id]
			if it == nil {
				it = &impostorTruth{}
				tr.impostorRows[c.id] = it
			}
			it.requests++
			it.bytes += size
			if r.target != "" && disallowing(c.token, r.target) != "" {
				it.disallowed++
			}
			continue
		}
		rows := tr.crawlers
		if c.tool {
			rows = tr.tools
			tr.toolRequests++
			tr.toolTimes = append(tr.toolTimes, r.t)
		} else {
			tr.crawlerTimes = append(tr.crawlerTimes, r.t)
		}
		ct := rows[c.id]
		if ct == nil {
			ct = &crawlerTruth{statuses: map[string]int64{}, viol: map[[2]string]int64{}}
			rows[c.id] = ct
		}
		ct.requests++
		ct.bytes += size
		ct.statuses[fmt.Sprint(r.status)]++
		if r.target == "" {
			continue
		}
		if r.target == "/robots.txt" {
			ct.robots++
			if ct.first.IsZero() || r.t.Before(ct.first) {
				ct.first = r.t
			}
			if r.t.After(ct.last) {
				ct.last = r.t
			}
		}
		if rule := disallowing(c.token, r.target); rule != "" {
			path, _, _ := strings.Cut(r.target, "?")
			ct.viol[[2]string{path, rule}]++
			ct.violations++
			tr.violations++
		}
	}
	return tr
}

// Renderers: one line per request in each format.

func combinedLine(r request, common bool) string {
	reqLine := "-"
	if r.target != "" {
		reqLine = r.method + " " + r.target + " HTTP/1.1"
	}
	size := "-"
	if r.size >= 0 {
		size = fmt.Sprint(r.size)
	}
	line := fmt.Sprintf(`%s - - [%s] "%s" %d %s`, r.ip, r.t.In(time.FixedZone("", -7*3600)).Format("02/Jan/2006:15:04:05 -0700"), reqLine, r.status, size)
	if common {
		return line
	}
	ua := "-"
	if r.c.ua != "" {
		ua = strings.ReplaceAll(r.c.ua, `"`, `\"`)
	}
	return line + fmt.Sprintf(` "https://ref.example/?a=\"b\"" "%s"`, ua)
}

func caddyLine(r request, n int) string {
	type req struct {
		RemoteIP   string              `json:"remote_ip"`
		RemotePort string              `json:"remote_port"`
		ClientIP   string              `json:"client_ip"`
		Proto      string              `json:"proto"`
		Method     string              `json:"method"`
		Host       string              `json:"host"`
		URI        string              `json:"uri"`
		Headers    map[string][]string `json:"headers"`
	}
	h := map[string][]string{"Accept": {"*/*"}}
	if r.c.ua != "" {
		h["User-Agent"] = []string{r.c.ua}
	}
	method, uri := r.method, r.target
	if uri == "" {
		method, uri = "PRI", "*"
	}
	v := map[string]any{
		"level": "info", "logger": "http.log.access.log0", "msg": "handled request",
		"request":    req{RemoteIP: r.ip, RemotePort: "4711", ClientIP: r.ip, Proto: "HTTP/1.1", Method: method, Host: r.host, URI: uri, Headers: h},
		"bytes_read": 0, "user_id": "", "duration": 0.0012, "size": max(r.size, 0), "status": r.status,
		"resp_headers": map[string][]string{"Content-Type": {"text/html"}},
	}
	if r.paid {
		v["resp_headers"].(map[string][]string)["Payment-Response"] = []string{"eyJzdWNjZXNzIjp0cnVlfQ=="}
	}
	// The encoder's forms of "ts": float seconds (the default) and ISO 8601 / RFC 3339.
	switch n % 3 {
	case 0:
		v["ts"] = float64(r.t.UnixNano()) / 1e9
	case 1:
		v["ts"] = r.t.UTC().Format("2006-01-02T15:04:05.000Z0700")
	default:
		v["ts"] = r.t.Format(time.RFC3339Nano)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// malformed are lines that are no entry, mixed into every log.
var malformed = []string{
	"garbage",
	`1.2.3.4 - - [99/Foo/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "x"`,
	`1.2.3.4 - - [20/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" abc 1 "-" "x"`,
	`{"level":"info","ts":1700000000.5,"msg":"not an access log"}`,
	`{"request": {"uri": "/"`,
	"\x00\x01\x02\xff\xfe binary",
	`1.2.3.4 - - [20/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1 200 1 "-" "x`,
}

// render writes reqs in format with the malformed lines spread among them; it returns the
// log and how many malformed lines it holds.
func render(reqs []request, format string) ([]byte, int64) {
	var b bytes.Buffer
	bad := int64(0)
	for i, r := range reqs {
		if i%97 == 13 {
			b.WriteString(malformed[bad%int64(len(malformed))] + "\n")
			bad++
		}
		switch format {
		case "caddy":
			b.WriteString(caddyLine(r, i))
		case "common":
			b.WriteString(combinedLine(r, true))
		default:
			b.WriteString(combinedLine(r, false))
		}
		if i%5 == 0 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
	}
	return b.Bytes(), bad
}

// loadSite reads testdata/site.json; with verify, the site verifies crawlers from a local
// copy of Google's list (Googlebot at 66.249.66.0/24 only), offline, without reverse DNS.
func loadSite(t testing.TB, verify bool) *policycheck.Site {
	t.Helper()
	b, err := os.ReadFile("testdata/site.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := policy.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	site := policycheck.FromConfig(cfg, "example.com")
	if verify {
		list := filepath.Join(t.TempDir(), "googlebot.json")
		if err := os.WriteFile(list, []byte(`{"creationTime":"2026-11-20T00:00:00","prefixes":[{"ipv4Prefix":"66.249.66.0/24"},{"ipv6Prefix":"2001:4860:4801:10::/64"}]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		svc := identity.NewService(identity.ServiceOptions{NoDNS: true, Lists: identity.ListsOptions{Offline: true, ReadOnly: true,
			Local: map[string]string{"https://developers.google.com/static/search/apis/ipranges/googlebot.json": list}}})
		svc.Start(context.Background())
		t.Cleanup(svc.Stop)
		site.Crawlers = svc
	}
	return site
}

// ruleLines are the lines of the served robots.txt, by their text.
func ruleLines(t testing.TB, robots string) map[string]int {
	t.Helper()
	lines := map[string]int{}
	for i, l := range strings.Split(robots, "\n") {
		l = strings.TrimSpace(l)
		if _, dup := lines[l]; dup && strings.HasPrefix(l, "Disallow") {
			t.Fatalf("the served robots.txt has %q twice: the test cannot tell the lines apart", l)
		}
		lines[l] = i + 1
	}
	return lines
}

func sortedKeys[V any](m map[string]V) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}
