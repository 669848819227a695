// The allocation tests: the race detector changes allocation counts, so they skip under it
// (./test.sh runs them in its pass without -race).

package serve

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/policy"
)

// TestIdentifiedNoAlloc: refusing impostors costs an identified request nothing: a verified
// crawler's request, checked for impostors, counted or not, does not allocate (the
// identity goes to the heap only in an impostor's refusal, impostorBlock).
func TestIdentifiedNoAlloc(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	verified := func(*http.Request) identity.Identity {
		return identity.Identity{Bot: "google-crawler", Status: identity.Verified, By: "ip-list"}
	}
	impostors := &policy.Enforce{Impostors: &policy.Impostors{}}
	for _, opts := range []Options{{Identify: verified}, {Identify: verified, Counters: metrics.NewCounters()}} {
		c := observedCore(t, observedFile(), impostors, opts)
		r := uaRequest("/article", "Googlebot/2.1")
		if _, blocked := c.Enforce(r); blocked {
			t.Fatal("a verified crawler refused")
		}
		if n := testing.AllocsPerRun(200, func() { c.Enforce(r) }); n != 0 {
			t.Errorf("counted %v: %v allocs", opts.Counters != nil, n)
		}
	}
}

// TestEnforceBrowserNoAlloc: a browser's request on a site enforcing the whole catalogue
// does not allocate; neither does an allowed crawler's.
func TestEnforceBrowserNoAlloc(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	e := mustEnforcer(t, blockAI(), 0)
	for _, r := range []*http.Request{uaRequest("/article", chromeUA), uaRequest("/article", "Googlebot/2.1"), uaRequest("/robots.txt", "GPTBot/1.0")} {
		if n := testing.AllocsPerRun(200, func() { e.Check(r, identity.Identity{}) }); n != 0 {
			t.Errorf("%s: %v allocs", r.Header.Get("User-Agent"), n)
		}
	}
}

// TestObserveNoAlloc: counting a request and deciding whether it breaks robots.txt does not
// allocate, for a browser, an allowed crawler, a crawler the file does not name, and a
// disallowed one whose reports the limit suppresses.
func TestObserveNoAlloc(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	c := observedCore(t, observedFile(), nil, Options{Counters: metrics.NewCounters(), violations: func(*http.Request, violation) {}})
	disallowed := []*http.Request{uaRequest("/private/a", "GPTBot/1.2"), uaRequest("/x", "ExampleBot/1.0"), uaRequest("/admin/", "Googlebot/2.1")}
	for _, r := range disallowed {
		for range ViolationBurst {
			c.Enforce(r)
		}
	}
	for _, r := range append([]*http.Request{uaRequest("/article", chromeUA), uaRequest("/article", "GPTBot/1.2"), uaRequest("/article", "Googlebot/2.1")}, disallowed...) {
		if n := testing.AllocsPerRun(200, func() { c.Enforce(r) }); n != 0 {
			t.Errorf("%s %s: %v allocs", r.Header.Get("User-Agent"), r.URL.Path, n)
		}
	}
}

// TestObserveFirstSightAllocs: observing allocates only for a User-Agent value it has not
// seen lately (not in its memory, or pushed out of its slot by another): 2 objects, the
// memory's answer and crawlers.IdentifyBot's, then none for that value again (docs/
// BENCHMARKS.md says so). Memory stays bounded: both are fixed numbers of slots.
func TestObserveFirstSightAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	c := observedCore(t, observedFile(), nil, Options{Counters: metrics.NewCounters(), violations: func(*http.Request, violation) {}})
	for _, ua := range []string{"Mozilla/5.0 Chrome/%d.0", "GPTBot/%d.0", "Claude-User/%d.0"} {
		var reqs []*http.Request
		for i := range 201 {
			reqs = append(reqs, uaRequest("/article", fmt.Sprintf(ua, i)))
		}
		i := 0
		if n := testing.AllocsPerRun(200, func() { c.Enforce(reqs[i]); i++ }); n > 2 {
			t.Errorf("%s, first sight: %v allocs, want at most 2", ua, n)
		}
		if n := testing.AllocsPerRun(200, func() { c.Enforce(reqs[0]) }); n != 0 {
			t.Errorf("%s, seen before: %v allocs", ua, n)
		}
	}
}

// tagHeaderOnly is a ResponseWriter that keeps one header map and drops the body.
type tagHeaderOnly http.Header

func (h tagHeaderOnly) Header() http.Header       { return http.Header(h) }
func (tagHeaderOnly) Write(b []byte) (int, error) { return len(b), nil }
func (tagHeaderOnly) WriteHeader(int)             {}

// TestTagTDMRepNoExtraAlloc: stating the policy of another Core's tdmrep.json
// (Options.TDMRep, Caddy's robots_tag) costs tagging no allocation.
func TestTagTDMRepNoExtraAlloc(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	one := 1
	file, err := New(policy.Config{RobotsTag: []policy.Route{{Paths: []string{"/A/*"}, Tags: policy.Tags{TDM: &policy.TDM{Reservation: &one, Policy: "https://p.example/"}}}}}, Options{TDMRepFile: true})
	if err != nil {
		t.Fatal(err)
	}
	route := policy.Config{RobotsTag: []policy.Route{{Tags: policy.Tags{TDM: &policy.TDM{Reservation: &one, Policy: "https://q.example/"}}}}}
	plain, err := New(route, Options{})
	if err != nil {
		t.Fatal(err)
	}
	core, err := New(route, Options{TDMRep: func(*http.Request) *Core { return file }})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := http.NewRequest("GET", "/A/x", nil)
	w := tagHeaderOnly{}
	next := HandlerFunc(func(w http.ResponseWriter, _ *http.Request) error { w.WriteHeader(200); return nil })
	if err := core.ServeHTTP(w, r, next); err != nil {
		t.Fatal(err)
	}
	if got := http.Header(w).Get("Tdm-Policy"); got != "https://p.example/" {
		t.Fatalf("tdm-policy %q, the file's https://p.example/", got)
	}
	tag := testing.AllocsPerRun(200, func() { _ = plain.ServeHTTP(w, r, next) })
	withFile := testing.AllocsPerRun(200, func() { _ = core.ServeHTTP(w, r, next) })
	t.Logf("without the file %v, with it %v allocations", tag, withFile)
	if withFile > tag {
		t.Fatalf("with the file: %v allocations, without %v", withFile, tag)
	}
}
