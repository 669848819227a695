package serve

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// delayFile asks GPTBot for delay seconds between requests; Googlebot is named without a
// delay, and "*" has one, which is not enforced.
func delayFile(delay float64) robotsgen.File {
	return robotsgen.File{Groups: []robotsgen.Group{
		{UserAgents: []string{"GPTBot"}, CrawlDelay: delay, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/private/"}}},
		{UserAgents: []string{"Googlebot"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/private/"}}},
		{UserAgents: []string{"*"}, CrawlDelay: 30, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/admin/"}}},
	}}
}

// crawl sends n requests of ua every interval from the clock's time, and returns the
// Retry-After of each (0: served).
func crawl(c *Core, clock *fakeClock, ua string, interval time.Duration, n int, hdr ...string) []int {
	var out []int
	for range n {
		r := uaRequest("/page", ua)
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		b, blocked := c.Enforce(r)
		switch {
		case !blocked:
			out = append(out, 0)
		case b.Status == http.StatusTooManyRequests && b.RetryAfter > 0:
			out = append(out, b.RetryAfter)
		default:
			out = append(out, -1)
		}
		clock.advance(interval)
	}
	return out
}

// A crawler at twice its group's rate gets every other request refused with the wait
// rounded up to whole seconds; at half the rate, never; browsers, crawlers named without a
// delay and crawlers only "*" addresses, never.
func TestCrawlDelay(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
	counters := metrics.NewCounters()
	c := observedCore(t, delayFile(10), &policy.Enforce{CrawlDelay: true}, Options{Now: clock.now, Counters: counters})
	got := crawl(c, clock, "Mozilla/5.0 (compatible; GPTBot/1.2)", 5*time.Second, 6)
	if want := []int{0, 5, 0, 5, 0, 5}; !slicesEqual(got, want) {
		t.Errorf("2x: %v, want %v", got, want)
	}
	clock.advance(time.Minute)
	if got := crawl(c, clock, "GPTBot/1.2", 20*time.Second, 6); !slicesEqual(got, make([]int, 6)) {
		t.Errorf("0.5x: %v", got)
	}
	for _, ua := range []string{chromeUA, "Googlebot/2.1", "bingbot/2.0"} {
		if got := crawl(c, clock, ua, time.Millisecond, 20); !slicesEqual(got, make([]int, 20)) {
			t.Errorf("%s: %v", ua, got)
		}
	}
	n := uint64(0)
	counters.EachRequest(func(s metrics.RequestSeries) {
		if s.Outcome == "rate_limited" {
			n += s.Count
		}
	})
	if n != 3 {
		t.Errorf("%d rate_limited counted, want 3", n)
	}
	// A delay that is not whole seconds: the wait is rounded up, never 0.
	c = observedCore(t, delayFile(2.5), &policy.Enforce{CrawlDelay: true}, Options{Now: clock.now})
	if got, want := crawl(c, clock, "GPTBot/1", time.Second, 4), []int{0, 2, 1, 0}; !slicesEqual(got, want) {
		t.Errorf("2.5 s at 1 s: %v, want %v", got, want)
	}
	c = observedCore(t, delayFile(1), &policy.Enforce{CrawlDelay: true}, Options{Now: clock.now})
	if got, want := crawl(c, clock, "GPTBot/1", time.Millisecond, 3), []int{0, 1, 1}; !slicesEqual(got, want) {
		t.Errorf("1 s at 1 ms: %v, want %v", got, want)
	}
}

// With verification, a verified crawler has its own budget: requests that claim its name
// without being verified do not use it up (they share another).
func TestCrawlDelayVerified(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
	identify := func(r *http.Request) identity.Identity {
		if r.Header.Get("X-Verified") != "" {
			return identity.Identity{Bot: "openai-crawler", Status: identity.Verified}
		}
		return identity.Identity{Bot: "openai-crawler", Status: identity.Pending}
	}
	c := observedCore(t, delayFile(10), &policy.Enforce{CrawlDelay: true}, Options{Now: clock.now, Identify: identify})
	// Claims flood first.
	if got := crawl(c, clock, "GPTBot/1.2", time.Millisecond, 50); got[0] != 0 || got[1] == 0 {
		t.Fatalf("claims: %v", got)
	}
	if got := crawl(c, clock, "GPTBot/1.2", 10*time.Second, 5, "X-Verified", "1"); !slicesEqual(got, make([]int, 5)) {
		t.Errorf("the verified crawler at its rate, after a flood of claims: %v", got)
	}
}

// Property: over random delays and request times, what is refused and the Retry-After sent
// are those of a model that serves a request when at least the delay has passed since the
// last one served.
func TestCrawlDelayModel(t *testing.T) {
	n := 2000
	if raceEnabled {
		n = 200
	}
	rnd := rand.New(rand.NewPCG(5, 6))
	for i := range n {
		delay := []float64{0.5, 1, 2.5, 10, 60}[i%5]
		clock := &fakeClock{t: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
		c := observedCore(t, delayFile(delay), &policy.Enforce{CrawlDelay: true}, Options{Now: clock.now})
		var last time.Time
		served := false
		d := time.Duration(delay * float64(time.Second))
		for range 20 {
			clock.advance(time.Duration(rnd.Int64N(int64(2 * d))))
			b, blocked := c.Enforce(uaRequest("/", "GPTBot/1"))
			wantBlocked := served && clock.t.Before(last.Add(d))
			if blocked != wantBlocked {
				t.Fatalf("delay %v: at %v after the last served, blocked %v", delay, clock.t.Sub(last), blocked)
			}
			if blocked {
				want := max(1, int(math.Ceil(last.Add(d).Sub(clock.t).Seconds())))
				if b.RetryAfter != want {
					t.Fatalf("delay %v: Retry-After %d, want %d", delay, b.RetryAfter, want)
				}
				continue
			}
			last, served = clock.t, true
		}
	}
}

// crawl_delay needs a group that names a crawler with a delay.
func TestCrawlDelayConfigError(t *testing.T) {
	f := delayFile(0)
	_, err := New(policy.Config{RobotsTxt: &policy.RobotsTxt{Groups: f.Groups, Enforce: &policy.Enforce{CrawlDelay: true}}}, Options{})
	if err == nil || !strings.Contains(err.Error(), "robots_txt.enforce.crawl_delay") {
		t.Errorf("error %v", err)
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

// A clock set back (an NTP step, a virtual machine resumed) or forward locks no crawler out:
// after a step back of an hour, a crawler at its group's rate is served, and one asking too
// soon waits at most the delay. The default clock is monotonic (time.Since); this injected
// one is a wall clock, which take must survive too.
func TestCrawlDelayClockStep(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
	c := observedCore(t, delayFile(10), &policy.Enforce{CrawlDelay: true}, Options{Now: clock.now})
	if got := crawl(c, clock, "GPTBot/1.2", 10*time.Second, 3); !slicesEqual(got, make([]int, 3)) {
		t.Fatalf("before the step: %v", got)
	}
	clock.advance(-time.Hour)
	if got, want := crawl(c, clock, "GPTBot/1.2", 5*time.Second, 4), []int{0, 5, 0, 5}; !slicesEqual(got, want) {
		t.Errorf("after a step back of an hour: %v, want %v", got, want)
	}
	clock.advance(-3 * time.Second) // back by less than the delay: waits at most the delay
	if got := crawl(c, clock, "GPTBot/1.2", 0, 1); got[0] < 1 || got[0] > 10 {
		t.Errorf("after a step back of 3 s: Retry-After %v, want 1 to 10", got)
	}
	clock.advance(time.Hour)
	if got, want := crawl(c, clock, "GPTBot/1.2", 5*time.Second, 4), []int{0, 5, 0, 5}; !slicesEqual(got, want) {
		t.Errorf("after a step forward of an hour: %v, want %v", got, want)
	}
}

// A crawl delay too long for a time.Duration (over about 292 years) is enforced as
// maxEnforcedCrawlDelay, never ignored.
func TestCrawlDelayHuge(t *testing.T) {
	for _, delay := range []float64{86400, 1e10, 1e12, 1e300, math.MaxFloat64} {
		clock := &fakeClock{t: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
		c := observedCore(t, delayFile(delay), &policy.Enforce{CrawlDelay: true}, Options{Now: clock.now})
		got := crawl(c, clock, "GPTBot/1.2", 23*time.Hour, 3)
		if want := []int{0, 3600, 0}; !slicesEqual(got, want) {
			t.Errorf("crawl_delay %g, requests every 23 h: %v, want %v (a day between requests)", delay, got, want)
		}
	}
}

// A new version of the served file (merge_file changed) keeps the budgets of the names whose
// delay is unchanged: it grants no early request. A name whose delay changed starts afresh.
func TestCrawlDelayNewVersion(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "robots.txt")
	write := func(s string, age time.Duration) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		mt := time.Now().Add(-age)
		if err := os.Chtimes(path, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	write("User-agent: ClaudeBot\nCrawl-delay: 30\nDisallow: /a/\n", 2*time.Hour)
	clock := &fakeClock{t: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
	df := delayFile(10)
	df.Groups[2].CrawlDelay = 0 // the site's file decides ClaudeBot's delay
	cfg := &policy.RobotsTxt{Groups: df.Groups, Enforce: &policy.Enforce{CrawlDelay: true}}
	cfg.MergeFile = path
	c, err := New(policy.Config{RobotsTxt: cfg}, Options{Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	for _, ua := range []string{"GPTBot/1.2", "ClaudeBot/1.0"} {
		if got := crawl(c, clock, ua, 0, 1); got[0] != 0 {
			t.Fatalf("%s, first request: %v", ua, got)
		}
	}
	first := string(servedRobots(t, c))
	// The site's file now asks ClaudeBot for a longer delay.
	write("User-agent: ClaudeBot\nCrawl-delay: 60\nDisallow: /b/\n", time.Hour)
	deadline := time.Now().Add(5 * time.Second)
	for string(servedRobots(t, c)) == first {
		if time.Now().After(deadline) {
			t.Fatal("the changed merge_file is not served within 5 s")
		}
		time.Sleep(40 * time.Millisecond)
	}
	if got := crawl(c, clock, "GPTBot/1.2", 0, 1); got[0] != 10 {
		t.Errorf("GPTBot, at once after the file changed: %v, want Retry-After 10", got)
	}
	if got := crawl(c, clock, "ClaudeBot/1.0", 0, 2); !slicesEqual(got, []int{0, 60}) {
		t.Errorf("ClaudeBot, whose delay changed: %v, want [0 60]", got)
	}
}

// With merge_upstream, an origin's robots.txt merged again (after max_age) keeps the budgets
// of the names whose delay is unchanged: the re-merge grants no early request.
func TestCrawlDelayUpstreamRemerge(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{t: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
	df := delayFile(10)
	cfg := &policy.RobotsTxt{Groups: df.Groups, MaxAge: policy.Duration(time.Second), Enforce: &policy.Enforce{CrawlDelay: true}}
	cfg.MergeUpstream = true
	c, err := New(policy.Config{RobotsTxt: cfg}, Options{Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	var version atomic.Int64
	fetch := HandlerFunc(func(w http.ResponseWriter, _ *http.Request) error {
		w.Header().Set("Content-Type", "text/plain")
		_, err := fmt.Fprintf(w, "User-agent: *\nDisallow: /v%d/\n", version.Add(1))
		return err
	})
	robots := func() string {
		w := httptest.NewRecorder()
		if err := c.ServeRobotsTxt(w, uaRequest("/robots.txt", ""), fetch); err != nil {
			t.Fatal(err)
		}
		return w.Body.String()
	}
	first := robots()
	if got := crawl(c, clock, "GPTBot/1.2", 0, 1); got[0] != 0 {
		t.Fatalf("first request: %v", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for robots() == first {
		if time.Now().After(deadline) {
			t.Fatal("the backend's file is not merged again within 5 s")
		}
		time.Sleep(40 * time.Millisecond)
	}
	if got := crawl(c, clock, "GPTBot/1.2", 0, 1); got[0] != 10 {
		t.Errorf("GPTBot, at once after the merge again: %v, want Retry-After 10", got)
	}
}
