package caddymodule

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/sitepolicy/caddy-robots/metrics/prom"
)

// TestStoreOptionErrorsNameTheLine: every problem of the crawlers option's store is refused
// when the Caddyfile is adapted, at the line that wrote it, saying what is wrong.
func TestStoreOptionErrorsNameTheLine(t *testing.T) {
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o644); err != nil {
		t.Fatal(err)
	}
	store := func(lines ...string) string {
		return "\tcrawlers {\n\t\tstore redis {\n\t\t\t" + strings.Join(lines, "\n\t\t\t") + "\n\t\t}\n\t}\n"
	}
	for _, c := range []crawlersOptionCase{
		{"no kind", "\tcrawlers {\n\t\tstore # <-\n\t}\n", "", []string{"store takes the kind of store, redis"}},
		{"another kind", "\tcrawlers {\n\t\tstore memcached { # <-\n\t\t}\n\t}\n", "", []string{"store takes the kind of store, redis"}},
		{"twice", "\tcrawlers {\n\t\tstore redis {\n\t\t}\n\t\tstore redis { # <-\n\t\t}\n\t}\n", "", []string{"store given twice"}},
		{"unknown sub-directive", store("adress 127.0.0.1:6379 # <-"), "", []string{`unknown sub-directive "adress"`, `did you mean "address"?`}},
		{"address without a port", store("address localhost # <-"), "", []string{`address "localhost": want host:port`}},
		{"address twice the arguments", store("address a:1 b:2 # <-"), "", []string{"address takes one argument"}},
		{"db not a number", store("db one # <-"), "", []string{`db "one": a database number`}},
		{"timeout not a duration", store("address 127.0.0.1:6379", "timeout soon # <-"), "", []string{`timeout "soon": a duration`}},
		{"backoff zero", store("backoff 0s # <-"), "", []string{`backoff "0s": a duration`}},
		{"tls with an argument", store("tls yes # <-"), "", []string{"tls takes no argument"}},
		{"tls unknown sub-directive", store("tls {", "\tca_fil x # <-", "}"), "", []string{`unknown sub-directive "ca_fil"`, `did you mean "ca_file"?`}},
		{"tls certificate without its key", store("tls {", "\tcert_file /x.pem # <-", "}"), "", []string{"a client certificate needs both cert_file and key_file"}},
		{"tls CA file not PEM", store("tls {", "\tca_file "+notPEM+" # <-", "}"), "", []string{notPEM, "no PEM certificate"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, line := crawlersCaddyfile(t, c)
			_, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cfg), map[string]any{"filename": "Caddyfile"})
			if err == nil {
				t.Fatalf("adapted:\n%s", cfg)
			}
			for _, w := range append(c.want, fmt.Sprintf("Caddyfile:%d", line)) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestStoreOptionJSON: the Caddyfile's store adapts to the crawlers app's JSON, every field
// at its redisstore.Options name, a placeholder kept for Provision.
func TestStoreOptionJSON(t *testing.T) {
	cfg := globalsWith(`	crawlers {
		store redis {
			address 10.0.0.5:6380
			username caddy
			password {env.REDIS_PASSWORD}
			db 2
			tls {
				server_name redis.internal
			}
			key_prefix shop:
			dial_timeout 2s
			timeout 50ms
			backoff 3s
		}
	}
`) + expand(":@PORT@ {\n\trespond 1\n}\n")
	adapted, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cfg), map[string]any{"filename": "Caddyfile"})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Apps struct {
			Crawlers struct {
				Store json.RawMessage `json:"store"`
			} `json:"crawlers"`
		} `json:"apps"`
	}
	if err := json.Unmarshal(adapted, &got); err != nil {
		t.Fatal(err)
	}
	want := `{"redis":{"address":"10.0.0.5:6380","username":"caddy","password":"{env.REDIS_PASSWORD}","db":2,"tls":{"enabled":true,"server_name":"redis.internal"},"key_prefix":"shop:","dial_timeout":"2s","timeout":"50ms","backoff":"3s"}}`
	if string(got.Apps.Crawlers.Store) != want {
		t.Errorf("adapted store\n%s\nwant\n%s", got.Apps.Crawlers.Store, want)
	}
}

// TestStoreJSONErrorsNameThePath: the store's problems in Caddy's JSON config are refused when
// it is loaded, at the field's path under crawlers; a placeholder is replaced first ({env.*}),
// so the value refused is the replaced one, and a placeholder that is unknown when the config
// loads is refused naming the field.
func TestStoreJSONErrorsNameThePath(t *testing.T) {
	t.Setenv("ROBOTS_TEST_STORE_ADDRESS", "redis-without-port")
	for _, c := range []struct{ app, want string }{
		{`{"store":{}}`, "crawlers.store: no store named: give redis"},
		{`{"store":{"redis":{"address":"localhost"}}}`, `crawlers.store.redis.address "localhost": want host:port`},
		{`{"store":{"redis":{"timeout":-1}}}`, `crawlers.store.redis.timeout "-1ns": a duration must not be negative`},
		{`{"store":{"redis":{"address":"{env.ROBOTS_TEST_STORE_ADDRESS}"}}}`, `crawlers.store.redis.address "redis-without-port": want host:port`},
		{`{"store":{"redis":{"password":"{http.request.host}"}}}`, `crawlers.store.redis.password "{http.request.host}"`},
	} {
		cfg := fmt.Sprintf(`{"admin": {"listen": "localhost:%d"}, "apps": {"crawlers": %s, "http": {"servers": {"s": {"listen": [":%d"], "routes": [{"handle": [{"handler": "static_response"}]}]}}}}}`, adminPort, c.app, sitePort)
		status, msg := loadRaw(t, cfg, "application/json")
		if status == http.StatusOK || !strings.Contains(msg, c.want) {
			t.Errorf("crawlers %s: %d %q, want %q", c.app, status, msg, c.want)
		}
	}
}

