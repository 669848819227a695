package redisstore

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sitepolicy/caddy-robots/fleet"
	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/redisstore/redistest"
	"github.com/sitepolicy/caddy-robots/serve"
)

const fleetConfig = `{"robots_txt": {"groups": [
	{"user_agents": ["GPTBot"], "crawl_delay": 30, "rules": [{"type": "disallow", "path": "/private/"}]},
	{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}],
	"enforce": {"crawl_delay": true}}}`

const (
	gptbot  = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"
	browser = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
)

// commandStats returns the calls of each command the server has run (INFO commandstats),
// asked on a client of its own; INFO itself and that client's HELLO are left out.
func commandStats(t testing.TB, srv *redistest.Server) map[string]int64 {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, DisableIdentity: true})
	defer c.Close()
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for line := range strings.Lines(info) {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if !ok || name == "cmdstat_info" || name == "cmdstat_hello" {
			continue
		}
		calls, _, _ := strings.Cut(rest, ",")
		out[strings.TrimPrefix(name, "cmdstat_")], _ = strconv.ParseInt(calls, 10, 64)
	}
	return out
}

func total(m map[string]int64) (n int64) {
	for _, v := range m {
		n += v
	}
	return n
}

// instance is one server of a fleet: a nethttp middleware with a Store of its own (a client
// of its own, as another process would have).
type instance struct {
	url   string
	store *Store
}

func newFleet(t *testing.T, srv *redistest.Server, n int, opts Options) []instance {
	t.Helper()
	var out []instance
	for range n {
		st := newStore(t, srv, opts)
		mw, err := nethttp.NewFromJSON([]byte(fleetConfig), nethttp.Options{Store: st, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })))
		t.Cleanup(hs.Close)
		out = append(out, instance{hs.URL, st})
	}
	return out
}

