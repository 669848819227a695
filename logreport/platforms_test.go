package logreport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/logreport"
	"github.com/sitepolicy/caddy-robots/policycheck"
)

// The crawl-to-refer generator: clients whose platform, verification and kind (crawler,
// browser, tool) are written down here by hand, referrers that are a platform's host or only
// resemble one, and responses that are HTML or not, told as the report documents (the
// logged Content-Type, else the path). The truth is computed from those facts, not by the
// code under test.

// referClient is a sender of requests.
type referClient struct {
	ua       string
	platform string // the platform its crawler is of; "" for none (and for browsers and tools)
	crawler  string // its crawler's name, as Platform.Crawlers lists it
	browser  bool   // a browser: the visits it is referred on count
	ip       string // its usual address
	verified bool   // requests from ip are verified (the test gives the site its list)
	fake     string // an address verification disproves it at; "" when it cannot be told
}

var referClients = []referClient{
	{ua: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", platform: "Google", crawler: "Googlebot", ip: "66.249.66.7", verified: true, fake: "203.0.113.9"},
	{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", platform: "OpenAI", crawler: "GPTBot", ip: "20.15.240.70", verified: true, fake: "198.51.100.99"},
	{ua: "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", platform: "Microsoft", crawler: "bingbot", ip: "157.55.39.9", verified: true, fake: "192.0.2.200"},
	// Anthropic's crawler is verified by reverse DNS only, which a report never uses: its
	// pages are unverified, and none is an impostor's.
	{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", platform: "Anthropic", crawler: "ClaudeBot", ip: "160.79.104.10"},
	// OpenAI's ChatGPT-User, whose list the site lacks: unverified, beside verified GPTBot.
	{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ChatGPT-User/1.0; +https://openai.com/bot)", platform: "OpenAI", crawler: "ChatGPT-User", ip: "23.98.142.180"},
	// Common Crawl has no product that refers readers: its ratio is always ∞.
	{ua: "CCBot/2.0 (https://commoncrawl.org/faq/)", platform: "Common Crawl", crawler: "CCBot", ip: "2600:1f28:365:80b0::1"},
	{ua: "Mozilla/5.0 (compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)", platform: "Perplexity", crawler: "PerplexityBot", ip: "44.221.181.252"},
	{ua: "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)", ip: "54.36.148.1"},
	{ua: "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0", browser: true, ip: "198.51.100.7"},
	{ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1", browser: true, ip: "2001:db8::42"},
	{ua: "curl/8.5.0", ip: "198.51.100.20"}, // a tool with a Referer is no visit
}

// referers are Referer values with the platform whose product they are ("" for none): hosts
// of platforms, exactly, with "www.", in capitals, with a port or a query; and hosts that
// only resemble one (a longer name ending like it, the name as a subdomain of another, the
// name in the path or the query).
var referers = []struct{ ref, platform string }{
	{"https://www.google.com/", "Google"},
	{"https://google.com/search?q=caddy", "Google"},
	{"https://WWW.Google.COM:443/url?q=\"x\"", "Google"},
	{"https://www.bing.com/search?q=a", "Microsoft"},
	{"https://chatgpt.com/", "OpenAI"},
	{"https://claude.ai/chat/1", "Anthropic"},
	{"https://www.perplexity.ai/search/x", "Perplexity"},
	{"http://user@news.google.de./x", "Google"},
	{"https://notgoogle.com/", ""},
	{"https://google.com.evil.example/", ""},
	{"https://chatgpt.com.evil.example/x", ""},
	{"https://xclaude.ai/", ""},
	{"https://evil.example/?r=https://www.google.com/", ""},
	{"https://evil.example/www.google.com/", ""},
	{"https://ref.example/", ""},
	{"", ""},
	{"", ""},
}

// Paths the fallback reads as HTML pages and as not (a query is no extension). A page is
// only a GET's answered 2xx.
var (
	htmlPaths  = []string{"/", "/news/1", "/a/b.html", "/INDEX.HTM", "/about?x=1.png"}
	otherPaths = []string{"/style.css", "/img/x.png", "/robots.txt", "/feed.xml", "/app.js?v=1"}
)

// How a Caddy line records the response: its Content-Type, or none.
const (
	ctMatching = iota // a Content-Type that agrees with the path
	ctContrary        // one that does not: the Content-Type decides
	ctNone            // resp_headers without a Content-Type: not HTML
	ctUnlogged        // no resp_headers: the path decides
	ctTwo             // two values: the last valid one decides
	ctKinds
)

// referRequest is a generated request and what it is.
type referRequest struct {
	t           time.Time
	c           referClient
	ip          string
	target      string
	method      string
	referer     string
	refPlatform string
	status      int
	contentType []string // for a Caddy line: the Content-Type logged, when logged
	respHeaders bool     // for a Caddy line: whether resp_headers is logged
	html        bool     // its response is an HTML page, as the report must tell
	byType      bool     // and that is told by the logged Content-Type
}

// generateReferrals makes n requests over span from start; caddy says the log is Caddy's
// JSON (else Combined: the path tells HTML).
func generateReferrals(rnd *rand.Rand, n int, start time.Time, span time.Duration, caddy bool) []referRequest {
	htmlTypes := []string{"text/html; charset=utf-8", "text/html", "application/xhtml+xml", "TEXT/HTML;charset=UTF-8"}
	otherTypes := []string{"text/css", "image/png", "text/plain; charset=utf-8", "application/xml", "application/json"}
	out := make([]referRequest, 0, n)
	for range n {
		c := referClients[rnd.IntN(len(referClients))]
		rf := referers[rnd.IntN(len(referers))]
		r := referRequest{t: start.Add(time.Duration(rnd.Int64N(int64(span)))).Truncate(time.Second), c: c, ip: c.ip,
			referer: rf.ref, refPlatform: rf.platform, method: "GET", status: 200}
		// Only a GET answered 2xx can be a page.
		switch rnd.IntN(12) {
		case 0:
			r.method = "HEAD"
		case 1:
			r.method = "POST"
		case 2, 3:
			r.status = []int{301, 304, 404, 500}[rnd.IntN(4)]
		case 4:
			r.status = 204
		}
		if c.fake != "" && rnd.IntN(5) == 0 {
			r.ip = c.fake
		}
		pathHTML := rnd.IntN(2) == 0
		if pathHTML {
			r.target = htmlPaths[rnd.IntN(len(htmlPaths))]
		} else {
			r.target = otherPaths[rnd.IntN(len(otherPaths))]
		}
		html := pathHTML
		if caddy {
			r.respHeaders = true
			r.byType = true
			switch rnd.IntN(ctKinds) {
			case ctMatching:
				r.contentType = []string{pick(rnd, otherTypes)}
				if pathHTML {
					r.contentType = []string{pick(rnd, htmlTypes)}
				}
			case ctContrary:
				r.contentType, html = []string{pick(rnd, htmlTypes)}, true
				if pathHTML {
					r.contentType, html = []string{pick(rnd, otherTypes)}, false
				}
			case ctNone:
				html = false
			case ctUnlogged:
				r.respHeaders, r.byType = false, false
			case ctTwo:
				html = rnd.IntN(2) == 0
				if html {
					r.contentType = []string{pick(rnd, otherTypes), pick(rnd, htmlTypes)}
				} else {
					r.contentType = []string{pick(rnd, htmlTypes), pick(rnd, otherTypes)}
				}
			}
		}
		r.html = html && r.method == "GET" && r.status >= 200 && r.status <= 299
		out = append(out, r)
	}
	return out
}

func pick(rnd *rand.Rand, s []string) string { return s[rnd.IntN(len(s))] }

// referLine renders r as a Caddy JSON line or a Combined one.
func referLine(r referRequest, caddy bool) string {
	if !caddy {
		ref := "-"
		if r.referer != "" {
			ref = strings.ReplaceAll(r.referer, `"`, `\"`)
		}
		return fmt.Sprintf(`%s - - [%s] "%s %s HTTP/1.1" %d 512 "%s" "%s"`, r.ip, r.t.UTC().Format("02/Jan/2006:15:04:05 -0700"), r.method, r.target, r.status, ref, r.c.ua)
	}
	h := map[string][]string{"User-Agent": {r.c.ua}, "Accept": {"*/*"}}
	if r.referer != "" {
		h["Referer"] = []string{r.referer}
	}
	v := map[string]any{"level": "info", "ts": float64(r.t.UnixNano()) / 1e9, "logger": "http.log.access", "msg": "handled request",
		"request": map[string]any{"remote_ip": r.ip, "client_ip": r.ip, "proto": "HTTP/2.0", "method": r.method, "host": "example.com", "uri": r.target, "headers": h},
		"status":  r.status, "size": 512}
	if r.respHeaders {
		rh := map[string][]string{"Server": {"Caddy"}}
		if r.contentType != nil {
			rh["Content-Type"] = r.contentType
		}
		v["resp_headers"] = rh
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// platformTruth is what the report must say of one platform.
type platformTruth struct {
	verified, unverified, referrals int64
	crawlers                        map[string]bool
	// times of its crawled pages (verified or not) and referred visits.
	verifiedAt, unverifiedAt, referredAt []time.Time
}

type referTruth struct {
	platforms      map[string]*platformTruth
	byType, byPath int64
}

// referExpected computes the section's truth of reqs from the generator's facts.
func referExpected(reqs []referRequest) referTruth {
	tr := referTruth{platforms: map[string]*platformTruth{}}
	row := func(p string) *platformTruth {
		if tr.platforms[p] == nil {
			tr.platforms[p] = &platformTruth{crawlers: map[string]bool{}}
		}
		return tr.platforms[p]
	}
	classify := func(r referRequest) {
		if r.byType {
			tr.byType++
		} else {
			tr.byPath++
		}
	}
	for _, r := range reqs {
		impostor := r.c.fake != "" && r.ip == r.c.fake
		switch {
		case r.c.platform != "" && !impostor:
			classify(r)
			if !r.html {
				continue
			}
			p := row(r.c.platform)
			p.crawlers[r.c.crawler] = true
			if r.c.verified {
				p.verified++
				p.verifiedAt = append(p.verifiedAt, r.t)
			} else {
				p.unverified++
				p.unverifiedAt = append(p.unverifiedAt, r.t)
			}
		case r.c.browser && r.refPlatform != "":
			classify(r)
			if r.html {
				p := row(r.refPlatform)
				p.referrals++
				p.referredAt = append(p.referredAt, r.t)
			}
		}
	}
	return tr
}

// referSite is the site of testdata/site.json verifying Google's, OpenAI's and Bing's
// crawlers from local copies of their lists, offline, without reverse DNS.
func referSite(t testing.TB) *policycheck.Site {
	site := loadSite(t, false)
	dir := t.TempDir()
	local := map[string]string{}
	for url, prefix := range map[string]string{
		"https://developers.google.com/static/search/apis/ipranges/googlebot.json": "66.249.66.0/24",
		"https://openai.com/gptbot.json":                                           "20.15.240.64/28",
		"https://www.bing.com/toolbox/bingbot.json":                                "157.55.39.0/24",
	} {
		f := filepath.Join(dir, fmt.Sprintf("%d.json", len(local)))
		if err := os.WriteFile(f, []byte(`{"creationTime":"2026-11-20T00:00:00","prefixes":[{"ipv4Prefix":"`+prefix+`"}]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		local[url] = f
	}
	svc := identity.NewService(identity.ServiceOptions{NoDNS: true, Lists: identity.ListsOptions{Offline: true, ReadOnly: true, Local: local}})
	svc.Start(context.Background())
	t.Cleanup(svc.Stop)
	site.Crawlers = svc
	return site
}

// TestCrawlToReferAgainstTruth generates logs (Caddy's JSON and Combined, in turn) of known
// crawls and referrals per platform — several operators, verified, unverified and impostor
// crawlers, crawlers and tools that send a Referer, referrers that only resemble a
// platform's host, responses that are no HTML page by their Content-Type or their path —
// and checks that the JSON, the text and the HTML page each say the generated truth, over
// the whole log and per bucket of the timeline.
func TestCrawlToReferAgainstTruth(t *testing.T) {
	rounds, n := 20, 600
	if raceEnabled {
		rounds = 3
	}
	rp, err := policycheck.NewReplay(referSite(t), "https://example.com")
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	start := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	for round := range rounds {
		rnd := rand.New(rand.NewPCG(uint64(round), 37))
		caddy := round%2 == 0
		span := time.Duration(1+rnd.IntN(96)) * time.Hour
		reqs := generateReferrals(rnd, 1+rnd.IntN(n), start, span, caddy)
		var log bytes.Buffer
		for _, r := range reqs {
			log.WriteString(referLine(r, caddy) + "\n")
		}
		b := logreport.NewBuilder(rp, logreport.Options{})
		if err := b.ReadLog("access.log", &log); err != nil {
			t.Fatal(err)
		}
		rep := b.Report()
		tr := referExpected(reqs)
		var js, txt, page bytes.Buffer
		if err := rep.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		if err := rep.WriteText(&txt); err != nil {
			t.Fatal(err)
		}
		if err := rep.WriteHTML(&page); err != nil {
			t.Fatal(err)
		}
		var got logreport.Report
		if err := json.Unmarshal(js.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		checkReferJSON(t, &got, tr)
		checkReferRows(t, "text", textReferRows(t, txt.String()), tr)
		checkReferRows(t, "HTML", htmlReferRows(t, page.Bytes()), tr)
		checkHTMLBy(t, txt.String(), page.Bytes(), tr)
		if t.Failed() {
			t.Fatalf("round %d (caddy %v, %d requests):\n%s", round, caddy, len(reqs), txt.String())
		}
	}
}

// checkReferJSON checks the JSON's section: the counts, the ratio, the crawlers, and the
// timeline in the report's buckets.
func checkReferJSON(t *testing.T, rep *logreport.Report, tr referTruth) {
	t.Helper()
	c := rep.CrawlToRefer
	if c.HTMLBy.ContentType != tr.byType || c.HTMLBy.Path != tr.byPath {
		t.Errorf("JSON html_by %+v, want content_type %d, path %d", c.HTMLBy, tr.byType, tr.byPath)
	}
	if len(c.Platforms) != len(tr.platforms) {
		t.Errorf("JSON: %d platforms, want %d", len(c.Platforms), len(tr.platforms))
	}
	tl := rep.Timeline
	for i, p := range c.Platforms {
		want := tr.platforms[p.Name]
		if want == nil {
			t.Errorf("JSON: platform %q, not in the traffic", p.Name)
			continue
		}
		if i > 0 && c.Platforms[i-1].Verified+c.Platforms[i-1].Unverified < p.Verified+p.Unverified {
			t.Errorf("JSON: platform %q after one with fewer pages crawled", p.Name)
		}
		if p.Verified != want.verified || p.Unverified != want.unverified || p.Referrals != want.referrals {
			t.Errorf("JSON %s: verified %d unverified %d referrals %d, want %d %d %d", p.Name, p.Verified, p.Unverified, p.Referrals, want.verified, want.unverified, want.referrals)
		}
		wantRatio(t, "JSON "+p.Name, p.Ratio, want.verified+want.unverified, want.referrals)
		if len(p.Crawlers) != len(want.crawlers) {
			t.Errorf("JSON %s: crawlers %v, want %v", p.Name, p.Crawlers, want.crawlers)
		}
		for _, name := range p.Crawlers {
			if !want.crawlers[name] {
				t.Errorf("JSON %s: crawler %q, want %v", p.Name, name, want.crawlers)
			}
		}
		pt := p.Timeline
		for _, s := range []struct {
			what  string
			got   []int64
			times []time.Time
		}{{"verified", pt.Verified, want.verifiedAt}, {"unverified", pt.Unverified, want.unverifiedAt}, {"referrals", pt.Referrals, want.referredAt}} {
			if len(s.got) != len(tl.Crawlers) {
				t.Fatalf("JSON %s: %s timeline of %d buckets, the report's has %d", p.Name, s.what, len(s.got), len(tl.Crawlers))
			}
			wantB := make([]int64, len(s.got))
			for _, at := range s.times {
				i := (at.Unix() - tl.Start.Unix()) / tl.BucketSeconds
				if at.Before(tl.Start) || i >= int64(len(wantB)) {
					t.Fatalf("JSON %s: a request at %v is outside the timeline", p.Name, at)
				}
				wantB[i]++
			}
			if fmt.Sprint(s.got) != fmt.Sprint(wantB) {
				t.Errorf("JSON %s: %s per bucket\n got %v\nwant %v", p.Name, s.what, s.got, wantB)
			}
		}
		for i := range pt.Ratio {
			wantRatio(t, fmt.Sprintf("JSON %s bucket %d", p.Name, i), pt.Ratio[i], pt.Verified[i]+pt.Unverified[i], pt.Referrals[i])
		}
	}
}

// wantRatio checks a ratio against crawls/referrals: null without referrals.
func wantRatio(t *testing.T, what string, got *float64, crawls, referrals int64) {
	t.Helper()
	switch {
	case referrals == 0 && got != nil:
		t.Errorf("%s: ratio %v without referrals, want null", what, *got)
	case referrals > 0 && got == nil:
		t.Errorf("%s: ratio null, want %d/%d", what, crawls, referrals)
	case referrals > 0 && math.Abs(*got-float64(crawls)/float64(referrals)) > 1e-9:
		t.Errorf("%s: ratio %v, want %d/%d", what, *got, crawls, referrals)
	}
}

// referRow is a platform's row as the text or the page shows it.
type referRow struct {
	name                                     string
	crawled, verified, unverified, referrals int64
	ratio                                    string
}

// checkReferRows checks the rows of an output against the truth: counts exact, the ratio
// "∞" without referrals, else the ratio rounded as shown (to 0.1, or to 1 from 100 on).
func checkReferRows(t *testing.T, what string, rows []referRow, tr referTruth) {
	t.Helper()
	if len(rows) != len(tr.platforms) {
		t.Errorf("%s: %d platform rows, want %d: %+v", what, len(rows), len(tr.platforms), rows)
	}
	for _, r := range rows {
		want := tr.platforms[r.name]
		if want == nil {
			t.Errorf("%s: platform %q, not in the traffic", what, r.name)
			continue
		}
		if r.crawled != want.verified+want.unverified || r.verified != want.verified || r.unverified != want.unverified || r.referrals != want.referrals {
			t.Errorf("%s %s: crawled %d verified %d unverified %d referred %d, want %d %d %d %d", what, r.name, r.crawled, r.verified, r.unverified, r.referrals,
				want.verified+want.unverified, want.verified, want.unverified, want.referrals)
		}
		if want.referrals == 0 {
			if !strings.HasPrefix(r.ratio, "∞") {
				t.Errorf("%s %s: ratio %q without referrals, want ∞", what, r.name, r.ratio)
			}
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSuffix(r.ratio, ":1"), 64)
		exact := float64(want.verified+want.unverified) / float64(want.referrals)
		if err != nil || math.Abs(v-exact) > 0.5 || (exact < 100 && math.Abs(v-exact) > 0.05+1e-9) {
			t.Errorf("%s %s: ratio %q, want %.3f:1", what, r.name, r.ratio, exact)
		}
	}
}

var tableGap = regexp.MustCompile(`\s{2,}`)

// textReferRows reads the crawl-to-refer table of the text output.
func textReferRows(t *testing.T, out string) []referRow {
	t.Helper()
	lines := strings.Split(out, "\n")
	var rows []referRow
	for i, l := range lines {
		if !strings.HasPrefix(l, "Crawl-to-refer") {
			continue
		}
		if !strings.HasPrefix(lines[i+1], "PLATFORM") {
			t.Fatalf("text: no header under %q", l)
		}
		for _, l := range lines[i+2:] {
			if strings.TrimSpace(l) == "" {
				break
			}
			f := tableGap.Split(l, -1)
			if len(f) < 7 {
				t.Fatalf("text: row %q", l)
			}
			n := func(s string) int64 {
				v, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					t.Fatalf("text: %q in row %q is no number", s, l)
				}
				return v
			}
			rows = append(rows, referRow{name: f[0], crawled: n(f[1]), verified: n(f[2]), unverified: n(f[3]), referrals: n(f[4]), ratio: f[5]})
		}
	}
	return rows
}

// htmlReferRows reads the platforms' table of the page, parsed as HTML.
func htmlReferRows(t *testing.T, page []byte) []referRow {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var rows []referRow
	for _, tr := range rowsOf(byIDIn(doc, "platforms")) {
		r := referRow{}
		for _, td := range cells(tr) {
			switch attr(td, "data-k") {
			case "name":
				r.name = text(td)
			case "crawled":
				r.crawled = number(t, td)
			case "verified":
				r.verified = number(t, td)
			case "unverified":
				r.unverified = number(t, td)
			case "referrals":
				r.referrals = number(t, td)
			case "ratio":
				r.ratio = text(td)
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// checkHTMLBy checks that the text and the page say how HTML was told, each way used.
func checkHTMLBy(t *testing.T, txt string, page []byte, tr referTruth) {
	t.Helper()
	if len(tr.platforms) == 0 {
		return
	}
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	shown := text(byIDIn(doc, "crawl-to-refer-panel"))
	for _, out := range []struct{ what, s string }{{"text", txt}, {"HTML", shown}} {
		if (tr.byType > 0) != strings.Contains(out.s, "by the logged Content-Type") {
			t.Errorf("%s does not say it told HTML by the Content-Type (%d responses)", out.what, tr.byType)
		}
		if (tr.byPath > 0) != strings.Contains(out.s, "by path") {
			t.Errorf("%s does not say whether it told HTML by the path (%d responses)", out.what, tr.byPath)
		}
	}
}

func byIDIn(n *html.Node, id string) *html.Node {
	if n.Type == html.ElementNode && attr(n, "id") == id {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := byIDIn(c, id); f != nil {
			return f
		}
	}
	return nil
}

// referCharts is how many SVG charts the crawl-to-refer panel has: the ratios' and one per
// platform's row.
func referCharts(rep *logreport.Report) int {
	if len(rep.CrawlToRefer.Platforms) == 0 {
		return 0
	}
	return 1 + len(rep.CrawlToRefer.Platforms)
}

// checkCrawlToReferPage checks the page's crawl-to-refer table against the JSON: a row per
// platform, in order, with its numbers.
func checkCrawlToReferPage(t *testing.T, byID map[string]*html.Node, rep *logreport.Report) {
	t.Helper()
	ps := rep.CrawlToRefer.Platforms
	rows := rowsOf(byID["platforms"])
	if len(rows) != len(ps) {
		t.Fatalf("platforms table has %d rows, JSON %d", len(rows), len(ps))
	}
	for i, tr := range rows {
		p := ps[i]
		want := map[string]int64{"crawled": p.Verified + p.Unverified, "verified": p.Verified, "unverified": p.Unverified, "referrals": p.Referrals}
		for _, td := range cells(tr) {
			switch k := attr(td, "data-k"); k {
			case "name":
				if text(td) != escaped(p.Name) {
					t.Errorf("platform row %d: %q, JSON %q", i, text(td), p.Name)
				}
			case "ratio":
				if (p.Ratio == nil) != strings.HasPrefix(text(td), "∞") {
					t.Errorf("platform %s: ratio %q, JSON %v", p.Name, text(td), p.Ratio)
				}
			default:
				if got := number(t, td); got != want[k] {
					t.Errorf("platform %s: %s is %d on the page, %d in the JSON", p.Name, k, got, want[k])
				}
			}
		}
	}
}

// TestParseReferer: a Combined line's Referer is read with its escapes undone (as the
// User-Agent is), "-" is none, a Common line has none, and Caddy's is its header's value
// (none when it has several, which name no one page).
func TestParseReferer(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`1.2.3.4 - - [20/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 1 "https://a.example/?q=\"x\"\\y\xC3\xA9" "ua"`, `https://a.example/?q="x"\y` + "\xC3\xA9"},
		{`1.2.3.4 - - [20/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 1 "https://www.google.com\x2Fx" "ua"`, "https://www.google.com/x"},
		{`1.2.3.4 - - [20/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "ua"`, ""},
		{`1.2.3.4 - - [20/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 1`, ""},
		{`{"ts":1763632800,"request":{"method":"GET","uri":"/","headers":{"Referer":["https://chatgpt.com/\"x\""]}},"status":200}`, `https://chatgpt.com/"x"`},
		{`{"ts":1763632800,"request":{"method":"GET","uri":"/","headers":{"Referer":["https://chatgpt.com/","https://claude.ai/"]}},"status":200}`, ""},
	} {
		var e logreport.Entry
		if _, err := logreport.Parse([]byte(c.line), &e); err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		if got := string(e.Referer()); got != c.want {
			t.Errorf("%s: Referer %q, want %q", c.line, got, c.want)
		}
	}
}