// TestStoreKeptOverReload: a reload whose store config is unchanged (a site changed) keeps the
// store's client; one whose store config changes, or whose {env.*} value changes, gets a new
// client, and the old one is released (no config uses it any more).
func TestStoreKeptOverReload(t *testing.T) {
	t.Setenv("ROBOTS_TEST_STORE_PREFIX", "one:")
	option := func(prefix string) string {
		return "\tcrawlers {\n\t\tlists off\n\t\treverse_dns off\n\t\tstore redis {\n\t\t\taddress 127.0.0.1:1\n\t\t\tkey_prefix " + prefix + "\n\t\t}\n\t}\n"
	}
	site := ":@PORT@ {\n\trobots_txt {\n\t\tgroup CCBot {\n\t\t\tcrawl_delay 1\n\t\t}\n\t\tenforce {\n\t\t\tcrawl_delay\n\t\t}\n\t}\n\trespond 1\n}\n"
	tester := caddyTesterWithGlobals(t, option("{env.ROBOTS_TEST_STORE_PREFIX}"), site)
	running := func() *Crawlers {
		a := runningCrawlers.Load()
		if a == nil || a.store == nil {
			t.Fatal("the running config's crawlers app has no store")
		}
		return a
	}
	first := running().store
	keys := func() int {
		n := 0
		stores.Range(func(any, any) bool { n++; return true })
		return n
	}
	tester.InitServer(globalsWith(option("{env.ROBOTS_TEST_STORE_PREFIX}"))+expand(site+":@PORT2@ {\n\trespond 2\n}\n"), "caddyfile")
	if running().store != first {
		t.Error("a reload with the same store config made a new client")
	}
	tester.InitServer(globalsWith(option("two:"))+expand(site), "caddyfile")
	second := running().store
	if second == first {
		t.Error("a reload with another key prefix kept the old client")
	}
	if n := keys(); n != 1 {
		t.Errorf("%d clients kept after the reload, want 1 (the old config's released)", n)
	}
	t.Setenv("ROBOTS_TEST_STORE_PREFIX", "two:")
	tester.InitServer(globalsWith(option("{env.ROBOTS_TEST_STORE_PREFIX}"))+expand(site), "caddyfile")
	if running().store != second {
		t.Error("the same store config, written with a placeholder of the same value, made a new client")
	}
	// Another site too: Caddy does not reload a config identical to the running one.
	t.Setenv("ROBOTS_TEST_STORE_PREFIX", "three:")
	tester.InitServer(globalsWith(option("{env.ROBOTS_TEST_STORE_PREFIX}"))+expand(site+":@PORT2@ {\n\trespond 2\n}\n"), "caddyfile")
	if running().store == second {
		t.Error("a changed {env.*} value kept the old client")
	}
}

// TestStoreOutageThroughCaddy: with the store down (nothing listens at its address), a
// crawler whose crawl-delay needs it is served (crawl-delay fails open), never refused, and
// the fallbacks are counted in Caddy's /metrics (caddy_robots_store_fallbacks_total), the
// first as an error and those in the backoff that follows as not tried.
func TestStoreOutageThroughCaddy(t *testing.T) {
	option := "\tcrawlers {\n\t\tlists off\n\t\treverse_dns off\n\t\tstore redis {\n\t\t\taddress 127.0.0.1:" + fmt.Sprint(freePorts(1)[0]) + "\n\t\t\tbackoff 1h\n\t\t}\n\t}\n"
	caddyTesterWithGlobals(t, option, `:@PORT@ {
	robots_txt {
		metrics
		group GPTBot {
			crawl_delay 30
		}
		enforce {
			crawl_delay
		}
	}
	respond "ok"
}
`)
	before := seriesOf(scrapeMetrics(t), prom.StoreFallbacksName)
	for i := range 3 {
		resp, _ := do(t, "GET", siteURL("/page"), "User-Agent: Mozilla/5.0 (compatible; GPTBot/1.2)")
		if resp.StatusCode != 200 {
			t.Errorf("request %d of GPTBot with the store down: %d, want 200 (crawl-delay fails open)", i, resp.StatusCode)
		}
	}
	got := delta(before, seriesOf(scrapeMetrics(t), prom.StoreFallbacksName))
	want := map[string]float64{"operation=crawl_delay,reason=error": 1, "operation=crawl_delay,reason=backoff": 2}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("fallbacks counted %v, want %v", got, want)
	}
}
