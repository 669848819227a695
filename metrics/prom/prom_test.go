package prom_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/metrics/prom"
	"github.com/sitepolicy/caddy-robots/nethttp"
)

const config = `{"robots_txt": {"groups": [
	{"user_agents": ["GPTBot"], "rules": [{"type": "disallow", "path": "/private/"}]},
	{"user_agents": ["ExampleBot"], "rules": [{"type": "disallow", "path": "/x"}]},
	{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}
]}}`

// site starts the middleware with counters over a loopback server (HTTP/2 when h2), and a
// second server exposing a registry holding their Collector.
func site(t *testing.T, h2 bool) (app, scrape string) {
	t.Helper()
	counters := metrics.NewCounters()
	mw, err := nethttp.NewFromJSON([]byte(config), nethttp.Options{Counters: counters})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })))
	if h2 {
		srv.EnableHTTP2 = true
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	reg := prometheus.NewPedanticRegistry()
	c := prom.NewCollector(counters)
	if err := prom.Register(reg, c); err != nil {
		t.Fatal(err)
	}
	if err := prom.Register(reg, c); err != nil {
		t.Fatalf("registering the same collector again: %v", err)
	}
	ms := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	t.Cleanup(ms.Close)
	return srv.URL, ms.URL
}

func get(t *testing.T, client *http.Client, url, ua string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("User-Agent", ua)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// families scrapes url and parses the text format.
func families(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// series maps each series of a family, its labels joined as name=value in label order, to
// its count.
func series(fams map[string]*dto.MetricFamily, name string) map[string]float64 {
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

// Scripted traffic through the middleware over loopback, scraped back: each count equals
// what the script sent, and browsers are not counted.
func TestScrapedCounts(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		t.Run(fmt.Sprint("h2=", h2), func(t *testing.T) {
			app, scrape := site(t, h2)
			client := http.DefaultClient
			if h2 {
				client = &http.Client{Transport: &http.Transport{TLSClientConfig: insecure(), ForceAttemptHTTP2: true}}
			}
			script := []struct {
				path, ua string
				n        int
			}{
				{"/private/a", "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)", 3},
				{"/public", "GPTBot/1.2", 2},
				{"/admin/", "Googlebot/2.1", 4},
				{"/x", "ExampleBot/1.0", 1},
				{"/private/a", "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0", 5},
				{"/robots.txt", "GPTBot/1.2", 2},
				{"/robots.txt", "Mozilla/5.0 Firefox/133.0", 1},
			}
			for _, s := range script {
				for range s.n {
					get(t, client, app+s.path, s.ua)
				}
			}
			fams := families(t, scrape)
			want := map[string]float64{
				"category=ai,crawler=openai-crawler,identity_status=unchecked,outcome=disallowed_served":            3,
				"category=ai,crawler=openai-crawler,identity_status=unchecked,outcome=allowed":                      2,
				"category=search-engine,crawler=google-crawler,identity_status=unchecked,outcome=disallowed_served": 4,
				"category=other,crawler=other,identity_status=unchecked,outcome=disallowed_served":                  1,
			}
			if got := series(fams, prom.RequestsName); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s:\n got %v\nwant %v", prom.RequestsName, got, want)
			}
			wantR := map[string]float64{"category=ai,crawler=openai-crawler": 2}
			if got := series(fams, prom.RobotsTxtName); fmt.Sprint(got) != fmt.Sprint(wantR) {
				t.Errorf("%s: got %v, want %v", prom.RobotsTxtName, got, wantR)
			}
		})
	}
}

// Thousands of random User-Agent headers (random bytes, catalogue names inside random text,
// made-up bot names) leave the label values bounded: every crawler is a catalogue name or
// "other", every category a catalogue category or "other"/"unknown", and there are no more
// series than the catalogue's crawlers times statuses and outcomes could give.
func TestLabelCardinality(t *testing.T) {
	app, scrape := site(t, false)
	bots := crawlers.Bots()
	ids := map[string]bool{"other": true}
	cats := map[string]bool{"other": true, "unknown": true, "ai": true}
	for _, b := range bots {
		ids[b.ID] = true
	}
	for _, c := range crawlers.All() {
		ids[c.Name] = true // the AI catalogue's names the bot catalogue does not know
	}
	for _, c := range crawlers.BotCategories() {
		cats[c] = true
	}
	// Full size under -race too (a few seconds): a test file built only without -race would
	// make ./test.sh compile this module's dependencies (client_golang, protobuf) a second
	// time, without it, on an empty build cache.
	n := 3000
	rnd := rand.New(rand.NewPCG(1, 2))
	paths := []string{"/", "/private/a", "/admin/x", "/x", "/robots.txt"}
	for i := range n {
		var ua string
		switch i % 3 {
		case 0:
			b := make([]byte, 1+rnd.IntN(60))
			for j := range b {
				b[j] = byte(0x20 + rnd.IntN(0x5f))
			}
			ua = string(b)
		case 1:
			bot := bots[rnd.IntN(len(bots))]
			if len(bot.Names) == 0 {
				continue
			}
			ua = fmt.Sprintf("Mozilla/5.0 (compatible; %s/%d.%d; +https://x%d.example)", bot.Names[rnd.IntN(len(bot.Names))], rnd.IntN(9), i, i)
		default:
			ua = fmt.Sprintf("RandomBot%d/1.0 ExampleBot-%d", i, i)
		}
		get(t, http.DefaultClient, app+paths[rnd.IntN(len(paths))], ua)
	}
	fams := families(t, scrape)
	total := 0
	for _, name := range []string{prom.RequestsName, prom.RobotsTxtName} {
		f := fams[name]
		if f == nil {
			t.Fatalf("%s not exported", name)
		}
		for _, m := range f.Metric {
			total++
			for _, l := range m.Label {
				v := l.GetValue()
				switch l.GetName() {
				case "crawler":
					if !ids[v] {
						t.Errorf("crawler label %q is not a catalogue name", v)
					}
				case "category":
					if !cats[v] {
						t.Errorf("category label %q", v)
					}
				case "identity_status":
					if v != "unchecked" {
						t.Errorf("identity_status %q without verification", v)
					}
				case "outcome":
					if v != "allowed" && v != "disallowed_served" {
						t.Errorf("outcome %q without enforcement", v)
					}
				}
			}
		}
	}
	// Without verification or enforcement: one status, two outcomes per crawler, and one
	// robots.txt series per crawler.
	if max := 3 * len(ids); total > max {
		t.Errorf("%d series, more than %d", total, max)
	}
	if total < 10 {
		t.Errorf("only %d series: the random traffic named few catalogue bots?", total)
	}
}
