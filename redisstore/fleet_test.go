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

func newFleet(t *testing.T, srv *redistest.Server, n int, config string, opts Options) []instance {
	t.Helper()
	var out []instance
	for range n {
		st := newStore(t, srv, opts)
		mw, err := nethttp.NewFromJSON([]byte(config), nethttp.Options{Store: st, Logger: slog.New(slog.DiscardHandler)})
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
	fl := newFleet(t, srv, 3, fleetConfig, Options{KeyPrefix: "nethttp:"})
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
	// trip for the log's limit either. Each instance asks the store once: the first
	// request it sees is served or refused by the store, which tells it until when the
	// budget is taken, so its second is refused without asking.
	// Every command is one of the script (SET, PTTL) or EVALSHA itself.
	if got := after["evalsha"] - before["evalsha"]; got != 3 || total(after)-total(before) != got+after["set"]-before["set"]+after["pttl"]-before["pttl"] {
		t.Fatalf("6 crawler requests on 3 instances: %d EVALSHA round trips, want 3, one per instance (%v, then %v)", got, before, after)
	}

	// A crawler asking as fast as it can, on one instance and on all three: a round trip
	// per instance, not per request, and every request refused.
	before = after
	for i := range 60 {
		if got := fetch(t, fl[i%3].url+"/page", gptbot); got != 429 {
			t.Fatalf("GPTBot's request %d within its crawl delay: %d, want 429", i, got)
		}
	}
	if got := commandStats(t, srv)["evalsha"] - before["evalsha"]; got != 0 {
		t.Fatalf("60 requests within a budget every instance knows is taken: %d round trips, want none", got)
	}
}

// TestFleetHeldBudget: what an instance remembers of the fleet's budget never refuses a
// request the fleet would serve: an instance told the budget is taken for another 0.5 s
// serves the crawler as soon as the delay has passed since the fleet served it, not a delay
// after it was told; and a fleet asked faster than the delay serves one request a delay.
func TestFleetHeldBudget(t *testing.T) {
	srv := redistest.Start(t)
	const delay = time.Second
	config := `{"robots_txt": {"groups": [{"user_agents": ["GPTBot"], "crawl_delay": 1, "rules": [{"type": "allow", "path": "/"}]}], "enforce": {"crawl_delay": true}}}`
	var urls []string
	for range 3 {
		mw, err := nethttp.NewFromJSON([]byte(config), nethttp.Options{Store: newStore(t, srv, Options{KeyPrefix: "held:"}), Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })))
		t.Cleanup(hs.Close)
		urls = append(urls, hs.URL)
	}
	if code := fetch(t, urls[0]+"/page", gptbot); code != 200 {
		t.Fatalf("first request: %d", code)
	}
	served := time.Now() // the store served it before this
	time.Sleep(delay / 2)
	if code := fetch(t, urls[1]+"/page", gptbot); code != 429 {
		t.Fatalf("a request half a delay later: %d, want 429", code)
	}
	time.Sleep(time.Until(served.Add(delay + 50*time.Millisecond)))
	if code := fetch(t, urls[1]+"/page", gptbot); code != 200 {
		t.Fatalf("a request a delay after the fleet served the last, on the instance told half a delay before that the budget was taken: %d, want 200", code)
	}

	// Asked every 0-90 ms for 4 delays, round-robin: served about once a delay (a
	// request served within the delay fails here, as does an instance refusing past it).
	// The store served a request between its start and its end: two served within the delay
	// of each other are certain only when the second ended less than the delay after the
	// first began, whatever the latency of either.
	var last time.Time // when the last request served began
	n := 0
	for i, start := 0, time.Now(); time.Since(start) < 4*delay; i++ {
		before := time.Now()
		switch code := fetch(t, urls[i%3]+"/page", gptbot); code {
		case 200:
			if end := time.Now(); !last.IsZero() && end.Sub(last) < delay {
				t.Fatalf("request %d served within %v of the last one served, within the crawl delay %v", i, end.Sub(last), delay)
			}
			last = before
			n++
		case 429:
		default:
			t.Fatalf("request %d: %d", i, code)
		}
		time.Sleep(time.Duration(i%7) * 15 * time.Millisecond)
	}
	if n < 3 || n > 5 {
		t.Fatalf("served %d requests in %v at a crawl delay of %v, want 3 to 5", n, 4*delay, delay)
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
	// A crawler of its own for each fault: what an instance learned of a budget before
	// (it is taken until then) refuses without asking the store, so only a budget that no
	// instance has seen taken shows whether the store is asked, and answers again.
	config := `{"robots_txt": {"groups": [{"user_agents": ["GPTBot", "ClaudeBot", "CCBot"], "crawl_delay": 30, "rules": [{"type": "allow", "path": "/"}]}], "enforce": {"crawl_delay": true}}}`
	fl := newFleet(t, srv, 3, config, Options{KeyPrefix: "outage:", Timeout: policy.Duration(timeout), Backoff: policy.Duration(time.Second),
		Logger: slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil))})
	// Each request waits at most the timeout for the store; the rest is the loopback
	// request on a loaded 2-core box.
	const bound = timeout + 700*time.Millisecond
	get := func(url, ua string) int {
		start := time.Now()
		code := fetch(t, url, ua)
		if d := time.Since(start); d > bound {
			t.Errorf("a request took %v with the store in trouble (timeout %v)", d, timeout)
		}
		return code
	}
	if get(fl[0].url+"/a", gptbot) != 200 || get(fl[1].url+"/a", gptbot) != 429 {
		t.Fatal("the fleet does not share the budget before the outage")
	}

	// An instance that knows the budget is taken refuses without the store, outage or not.
	srv.Pause()
	if code := get(fl[1].url+"/a", gptbot); code != 429 {
		t.Fatalf("a request within a budget the instance was told is taken: %d during an outage, want 429", code)
	}
	srv.Resume()

	for _, fault := range []struct {
		name       string
		down, back func()
		ua         string
	}{
		{"killed", srv.Kill, srv.Restart, "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)"},
		{"paused", srv.Pause, srv.Resume, "CCBot/2.0 (https://commoncrawl.org/faq/)"},
	} {
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
			if code := get(fl[i%3].url+"/b", fault.ua); code != 200 {
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
		// again: one instance is served, the others refused. No instance learned anything of
		// this crawler's budget during the outage, so a refusal is the store's.
		for deadline := time.Now().Add(15 * time.Second); ; {
			if get(fl[0].url+"/c", fault.ua) == 429 && get(fl[2].url+"/c", fault.ua) == 429 {
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
