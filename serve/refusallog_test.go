package serve

import (
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/policy"
)

// refusalCore enforces delayFile(10) (GPTBot and Googlebot kept out of /private/, GPTBot
// with a crawl delay of 10 s) with crawl-delay and impostors on; a request whose
// X-Test-Identity is "impostor" fails verification as Googlebot.
func refusalCore(t testing.TB, clock *fakeClock) *Core {
	identify := func(r *http.Request) identity.Identity {
		if r.Header.Get("X-Test-Identity") == "impostor" {
			return identity.Identity{Bot: "google-crawler", Status: identity.Impostor}
		}
		return identity.Identity{}
	}
	return observedCore(t, delayFile(10), &policy.Enforce{CrawlDelay: true, Impostors: &policy.Impostors{}}, Options{Now: clock.now, Identify: identify})
}

// refusal is one kind of refused request of refusalCore.
type refusal struct {
	name string
	req  func() *http.Request
}

var refusals = []refusal{
	{"GPTBot by a rule", func() *http.Request { return uaRequest("/private/a", "GPTBot/1.2") }},
	{"Googlebot by a rule", func() *http.Request { return uaRequest("/private/a", "Googlebot/2.1") }},
	{"GPTBot over its crawl delay", func() *http.Request { return uaRequest("/open", "GPTBot/1.2") }},
	{"Googlebot impostor", func() *http.Request {
		r := uaRequest("/open", "Googlebot/2.1")
		r.Header.Set("X-Test-Identity", "impostor")
		return r
	}},
}

// TestRefusalLogLimit: 10,000 refusals of one crawler and kind in one interval are logged
// ViolationBurst times; the first of the next interval says how many were left out. Each
// other crawler and kind (a rule, crawl-delay, impostor) has its own budget meanwhile. Without
// the limit every refusal was logged: 10,000 lines.
func TestRefusalLogLimit(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
	c := refusalCore(t, clock)
	const flood = 10_000
	for _, k := range refusals {
		logged := 0
		for i := range flood {
			b, blocked := c.Enforce(k.req())
			if !blocked && (k.name != "GPTBot over its crawl delay" || i > 0) {
				t.Fatalf("%s %d: not refused", k.name, i)
			}
			if blocked && !b.Unlogged {
				if b.Suppressed != 0 {
					t.Fatalf("%s: %d suppressed in the first interval", k.name, b.Suppressed)
				}
				logged++
			}
			clock.advance(time.Millisecond / 10) // 10,000 in one second
		}
		if logged != ViolationBurst {
			t.Errorf("%s: %d of %d refusals logged in one interval, want %d", k.name, logged, flood, ViolationBurst)
		}
	}
	clock.advance(ViolationInterval)
	for _, k := range refusals {
		b, blocked := c.Enforce(k.req())
		want := flood - ViolationBurst
		if k.name == "GPTBot over its crawl delay" {
			want-- // the first request was served
			clock.advance(time.Millisecond)
			b, blocked = c.Enforce(k.req()) // the one before was served: a new delay
		}
		if !blocked || b.Unlogged || b.Suppressed != want {
			t.Errorf("%s, next interval: blocked %v, unlogged %v, %d suppressed; want logged with %d", k.name, blocked, b.Unlogged, b.Suppressed, want)
		}
	}
}

// Property: over random sequences of refusals of every kind at random times, for each
// crawler and kind, a logged refusal's Suppressed is the number not logged since its last
// logged one; a refusal goes unlogged only when ViolationBurst of its key were logged within
// the last interval; and no interval holds more than 2 x ViolationBurst logged lines (a fixed
// window's edge).
func TestRefusalLogLimitProperty(t *testing.T) {
	runs, steps := 60, 600
	if raceEnabled {
		runs = 10
	}
	rnd := rand.New(rand.NewPCG(32, 3))
	for range runs {
		clock := &fakeClock{t: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
		c := refusalCore(t, clock)
		unlogged := make([]int, len(refusals))
		logged := make([][]time.Time, len(refusals))
		// The largest step makes some gaps longer than an interval.
		maxStep := []time.Duration{time.Millisecond, time.Second, 20 * time.Second}[rnd.IntN(3)]
		for range steps {
			clock.advance(time.Duration(rnd.Int64N(int64(maxStep))))
			k := rnd.IntN(len(refusals))
			b, blocked := c.Enforce(refusals[k].req())
			if !blocked {
				continue // a crawl-delay request served
			}
			now := clock.t
			recent := 0
			for _, at := range logged[k] {
				if now.Sub(at) < ViolationInterval {
					recent++
				}
			}
			if b.Unlogged {
				if recent < ViolationBurst {
					t.Fatalf("%s unlogged with only %d logged in the last interval", refusals[k].name, recent)
				}
				unlogged[k]++
				continue
			}
			if b.Suppressed != unlogged[k] {
				t.Fatalf("%s logged with %d suppressed, %d were left out", refusals[k].name, b.Suppressed, unlogged[k])
			}
			if recent >= 2*ViolationBurst {
				t.Fatalf("%s: %d lines logged within an interval", refusals[k].name, recent+1)
			}
			unlogged[k] = 0
			logged[k] = append(logged[k], now)
		}
	}
}