func fetch(t testing.TB, url, ua string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("User-Agent", ua)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestFleetNethttp: three nethttp instances sharing a real redis-server hold a crawler to
// one crawl-delay budget, one round trip (EVALSHA) per crawler request, none for a
// browser's.
func TestFleetNethttp(t *testing.T) {
	srv := redistest.Start(t)
	fl := newFleet(t, srv, 3, Options{KeyPrefix: "nethttp:"})
	// The script is loaded once (EVALSHA, then EVAL on NOSCRIPT): warm it up with another
	// crawler's budget so that the counts below are of steady state.
	if _, _, err := fl[0].store.TakeDelay(context.Background(), "warm-up", time.Millisecond); err != nil {
		t.Fatal(err)
	}

	before := commandStats(t, srv)
	for i := range 30 {
		if got := fetch(t, fl[i%3].url+"/articles/"+strconv.Itoa(i), browser); got != 200 {
			t.Fatalf("browser: %d", got)
		}
	}
	if after := commandStats(t, srv); total(after) != total(before) {
		t.Fatalf("30 browser requests sent %d commands to the store, want none (%v, then %v)", total(after)-total(before), before, after)
	}

	// A crawler whose group has no crawl_delay, on a path it may fetch: nothing to share.
	for i := range 6 {
		if got := fetch(t, fl[i%3].url+"/page", "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"); got != 200 {
			t.Fatalf("bingbot: %d", got)
		}
	}
	if after := commandStats(t, srv); total(after) != total(before) {
		t.Fatalf("requests that need no shared state sent %d commands to the store", total(after)-total(before))
	}

	var codes []int
	for i := range 6 {
		codes = append(codes, fetch(t, fl[i%3].url+"/page", gptbot))
	}
	if want := []int{200, 429, 429, 429, 429, 429}; !slicesEqual(codes, want) {
		t.Fatalf("GPTBot round-robin over three instances, crawl_delay 30: %v, want %v (the fleet serves what one instance would)", codes, want)
	}
	after := commandStats(t, srv)
	// The refusals are logged at debug level, which this logger does not write: no round
	// trip for the log's limit either.
	// Every command is one of the script (SET, PTTL) or EVALSHA itself.
	if got := after["evalsha"] - before["evalsha"]; got != 6 || total(after)-total(before) != got+after["set"]-before["set"]+after["pttl"]-before["pttl"] {
		t.Fatalf("6 crawler requests: %d EVALSHA round trips, want 6 (%v, then %v)", got, before, after)
	}
}

// TestFleetLogLimits: the refusal and violation logs' limits are the fleet's: three
// instances refusing a crawler 30 times (or serving it 30 disallowed paths) log
// ViolationBurst lines between them, not three times as many.
func TestFleetLogLimits(t *testing.T) {
	srv := redistest.Start(t)
	for _, c := range []struct {
		name, config, line string
		violations         bool
		status             int
	}{
		{"refusals", fleetConfig, "robots.txt disallows this path for GPTBot", false, 403},
		{"violations", `{"robots_txt": {"groups": [{"user_agents": ["GPTBot"], "rules": [{"type": "disallow", "path": "/private/"}]}]}}`, serve.ViolationMessage, true, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			var logs strings.Builder
			w := &syncWriter{w: &logs}
			var urls []string
			for range 3 {
				mw, err := nethttp.NewFromJSON([]byte(c.config), nethttp.Options{Store: newStore(t, srv, Options{KeyPrefix: c.name + ":"}),
					LogViolations: c.violations, Logger: slog.New(slog.NewJSONHandler(w, nil))})
				if err != nil {
					t.Fatal(err)
				}
				hs := httptest.NewServer(mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })))
				t.Cleanup(hs.Close)
				urls = append(urls, hs.URL)
			}
			for i := range 30 {
				if got := fetch(t, urls[i%3]+"/private/"+strconv.Itoa(i), gptbot); got != c.status {
					t.Fatalf("GPTBot on /private/: %d, want %d", got, c.status)
				}
			}
			if n := strings.Count(logs.String(), c.line); n != serve.ViolationBurst {
				t.Fatalf("the fleet logged %d lines of 30, want %d:\n%s", n, serve.ViolationBurst, logs.String())
			}
		})
	}
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestFleetOutage kills, pauses and restarts the redis-server under three instances: no
// request fails, none waits much longer than the timeout, crawl-delay fails open and is
// counted, and the fleet shares its budget again once the server is back, without a restart.
func TestFleetOutage(t *testing.T) {
	srv := redistest.Start(t)
	const timeout = 150 * time.Millisecond
	var logs strings.Builder
	fl := newFleet(t, srv, 3, Options{KeyPrefix: "outage:", Timeout: policy.Duration(timeout), Backoff: policy.Duration(time.Second),
		Logger: slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil))})
	// Each request waits at most the timeout for the store; the rest is the loopback
	// request on a loaded 2-core box.
	const bound = timeout + 700*time.Millisecond
	get := func(url string) int {
		start := time.Now()
		code := fetch(t, url, gptbot)
		if d := time.Since(start); d > bound {
			t.Errorf("a request took %v with the store in trouble (timeout %v)", d, timeout)
		}
		return code
	}
	if get(fl[0].url+"/a") != 200 || get(fl[1].url+"/a") != 429 {
		t.Fatal("the fleet does not share the budget before the outage")
	}

	for _, fault := range []struct {
		name       string
		down, back func()
	}{{"killed", srv.Kill, srv.Restart}, {"paused", srv.Pause, srv.Resume}} {
		fault.down()
		count := func(r fleet.Reason) uint64 {
			var n uint64
			for _, in := range fl {
				n += in.store.Stats().Fallbacks(fleet.OpCrawlDelay, r)
			}
			return n
		}
		failed := func() uint64 { return count(fleet.Failed) + count(fleet.Skipped) }
		before, skipped := failed(), count(fleet.Skipped)
		for i := range 9 {
			// Fails open: every request is served, whatever the budget said.
			if code := get(fl[i%3].url + "/b"); code != 200 {
				t.Fatalf("%s: request %d: status %d, want 200 (crawl-delay fails open)", fault.name, i, code)
			}
		}
		if got := failed() - before; got < 9 {
			t.Fatalf("%s: %d fallbacks counted for 9 requests", fault.name, got)
		}
		// After a failure an instance backs off: its next requests do not try the store,
		// and so do not each wait the timeout.
		if got := count(fleet.Skipped) - skipped; got < 3 {
			t.Fatalf("%s: %d of 9 requests skipped the store during its backoff, want at least 3", fault.name, got)
		}
		fault.back()
		// Recovery without a restart: once the backoff is over, the budget is the fleet's
		// again (the killed server restarted empty; the paused one kept the budget taken
		// before the outage, so the first request may be refused already).
		for deadline := time.Now().Add(15 * time.Second); ; {
			if get(fl[0].url+"/c") == 429 && get(fl[2].url+"/c") == 429 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the fleet does not share the budget again after the server came back", fault.name)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if !strings.Contains(logs.String(), "fleet store: a call failed") || !strings.Contains(logs.String(), "fleet store: answering again") {
		t.Errorf("the outage and the recovery are not logged:\n%s", logs.String())
	}
	if n := strings.Count(logs.String(), "fleet store: a call failed"); n > 3 {
		t.Errorf("%d lines about failures: at most one per instance per %v", n, LogInterval)
	}
}
