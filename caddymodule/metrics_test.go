package caddymodule

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/metrics/prom"
)

// metricsSite counts and logs its crawlers; "*" keeps everyone out of /admin/.
const metricsSite = `:@PORT@ {
	robots_txt {
		metrics
		log_violations
		group {
			user_agent GPTBot
			disallow /private/
		}
		group {
			user_agent *
			disallow /admin/
		}
	}
	respond "ok"
}
`

// scrapeMetrics reads Caddy's metrics from its admin endpoint (the registry Caddy's own
// metrics are in), parsed with the Prometheus text parser.
func scrapeMetrics(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := client.Get(fmt.Sprintf("http://localhost:%d/metrics", adminPort))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: %d", resp.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// seriesOf maps each series of family name (labels as name=value, in label order) to its
// count.
func seriesOf(fams map[string]*dto.MetricFamily, name string) map[string]float64 {
	out := map[string]float64{}
	if f := fams[name]; f != nil {
		for _, m := range f.Metric {
			var ls []string
			for _, l := range m.Label {
				ls = append(ls, l.GetName()+"="+l.GetValue())
			}
			out[strings.Join(ls, ",")] = m.GetCounter().GetValue()
		}
	}
	return out
}

// delta is after less before, per series, without the series that did not change.
func delta(before, after map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// TestMetricsEndpoint: scripted traffic through a real Caddy, read back from Caddy's own
// /metrics beside its other metrics: every count is what the script sent (browsers are not
// counted); a reload of the same config loads (no duplicate registration) and keeps the
// counts; the violations are logged with the rule's line in the served file.
func TestMetricsEndpoint(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	extra := `
	log {
		output file "` + logFile + `"
	}
`
	caddyTesterWithGlobals(t, extra, metricsSite)
	before := scrapeMetrics(t)
	script := []struct {
		path, ua string
		n        int
	}{
		{"/private/a", "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)", 3},
		{"/public", "GPTBot/1.2", 2},
		{"/admin/", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", 4},
		{"/private/a", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", 5},
		{"/robots.txt", "GPTBot/1.2", 2},
		{"/robots.txt", "Mozilla/5.0 Firefox/133.0", 1},
	}
	send := func() {
		for _, s := range script {
			for range s.n {
				resp, _ := do(t, "GET", siteURL(s.path), "User-Agent: "+s.ua)
				wantStatus(t, resp, 200)
			}
		}
	}
	send()
	want := map[string]float64{
		"category=ai,crawler=openai-crawler,identity_status=unchecked,outcome=disallowed_served":            3,
		"category=ai,crawler=openai-crawler,identity_status=unchecked,outcome=allowed":                      2,
		"category=search-engine,crawler=google-crawler,identity_status=unchecked,outcome=disallowed_served": 4,
	}
	after := scrapeMetrics(t)
	if _, ok := after["go_goroutines"]; !ok {
		t.Error("Caddy's own metrics are not beside ours: another registry?")
	}
	if got := delta(seriesOf(before, prom.RequestsName), seriesOf(after, prom.RequestsName)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s:\n got %v\nwant %v", prom.RequestsName, got, want)
	}
	if got := delta(seriesOf(before, prom.RobotsTxtName), seriesOf(after, prom.RobotsTxtName)); fmt.Sprint(got) != fmt.Sprint(map[string]float64{"category=ai,crawler=openai-crawler": 2}) {
		t.Errorf("%s: %v", prom.RobotsTxtName, got)
	}

	// A reload: the same counters, registered with the new config's registry.
	caddyTesterWithGlobals(t, extra, metricsSite)
	send()
	again := scrapeMetrics(t)
	for k, v := range want {
		if got := seriesOf(again, prom.RequestsName)[k] - seriesOf(before, prom.RequestsName)[k]; got != 2*v {
			t.Errorf("after a reload, %s counted %v, want %v", k, got, 2*v)
		}
	}

	// The log: the first violations of each crawler, with the rule's line.
	_, robots := do(t, "GET", siteURL("/robots.txt"))
	lineOf := func(text string) int {
		for i, l := range strings.Split(string(robots), "\n") {
			if l == text {
				return i + 1
			}
		}
		t.Fatalf("%q not in %s", text, robots)
		return 0
	}
	gpt := logLines(logFile, "info", `"crawler":"openai-crawler"`)
	google := logLines(logFile, "info", `"crawler":"google-crawler"`)
	if len(gpt) != 6 || len(google) != 8 {
		t.Fatalf("%d and %d violation lines, want 6 and 8", len(gpt), len(google))
	}
	for _, c := range []struct {
		line, rule string
		n          int
	}{{gpt[0], "disallow: /private/", lineOf("Disallow: /private/")}, {google[0], "disallow: /admin/", lineOf("Disallow: /admin/")}} {
		for _, want := range []string{`"msg":"a crawler fetched a path robots.txt disallows for it"`, `"rule":"` + c.rule + `"`, fmt.Sprintf(`"line":%d,`, c.n), `"identity_status":"unchecked"`} {
			if !strings.Contains(c.line, want) {
				t.Errorf("log line lacks %s: %s", want, c.line)
			}
		}
	}
}

// TestMetricsCardinality: thousands of random User-Agent headers through a real Caddy leave
// every label value of our metrics a catalogue ID or category or a fixed word, and the
// number of series bounded by the catalogue.
func TestMetricsCardinality(t *testing.T) {
	caddyTesterWithGlobals(t, "", metricsSite)
	bots := crawlers.Bots()
	ids := map[string]bool{"other": true}
	for _, b := range bots {
		ids[b.ID] = true
	}
	for _, c := range crawlers.All() {
		ids[c.Name] = true // the AI catalogue's names the bot catalogue does not know
	}
	n := 3000
	if raceEnabled {
		n = 300
	}
	keepAlive := &http.Client{}
	rnd := rand.New(rand.NewPCG(3, 4))
	paths := []string{"/", "/private/a", "/admin/x", "/robots.txt"}
	for i := range n {
		var ua string
		switch i % 3 {
		case 0:
			b := make([]byte, 1+rnd.IntN(60))
			for j := range b {
				b[j] = byte(0x21 + rnd.IntN(0x5e))
			}
			ua = string(b)
		case 1:
			bot := bots[rnd.IntN(len(bots))]
			if len(bot.Names) == 0 {
				continue
			}
			ua = fmt.Sprintf("Mozilla/5.0 (compatible; %s/%d.%d)", bot.Names[rnd.IntN(len(bot.Names))], rnd.IntN(9), i)
		default:
			ua = fmt.Sprintf("MadeUpBot%d/1.0", i)
		}
		req, _ := http.NewRequest("GET", siteURL(paths[rnd.IntN(len(paths))]), nil)
		req.Header.Set("User-Agent", ua)
		resp, err := keepAlive.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	fams := scrapeMetrics(t)
	total := 0
	for _, name := range []string{prom.RequestsName, prom.RobotsTxtName} {
		f := fams[name]
		if f == nil {
			t.Fatalf("%s not exported", name)
		}
		for _, m := range f.Metric {
			total++
			for _, l := range m.Label {
				if l.GetName() == "crawler" && !ids[l.GetValue()] {
					t.Errorf("crawler label %q is not a catalogue name", l.GetValue())
				}
			}
		}
	}
	// Counts are the process's: other tests add to them, with one status and the outcomes a
	// config without enforcement gives (allowed, disallowed_served), plus robots.txt.
	if max := 3 * len(ids); total > max || total < 10 {
		t.Errorf("%d series, want 10 to %d", total, max)
	}
}

// The Caddyfile's metrics and log_violations fill the handler's fields, once each, without
// arguments; a mistake names its line.
func TestMetricsCaddyfile(t *testing.T) {
	var h RobotsTxt
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("robots_txt {\n\tmetrics\n\tlog_violations\n}")); err != nil {
		t.Fatal(err)
	}
	if !h.Metrics || !h.LogViolations {
		t.Errorf("metrics %v, log_violations %v", h.Metrics, h.LogViolations)
	}
	for in, want := range map[string]string{
		"robots_txt {\n\tmetrics\n\tmetrics\n}":                                                          "metrics given twice, at Testfile:3",
		"robots_txt {\n\tlog_violations on\n}":                                                           `log_violations takes no argument: write "log_violations" alone to turn it on, and leave it out for off, at Testfile:2`,
		"robots_txt {\n\tmetrics {\n\t\tx\n\t}\n}":                                                       "metrics takes no block",
		"robots_txt {\n\tlog_violations\n\tlog_violations\n}":                                            "log_violations given twice",
		"robots_txt {\n\tgroup GPTBot {\n\t\tcrawl_delay 2\n\t}\n\tenforce {\n\t\tcrawl_delay 2\n\t}\n}": "crawl_delay takes no argument",
		// No group that names a crawler has a delay: the field path and the line.
		"robots_txt {\n\tgroup GPTBot {\n\t\tdisallow /x\n\t}\n\tenforce {\n\t\tcrawl_delay\n\t}\n}": "Testfile:6",
	} {
		var h RobotsTxt
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}

// Crawl-delay in a real Caddy over loopback: a crawler asking again at once gets 429 with
// Retry-After in whole seconds (through the server's error handling when it has some),
// counted as rate_limited; browsers and a crawler named without a delay never get it.
func TestCrawlDelayCaddy(t *testing.T) {
	caddyTesterWithGlobals(t, "", `:@PORT@ {
	robots_txt {
		metrics
		group GPTBot {
			crawl_delay 5
			disallow /private/
		}
		group Googlebot {
			disallow /private/
		}
		enforce {
			crawl_delay
		}
	}
	respond "ok"
}
`)
	before := seriesOf(scrapeMetrics(t), prom.RequestsName)
	ua := "User-Agent: Mozilla/5.0 (compatible; GPTBot/1.2)"
	resp, _ := do(t, "GET", siteURL("/page"), ua)
	wantStatus(t, resp, 200)
	resp, _ = do(t, "GET", siteURL("/page"), ua)
	wantStatus(t, resp, http.StatusTooManyRequests)
	if n, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || n < 1 || n > 5 {
		t.Errorf("Retry-After %q, want 1 to 5 seconds", resp.Header.Get("Retry-After"))
	}
	for range 10 {
		for _, ua := range []string{"User-Agent: Mozilla/5.0 Firefox/133.0", "User-Agent: Googlebot/2.1"} {
			resp, _ := do(t, "GET", siteURL("/page"), ua)
			wantStatus(t, resp, 200)
		}
	}
	got := delta(before, seriesOf(scrapeMetrics(t), prom.RequestsName))
	want := map[string]float64{
		"category=ai,crawler=openai-crawler,identity_status=unchecked,outcome=allowed":            1,
		"category=ai,crawler=openai-crawler,identity_status=unchecked,outcome=rate_limited":       1,
		"category=search-engine,crawler=google-crawler,identity_status=unchecked,outcome=allowed": 10,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("counted %v, want %v", got, want)
	}
}

// docs/observability.md's example loads in a real Caddy and does what the page says of it:
// GPTBot is counted, and answered 429 when it asks again at once; the page's sample of
// /metrics parses and has the metrics' names and labels as Caddy serves them; and the README's
// table names each metric with its labels as served, and every outcome.
func TestREADMEMetrics(t *testing.T) {
	block := docBlock(t, "../docs/observability.md", "metrics-caddyfile", "caddyfile")
	// The backend answers HTML pages, so that GPTBot's page counts for its platform too.
	site := strings.NewReplacer("example.com {", ":@PORT@ {", "reverse_proxy localhost:3000", "header Content-Type text/html\n\trespond \"<p>ok</p>\"").Replace(block)
	caddyTesterWithGlobals(t, "", site)
	ua := "User-Agent: Mozilla/5.0 (compatible; GPTBot/1.2)"
	resp, _ := do(t, "GET", siteURL("/private/x"), ua)
	wantStatus(t, resp, http.StatusForbidden)
	resp, _ = do(t, "GET", siteURL("/page"), ua)
	wantStatus(t, resp, 200)
	resp, _ = do(t, "GET", siteURL("/page"), ua)
	wantStatus(t, resp, http.StatusTooManyRequests)
	resp, _ = do(t, "GET", siteURL("/admin/"), "User-Agent: Googlebot/2.1")
	wantStatus(t, resp, 200)
	do(t, "GET", siteURL("/robots.txt"), ua)
	served := scrapeMetrics(t)

	p := expfmt.NewTextParser(model.UTF8Validation)
	sample, err := p.TextToMetricFamilies(strings.NewReader(docBlock(t, "../docs/observability.md", "metrics-output", "text")))
	if err != nil {
		t.Fatal(err)
	}
	labels := func(f *dto.MetricFamily) string {
		var ls []string
		for _, l := range f.Metric[0].Label {
			ls = append(ls, l.GetName())
		}
		return strings.Join(ls, ",")
	}
	// The metrics this config serves: those of a fleet's store and of pay per crawl are
	// served only with a store or a price (TestStoreOutageThroughCaddy, TestPayThroughCaddy),
	// and need only a row in the README's table here.
	scenario := []string{prom.RequestsName, prom.RobotsTxtName, prom.CrawledHTMLName, prom.ReferredName}
	for _, name := range scenario {
		s, c := sample[name], served[name]
		if s == nil || c == nil {
			t.Fatalf("%s: in docs/observability.md %v, served %v", name, s != nil, c != nil)
		}
		if labels(s) != labels(c) {
			t.Errorf("%s: docs/observability.md's labels %s, served %s", name, labels(s), labels(c))
		}
	}
	if len(sample) != len(scenario) {
		t.Errorf("docs/observability.md's sample has %d metrics", len(sample))
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := func(name string) string {
		for _, line := range strings.Split(string(readme), "\n") {
			if strings.HasPrefix(line, "| `"+name+"` |") {
				return line
			}
		}
		t.Errorf("the README's table has no row for %s", name)
		return ""
	}
	for _, name := range prom.Names() {
		r := row(name)
		if !slices.Contains(scenario, name) {
			continue
		}
		for _, l := range strings.Split(labels(served[name]), ",") {
			if !strings.Contains(r, "`"+l+"`") {
				t.Errorf("the README's row for %s lacks the label %s: %s", name, l, r)
			}
		}
	}
	r := row(prom.RequestsName)
	for o := metrics.Allowed; o <= metrics.RateLimited; o++ {
		if !strings.Contains(r, "`"+o.String()+"`") {
			t.Errorf("the README's row for %s lacks the outcome %s: %s", prom.RequestsName, o, r)
		}
	}
}

// With the crawlers app configured, requests are counted under their identity status, not
// "unchecked".
func TestMetricsIdentityStatus(t *testing.T) {
	caddyTesterWithGlobals(t, "\tcrawlers {\n\t\tlists off\n\t\treverse_dns off\n\t}\n", metricsSite)
	before := seriesOf(scrapeMetrics(t), prom.RequestsName)
	resp, _ := do(t, "GET", siteURL("/page"), "User-Agent: Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
	wantStatus(t, resp, 200)
	got := delta(before, seriesOf(scrapeMetrics(t), prom.RequestsName))
	if len(got) != 1 {
		t.Fatalf("counted %v, want one series", got)
	}
	for k := range got {
		// Nothing can verify it (no lists, no reverse DNS): the app says pending.
		if k != "category=search-engine,crawler=google-crawler,identity_status=pending,outcome=allowed" {
			t.Errorf("counted %s", k)
		}
	}
}
