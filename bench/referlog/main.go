// Command referlog writes a week of a site's Caddy JSON access log (with the responses'
// Content-Type) in which each platform's crawlers fetch pages and its products refer
// readers at about the ratios published measurements report (a search engine near ten pages
// per visit, AI platforms hundreds to thousands, Common Crawl none back), with browsers'
// own visits, assets, impostors and tools: the log of docs/report.md's crawl-to-refer
// screenshot.
//
//	go run ./bench/referlog > refer.log
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"
)

// platform is a platform's crawler (its User-Agent and an address) and its hosts, with how
// many HTML pages the crawler fetches per hour and how many of them come back as a visit.
type platform struct {
	ua, ip  string
	referer string // "" for none
	perHour float64
	ratio   float64 // pages crawled per visit referred; 0: none come back
}

var platforms = []platform{
	// Google's address is in identity/testdata/googlebot.json: verified with that list.
	{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "66.249.64.7", "https://www.google.com/", 40, 9},
	{"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", "157.55.39.9", "https://www.bing.com/search?q=gazette", 12, 40},
	{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", "20.15.240.70", "https://chatgpt.com/", 30, 1200},
	{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", "160.79.104.10", "https://claude.ai/", 45, 8000},
	{"Mozilla/5.0 (compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)", "44.221.181.252", "https://www.perplexity.ai/search/x", 6, 150},
	{"CCBot/2.0 (https://commoncrawl.org/faq/)", "2600:1f28:365:80b0::1", "", 8, 0},
}

var browsers = []string{
	"Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1",
}

func main() {
	days := flag.Int("days", 7, "days of log")
	flag.Parse()
	rnd := rand.New(rand.NewPCG(3, 4))
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	start := time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)
	line := func(at time.Time, ip, ua, referer, uri, ctype string) {
		h := map[string][]string{"User-Agent": {ua}}
		if referer != "" {
			h["Referer"] = []string{referer}
		}
		b, _ := json.Marshal(map[string]any{"level": "info", "ts": float64(at.UnixNano()) / 1e9, "logger": "http.log.access.log0", "msg": "handled request",
			"request": map[string]any{"remote_ip": ip, "client_ip": ip, "proto": "HTTP/2.0", "method": "GET", "host": "example.com", "uri": uri, "headers": h},
			"status":  200, "size": 8000 + rnd.IntN(40000), "resp_headers": map[string][]string{"Content-Type": {ctype}}})
		fmt.Fprintf(w, "%s\n", b)
	}
	page := func() string { return fmt.Sprintf("/articles/%d", rnd.IntN(3000)) }
	for h := range *days * 24 {
		hour := start.Add(time.Duration(h) * time.Hour)
		// Readers come by day (UTC) more than by night.
		daytime := 0.4 + 0.6*float64((h%24+16)%24)/23
		at := func() time.Time { return hour.Add(time.Duration(rnd.Int64N(int64(time.Hour)))) }
		for _, p := range platforms {
			for range int(p.perHour * (0.6 + 0.8*rnd.Float64())) {
				line(at(), p.ip, p.ua, "", page(), "text/html; charset=utf-8")
				if rnd.IntN(6) == 0 {
					line(at(), p.ip, p.ua, "", "/static/site.css", "text/css")
				}
				if p.ratio > 0 && rnd.Float64() < 1/p.ratio*daytime*1.4 {
					ua := browsers[rnd.IntN(len(browsers))]
					ip := fmt.Sprintf("198.51.100.%d", 1+rnd.IntN(250))
					t := at()
					line(t, ip, ua, p.referer, page(), "text/html; charset=utf-8")
					line(t.Add(200*time.Millisecond), ip, ua, "https://example.com/articles/1", "/static/site.css", "text/css")
				}
			}
		}
		// Readers who came by themselves, and from sites that only look like a platform's.
		for range int(30 * daytime) {
			ref := []string{"", "", "https://example.com/", "https://notgoogle.com/", "https://chatgpt.com.evil.example/"}[rnd.IntN(5)]
			line(at(), fmt.Sprintf("203.0.113.%d", 1+rnd.IntN(250)), browsers[rnd.IntN(len(browsers))], ref, page(), "text/html; charset=utf-8")
		}
		// Impostors: Googlebot's User-Agent from an address outside Google's list.
		for range rnd.IntN(3) {
			line(at(), "192.0.2.66", platforms[0].ua, "https://www.google.com/", page(), "text/html; charset=utf-8")
		}
		if rnd.IntN(4) == 0 {
			line(at(), "198.51.100.20", "curl/8.5.0", "https://www.google.com/", page(), "text/html; charset=utf-8")
		}
	}
}
