package caddymodule

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/logreport"
	"github.com/sitepolicy/caddy-robots/metrics/prom"
)

// referSite logs to a file (Caddy's JSON access log, with the responses' headers) and counts
// platforms in /metrics. /page* and /doc.xhtml are HTML pages; /feed (no extension) is JSON
// and /style.css CSS, which only the logged Content-Type tells apart; /missing is an HTML
// error page (no page: 404).
const referSite = `:@PORT@ {
	log {
		output file %s
	}
	robots_txt {
		metrics
	}
	header /page* Content-Type "text/html; charset=utf-8"
	header /doc.xhtml Content-Type application/xhtml+xml
	header /feed Content-Type application/json
	header /style.css Content-Type text/css
	header /missing Content-Type text/html
	respond /missing "<p>gone</p>" 404
	respond "<!doctype html><p>hello</p>"
}
`

// TestCrawlToReferReportMatchesMetrics sends generated traffic through a real Caddy —
// several platforms' crawlers, verified (Google's and OpenAI's lists, the client address a
// trusted proxy reports), unverified and impostors; crawlers and a tool that send a Referer;
// browsers referred by platforms' hosts and by hosts that only resemble them; HEAD requests,
// error pages and responses that are no HTML page — and runs "caddy robots report" on its
// JSON access log with the same Caddyfile: per platform, the report's HTML pages crawled
// (verified, unverified) and visits referred are the generator's, and are what /metrics
// counted live.
func TestCrawlToReferReportMatchesMetrics(t *testing.T) {
	dir := t.TempDir()
	google, err := filepath.Abs("../identity/testdata/googlebot.json") // 66.249.64.0/27 among others
	if err != nil {
		t.Fatal(err)
	}
	openai := filepath.Join(dir, "gptbot.json")
	if err := os.WriteFile(openai, []byte(`{"creationTime":"2026-11-20T00:00:00","prefixes":[{"ipv4Prefix":"20.15.240.64/28"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	g, _ := crawlers.BotByID("google-crawler")
	o, _ := crawlers.BotByID("openai-crawler")
	globals := fmt.Sprintf(`	crawlers {
		lists offline
		list_file %s %s
		list_file %s %s
		lists_dir %s
		reverse_dns off
	}
	servers {
		trusted_proxies static 127.0.0.1/8 ::1/128
	}
`, g.Verification.IPRanges[0].URL, google, o.Verification.IPRanges[0].URL, openai, filepath.Join(dir, "lists"))
	logFile := filepath.Join(dir, "access.log")
	site := fmt.Sprintf(referSite, logFile)
	caddyTesterWithGlobals(t, globals, site)

	type sender struct {
		ua, ip, platform string // platform: the catalogue's ID; "" for a browser, "-" for none
		verified         bool
		impostor         bool
	}
	const (
		googlebot = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
		gptbot    = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"
	)
	senders := []sender{
		{ua: googlebot, ip: "66.249.64.7", platform: "google", verified: true},
		{ua: googlebot, ip: "203.0.113.9", platform: "google", impostor: true},
		{ua: gptbot, ip: "20.15.240.70", platform: "openai", verified: true},
		{ua: gptbot, ip: "198.51.100.99", platform: "openai", impostor: true},
		{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", ip: "160.79.104.10", platform: "anthropic"},
		{ua: "CCBot/2.0 (https://commoncrawl.org/faq/)", ip: "2600:1f28:365:80b0::1", platform: "commoncrawl"},
		{ua: "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)", ip: "54.36.148.1", platform: "-"},
		{ua: "curl/8.5.0", ip: "198.51.100.20", platform: "-"},
		{ua: "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", ip: "198.51.100.7"},
		{ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1", ip: "2001:db8::42"},
	}
	referers := []struct{ ref, platform string }{
		{"", ""}, {"", ""},
		{"https://www.google.com/", "google"},
		{"https://www.google.fr/search?q=x", "google"},
		{"https://chatgpt.com/c/1", "openai"},
		{"https://claude.ai/chat/2", "anthropic"},
		{"https://notgoogle.com/", ""},
		{"https://google.com.evil.example/", ""},
		{"https://chatgpt.com.evil.example/", ""},
		{"https://example.com/previous.html", ""},
	}
	paths := []struct {
		path string
		html bool // answered 2xx with an HTML Content-Type
	}{{"/page", true}, {"/page/2", true}, {"/doc.xhtml", true}, {"/feed", false}, {"/style.css", false}, {"/missing", false}}
	n := 200
	if raceEnabled {
		n = 60
	}
	type counts struct{ verified, unverified, referrals int64 }
	want := map[string]*counts{}
	row := func(p string) *counts {
		if want[p] == nil {
			want[p] = &counts{}
		}
		return want[p]
	}
	before := scrapeMetrics(t)
	keepAlive := &http.Client{Timeout: 30 * time.Second}
	rnd := rand.New(rand.NewPCG(41, 7))
	for range n {
		s, rf, p := senders[rnd.IntN(len(senders))], referers[rnd.IntN(len(referers))], paths[rnd.IntN(len(paths))]
		method := "GET"
		if rnd.IntN(8) == 0 {
			method = "HEAD"
		}
		req, _ := http.NewRequest(method, siteURL(p.path), nil)
		req.Header.Set("User-Agent", s.ua)
		req.Header.Set("X-Forwarded-For", s.ip)
		if rf.ref != "" {
			req.Header.Set("Referer", rf.ref)
		}
		resp, err := keepAlive.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if !p.html || method != "GET" {
			continue
		}
		switch {
		case s.platform == "" && rf.platform != "":
			row(rf.platform).referrals++
		case s.platform == "" || s.platform == "-" || s.impostor:
		case s.verified:
			row(s.platform).verified++
		default:
			row(s.platform).unverified++
		}
	}
	after := scrapeMetrics(t)

	// Caddy writes a request's log entry after answering it: wait for all of them.
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(logFile)
		if strings.Count(string(b), "\n") >= n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Caddy's access log has %d lines, want %d", strings.Count(string(b), "\n"), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := os.WriteFile(filepath.Join(dir, "Caddyfile"), []byte(globalsWith(globals)+expand(site)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, _ := runCaddy(t, dir, "robots", "report", "--config", "Caddyfile", "--site", siteURL(""), "--format", "json", logFile)
	var rep logreport.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, errOut)
	}
	if rep.Totals.Requests != int64(n) {
		t.Fatalf("the report read %d requests, want %d\n%s", rep.Totals.Requests, n, errOut)
	}
	// The live counts, per platform: crawled by identity status, referred.
	live := map[string]*counts{}
	liveRow := func(p string) *counts {
		if live[p] == nil {
			live[p] = &counts{}
		}
		return live[p]
	}
	for k, v := range delta(seriesOf(before, prom.CrawledHTMLName), seriesOf(after, prom.CrawledHTMLName)) {
		l := labels(k)
		if l["identity_status"] == "verified" {
			liveRow(l["platform"]).verified += int64(v)
		} else {
			liveRow(l["platform"]).unverified += int64(v)
		}
	}
	for k, v := range delta(seriesOf(before, prom.ReferredName), seriesOf(after, prom.ReferredName)) {
		liveRow(labels(k)["platform"]).referrals += int64(v)
	}
	got := map[string]*counts{}
	for _, p := range rep.CrawlToRefer.Platforms {
		got[p.ID] = &counts{p.Verified, p.Unverified, p.Referrals}
	}
	for _, c := range []struct {
		what string
		m    map[string]*counts
	}{{"the report", got}, {"/metrics", live}} {
		if len(c.m) != len(want) {
			t.Errorf("%s has %d platforms, want %d", c.what, len(c.m), len(want))
		}
		for p, w := range want {
			if g := c.m[p]; g == nil || *g != *w {
				t.Errorf("%s: %s: %+v, want %+v", c.what, p, g, *w)
			}
		}
	}
	if want["google"] == nil || want["google"].verified == 0 || want["google"].referrals == 0 || want["openai"] == nil || want["anthropic"] == nil || want["anthropic"].unverified == 0 {
		t.Fatalf("the traffic tested too little: %v", want)
	}
}

// labels reads a series key of seriesOf ("a=x,b=y").
func labels(key string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Split(key, ",") {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out
}
