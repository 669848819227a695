package caddymodule

import (
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"testing"

	"github.com/sitepolicy/caddy-robots/metrics/prom"
)

// platformSite counts; /page* and /admin/* are HTML pages, /img.png an image, anything else plain text
// (respond's default type). ExampleBot is a name only the file has.
const platformSite = `:@PORT@ {
	robots_txt {
		metrics
		group ExampleBot {
			disallow /admin/
		}
	}
	header /page* Content-Type "text/html; charset=utf-8"
	header /admin/* Content-Type text/html
	header /img.png Content-Type image/png
	respond "<!doctype html><p>hello</p>"
}
`

// TestPlatformMetricsCaddy: known traffic through a real Caddy (crawls by several
// platforms' crawlers, by crawlers of no platform, browsers referred by several platforms'
// hosts and by hosts that only resemble them, crawlers sending a Referer, HEAD requests,
// responses that are no HTML page) is what Caddy's /metrics shows in the crawled-pages and
// referred-visits counters; a platform that crawls has its referral series, 0 included.
func TestPlatformMetricsCaddy(t *testing.T) {
	caddyTesterWithGlobals(t, "", platformSite)
	agents := []struct{ ua, platform string }{
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", ""},
		{"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", ""},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15", ""},
		{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "google"},
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", "openai"},
		{"Mozilla/5.0 (compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)", "perplexity"},
		{"CCBot/2.0 (https://commoncrawl.org/faq/)", "commoncrawl"},
		{"Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)", "-"}, // a crawler of no platform
		{"ExampleBot/1.0", "-"},
	}
	referers := map[string]string{
		"":                                     "",
		"https://www.google.com/":              "google",
		"https://www.google.fr/search?q=x":     "google",
		"https://chatgpt.com/c/1":              "openai",
		"https://www.perplexity.ai/search/x":   "perplexity",
		"https://copilot.microsoft.com/chats":  "microsoft",
		"https://notgoogle.com/":               "",
		"https://google.com.evil.example/":     "",
		"https://chatgpt.com.evil.example/":    "",
		"https://www.microsoft.com/copilot":    "",
		"https://localhost/previous-page.html": "",
	}
	refs := slices.Sorted(maps.Keys(referers)) // sorted: the seeded traffic is the same each run
	paths := map[string]bool{"/page": true, "/page/2": true, "/img.png": false, "/other": false, "/admin/page": true}
	pathList := slices.Sorted(maps.Keys(paths))
	n := 240
	if raceEnabled {
		n = 80
	}
	before := scrapeMetrics(t)
	keepAlive := &http.Client{}
	rnd := rand.New(rand.NewPCG(37, 4))
	wantCrawled, wantReferred := map[string]float64{}, map[string]float64{}
	for i := range n {
		a, ref, path := agents[rnd.IntN(len(agents))], refs[rnd.IntN(len(refs))], pathList[rnd.IntN(len(pathList))]
		if i == 0 {
			a, ref, path = agents[6], "", "/page" // Common Crawl crawls at least once
		}
		method := "GET"
		if rnd.IntN(6) == 0 && i > 0 {
			method = "HEAD"
		}
		req, _ := http.NewRequest(method, siteURL(path), nil)
		req.Header.Set("User-Agent", a.ua)
		if ref != "" {
			req.Header.Set("Referer", ref)
		}
		resp, err := keepAlive.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s %s: %d", method, path, resp.StatusCode)
		}
		if method != "GET" || !paths[path] {
			continue
		}
		switch a.platform {
		case "":
			if p := referers[ref]; p != "" {
				wantReferred["platform="+p]++
			}
		case "-":
		default:
			wantCrawled["identity_status=unchecked,platform="+a.platform]++
		}
	}
	after := scrapeMetrics(t)
	if got := delta(seriesOf(before, prom.CrawledHTMLName), seriesOf(after, prom.CrawledHTMLName)); !maps.Equal(got, wantCrawled) {
		t.Errorf("%s:\n got %v\nwant %v", prom.CrawledHTMLName, got, wantCrawled)
	}
	referred := seriesOf(after, prom.ReferredName)
	if got := delta(seriesOf(before, prom.ReferredName), referred); !maps.Equal(got, wantReferred) {
		t.Errorf("%s:\n got %v\nwant %v", prom.ReferredName, got, wantReferred)
	}
	// Common Crawl crawls and refers no one: its series is there, at 0, so that its ratio is
	// infinite rather than missing.
	if n, ok := referred["platform=commoncrawl"]; !ok || n != 0 {
		t.Errorf("%s for commoncrawl: %v, %v; want a series at 0", prom.ReferredName, n, ok)
	}
	if len(wantReferred) < 2 || len(wantCrawled) < 3 {
		t.Fatalf("the traffic counted too little to test: %v %v", wantReferred, wantCrawled)
	}
}
