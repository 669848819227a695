package serve

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// observedFile names GPTBot, Claude-User (which only the AI catalogue knows) and a crawler
// neither catalogue knows, and keeps everyone out of /admin/.
func observedFile() robotsgen.File {
	return robotsgen.File{Groups: []robotsgen.Group{
		{UserAgents: []string{"GPTBot"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/private/"}, {Type: robotsgen.Allow, Path: "/private/ok"}}},
		{UserAgents: []string{"Claude-User"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/claude/"}}},
		{UserAgents: []string{"ExampleBot"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/x"}}},
		{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/admin/"}}},
	}}
}

// fakeClock is a clock tests move.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func observedCore(t testing.TB, f robotsgen.File, enforce *policy.Enforce, opts Options) *Core {
	t.Helper()
	rt := &policy.RobotsTxt{Groups: f.Groups, Enforce: enforce}
	c, err := New(policy.Config{RobotsTxt: rt}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// lineOf is the 1-based line of text in body, found by reading the body line by line (an
// independent witness of the lines robotsgen.Text records).
func lineOf(t *testing.T, body []byte, text string) int {
	t.Helper()
	for i, l := range strings.Split(string(body), "\n") {
		if l == text {
			return i + 1
		}
	}
	t.Fatalf("%q not in %s", text, body)
	return 0
}

func servedRobots(t *testing.T, c *Core) []byte {
	t.Helper()
	w := httptest.NewRecorder()
	if err := c.ServeRobotsTxt(w, uaRequest("/robots.txt", ""), nil); err != nil {
		t.Fatal(err)
	}
	return w.Body.Bytes()
}

// Counts: each request of a crawler counted once, under its catalogue ID (or "other") and
// the outcome the served file gives it; browsers not at all; a violation reported with the
// rule and its line in the served file.
func TestObserveCountsAndViolations(t *testing.T) {
	counters := metrics.NewCounters()
	var got []violation
	c := observedCore(t, observedFile(), nil, Options{Counters: counters, violations: func(_ *http.Request, v violation) { got = append(got, v) }})
	body := servedRobots(t, c)
	reqs := []struct {
		path, ua string
	}{
		{"/private/a", "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)"}, // disallowed_served
		{"/private/ok", "GPTBot/1.2"},                              // allowed (the longer Allow)
		{"/admin/x", "Mozilla/5.0 (compatible; Googlebot/2.1)"},    // disallowed by "*"
		{"/x", "ExampleBot/1.0"},                                   // other, disallowed
		{"/claude/a", "Mozilla/5.0 (compatible; Claude-User/1.0)"}, // the AI catalogue's name, disallowed
		{"/private/a", chromeUA},                                   // a browser: not counted
		{"/admin/x", chromeUA},
	}
	for _, q := range reqs {
		if _, blocked := c.Enforce(uaRequest(q.path, q.ua)); blocked {
			t.Fatalf("%s %s blocked without enforce", q.ua, q.path)
		}
	}
	for _, q := range []string{"GPTBot/1.2", "Googlebot/2.1", chromeUA, "Claude-User/1.0", "ExampleBot/1.0"} {
		if err := c.ServeRobotsTxt(httptest.NewRecorder(), uaRequest("/robots.txt", q), nil); err != nil {
			t.Fatal(err)
		}
	}
	series := map[string]uint64{}
	counters.EachRequest(func(s metrics.RequestSeries) {
		series[s.Crawler+" "+s.Category+" "+s.Status+" "+s.Outcome] = s.Count
	})
	want := map[string]uint64{
		"openai-crawler ai unchecked disallowed_served":            1,
		"openai-crawler ai unchecked allowed":                      1,
		"google-crawler search-engine unchecked disallowed_served": 1,
		"other other unchecked disallowed_served":                  1,
		"Claude-User ai unchecked disallowed_served":               1,
	}
	if !mapsEqual(series, want) {
		t.Errorf("series %v, want %v", series, want)
	}
	fetches := map[string]uint64{}
	counters.EachRobotsTxt(func(c, _ string, n uint64) { fetches[c] = n })
	if !mapsEqual(fetches, map[string]uint64{"openai-crawler": 1, "google-crawler": 1, "Claude-User": 1}) {
		t.Errorf("robots.txt fetches %v", fetches)
	}
	if len(got) != 4 {
		t.Fatalf("violations %+v, want 4", got)
	}
	wantV := []violation{
		{Crawler: "openai-crawler", Token: "GPTBot", Status: "unchecked", Path: "/private/a", Rule: robotsgen.Rule{Type: robotsgen.Disallow, Path: "/private/"}, Line: lineOf(t, body, "Disallow: /private/")},
		{Crawler: "google-crawler", Status: "unchecked", Path: "/admin/x", Rule: robotsgen.Rule{Type: robotsgen.Disallow, Path: "/admin/"}, Line: lineOf(t, body, "Disallow: /admin/")},
		{Crawler: "other", Token: "ExampleBot", Status: "unchecked", Path: "/x", Rule: robotsgen.Rule{Type: robotsgen.Disallow, Path: "/x"}, Line: lineOf(t, body, "Disallow: /x")},
		{Crawler: "Claude-User", Token: "Claude-User", Status: "unchecked", Path: "/claude/a", Rule: robotsgen.Rule{Type: robotsgen.Disallow, Path: "/claude/"}, Line: lineOf(t, body, "Disallow: /claude/")},
	}
	for i := range wantV {
		if got[i] != wantV[i] {
			t.Errorf("violation %d: %+v, want %+v", i, got[i], wantV[i])
		}
	}
}

func mapsEqual(a, b map[string]uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// With enforce, a refused request counts as enforced and is not reported as a violation;
// an impostor counts as impostor under the status Identify gives.
func TestObserveEnforced(t *testing.T) {
	counters := metrics.NewCounters()
	reports := 0
	identify := func(r *http.Request) identity.Identity {
		if r.Header.Get("X-Impostor") != "" {
			return identity.Identity{Bot: "google-crawler", Status: identity.Impostor}
		}
		return identity.Identity{Bot: "openai-crawler", Status: identity.Verified}
	}
	c := observedCore(t, observedFile(), &policy.Enforce{Impostors: &policy.Impostors{}}, Options{Counters: counters, Identify: identify, violations: func(*http.Request, violation) { reports++ }})
	if _, blocked := c.Enforce(uaRequest("/private/a", "GPTBot/1.2")); !blocked {
		t.Fatal("not enforced")
	}
	imp := uaRequest("/", "Googlebot/2.1")
	imp.Header.Set("X-Impostor", "1")
	if b, blocked := c.Enforce(imp); !blocked || b.Impostor == nil {
		t.Fatal("impostor not refused")
	}
	series := map[string]uint64{}
	counters.EachRequest(func(s metrics.RequestSeries) { series[s.Crawler+" "+s.Status+" "+s.Outcome] = s.Count })
	if !mapsEqual(series, map[string]uint64{"openai-crawler verified enforced": 1, "google-crawler impostor impostor": 1}) {
		t.Errorf("series %v", series)
	}
	if reports != 0 {
		t.Errorf("%d violations reported for refused requests", reports)
	}
}

// The report of violations is limited per crawler: ViolationBurst per interval, then the
// next interval's first report counts those suppressed; another crawler has its own budget.
func TestViolationLimit(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
	var got []violation
	c := observedCore(t, observedFile(), nil, Options{Now: clock.now, violations: func(_ *http.Request, v violation) { got = append(got, v) }})
	for i := 0; i < 3*ViolationBurst; i++ {
		c.Enforce(uaRequest("/private/a", "GPTBot/1.2"))
		clock.advance(time.Second)
	}
	if len(got) != ViolationBurst {
		t.Fatalf("%d reports in one interval, want %d", len(got), ViolationBurst)
	}
	c.Enforce(uaRequest("/admin/", "Googlebot/2.1"))
	if len(got) != ViolationBurst+1 || got[ViolationBurst].Crawler != "google-crawler" {
		t.Fatalf("another crawler's report was suppressed: %+v", got[len(got)-1])
	}
	clock.advance(ViolationInterval)
	c.Enforce(uaRequest("/private/a", "GPTBot/1.2"))
	last := got[len(got)-1]
	if last.Crawler != "openai-crawler" || last.Suppressed != 2*ViolationBurst {
		t.Errorf("first report of the next interval: %+v, want %d suppressed", last, 2*ViolationBurst)
	}
}

// A clock set back does not silence the report of violations: a step back of an hour starts
// an interval, rather than suppressing reports until the clock has caught up.
func TestViolationLimitClockStep(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
	var got []violation
	c := observedCore(t, observedFile(), nil, Options{Now: clock.now, violations: func(_ *http.Request, v violation) { got = append(got, v) }})
	c.Enforce(uaRequest("/private/a", "GPTBot/1.2"))
	clock.advance(-time.Hour)
	c.Enforce(uaRequest("/private/a", "GPTBot/1.2"))
	if len(got) != 2 {
		t.Fatalf("%d reports, want 2: the step back suppressed one", len(got))
	}
	for range 3 * ViolationBurst {
		c.Enforce(uaRequest("/private/a", "GPTBot/1.2"))
	}
	clock.advance(ViolationInterval)
	c.Enforce(uaRequest("/private/a", "GPTBot/1.2"))
	// The interval the step started holds ViolationBurst reports (the second above and 9
	// more), then the next one's first counts the 21 suppressed.
	if last := got[len(got)-1]; len(got) != ViolationBurst+2 || last.Suppressed != 2*ViolationBurst+1 {
		t.Errorf("%d reports, the last with %d suppressed; want %d and %d", len(got), last.Suppressed, ViolationBurst+2, 2*ViolationBurst+1)
	}
}

// A crawler only the AI catalogue knows (Claude-User) has a metrics slot of its own: its
// requests and robots.txt fetches are counted whether or not the served file names it.
func TestObserveAICatalogueOnly(t *testing.T) {
	counters := metrics.NewCounters()
	f := robotsgen.File{Groups: []robotsgen.Group{{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/admin/"}}}}}
	c := observedCore(t, f, nil, Options{Counters: counters})
	for _, p := range []string{"/a", "/admin/x"} {
		c.Enforce(uaRequest(p, "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)"))
	}
	if err := c.ServeRobotsTxt(httptest.NewRecorder(), uaRequest("/robots.txt", "Claude-User/1.0"), nil); err != nil {
		t.Fatal(err)
	}
	series := map[string]uint64{}
	counters.EachRequest(func(s metrics.RequestSeries) { series[s.Crawler+" "+s.Category+" "+s.Outcome] = s.Count })
	if want := map[string]uint64{"Claude-User ai allowed": 1, "Claude-User ai disallowed_served": 1}; !mapsEqual(series, want) {
		t.Errorf("series %v, want %v", series, want)
	}
	fetches := map[string]uint64{}
	counters.EachRobotsTxt(func(c, _ string, n uint64) { fetches[c] = n })
	if !mapsEqual(fetches, map[string]uint64{"Claude-User": 1}) {
		t.Errorf("robots.txt fetches %v", fetches)
	}
}

var sinkBlock Block

// BenchmarkObserve is what counting and the violation check add to a request, side by side
// with the same config without them (Off: the front ends do not call Enforce then, so Off is
// the call alone; Enforce: the same file enforced, EnforceOn: enforced and observed): a
// browser's request, an allowed crawler's (GPTBot, named by the file) and
// a crawler's that the "*" group disallows, whose reports the limit suppresses.
func BenchmarkObserve(b *testing.B) {
	reqs := []struct {
		name string
		r    *http.Request
	}{
		{"Browser", uaRequest("/article", chromeUA)},
		{"CrawlerAllowed", uaRequest("/article", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)")},
		{"CrawlerDisallowed", uaRequest("/admin/x", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")},
	}
	for _, mode := range []string{"Off", "On", "Enforce", "EnforceOn"} {
		opts := Options{}
		if strings.HasSuffix(mode, "On") {
			opts = Options{Counters: metrics.NewCounters(), violations: func(*http.Request, violation) {}}
		}
		var enforce *policy.Enforce
		if strings.HasPrefix(mode, "Enforce") {
			// Nothing these requests ask for is refused: the cost is the decision's.
			enforce = &policy.Enforce{}
		}
		name := mode
		c := observedCore(b, observedFile(), enforce, opts)
		for _, q := range reqs {
			b.Run(q.name+"/"+name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					sinkBlock, _ = c.Enforce(q.r)
				}
			})
		}
		// A file that names only crawlers of the catalogue: a browser's header is not
		// scanned for the file's names (catalogueFile).
		cf := observedCore(b, robotsgen.File{Groups: observedFile().Groups[:1]}, enforce, opts)
		b.Run("BrowserCatalogueFile/"+name, func(b *testing.B) {
			r := uaRequest("/article", chromeUA)
			b.ReportAllocs()
			for b.Loop() {
				sinkBlock, _ = cf.Enforce(r)
			}
		})
	}
}

// Property: observing does not change what enforcement refuses. Over generated files and
// requests (names of both catalogues, in any case, alone or beside a browser's value in a
// second User-Agent field, each sent twice so that the second is answered from memory), the
// enforcer that also counts and reports refuses exactly what the plain one does, with the
// same Block; every request it counts is one whose header names a bot or a name of the file.
func TestObservedEnforcementAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 9))
	agents := []string{"*", "GPTBot", "CCBot", "ExampleBot", "Googlebot", "bingbot", "ClaudeBot", "Claude-User"}
	presets := crawlers.Categories()
	patterns := []string{"/", "/a", "/a/", "/*.pdf$", "/private/", "/x$", "*"}
	paths := []string{"/", "/a", "/a/b", "/a/c.pdf", "/private/1", "/x", "/xy"}
	all, _ := crawlers.Category(crawlers.AIAll)
	names := append([]string{"Googlebot", "bingbot", "ExampleBot", "facebookexternalhit/1.1 Facebot Twitterbot"}, agents[1:]...)
	for _, c := range all {
		names = append(names, c.Name)
	}
	iters := 200
	if raceEnabled {
		iters = 30
	}
	compared, blocked := 0, 0
	for range iters {
		var f robotsgen.File
		for n := 1 + rng.IntN(4); n > 0; n-- {
			var g robotsgen.Group
			for k := rng.IntN(3); k > 0; k-- {
				g.UserAgents = append(g.UserAgents, agents[rng.IntN(len(agents))])
			}
			if rng.IntN(2) == 0 || len(g.UserAgents) == 0 {
				g.Presets = append(g.Presets, presets[rng.IntN(len(presets))])
			}
			for k := 1 + rng.IntN(3); k > 0; k-- {
				typ := robotsgen.Disallow
				if rng.IntN(3) == 0 {
					typ = robotsgen.Allow
				}
				g.Rules = append(g.Rules, robotsgen.Rule{Type: typ, Path: patterns[rng.IntN(len(patterns))]})
			}
			f.Groups = append(f.Groups, g)
		}
		if f.Validate() != nil {
			continue
		}
		plain, err := fileEnforcer(f, 0)
		if err != nil {
			continue
		}
		rt, err := newRobotsTxt(f, 0)
		if err != nil {
			t.Fatal(err)
		}
		counters := metrics.NewCounters()
		observed, err := newEnforcer(rt, nil, &policy.Enforce{}, Options{Counters: counters, violations: func(*http.Request, violation) {}})
		if err != nil {
			t.Fatal(err)
		}
		counted := uint64(0)
		for range 30 {
			name := names[rng.IntN(len(names))]
			if rng.IntN(3) == 0 {
				name = strings.ToLower(name)
			}
			var values []string
			switch rng.IntN(4) {
			case 0:
				values = []string{chromeUA}
			case 1:
				values = []string{chromeUA, "Mozilla/5.0 (compatible; " + name + "/1.0)"}
			default:
				values = []string{"Mozilla/5.0 (compatible; " + name + "/1.0)"}
			}
			path := paths[rng.IntN(len(paths))]
			for range 2 {
				r := uaRequest(path, "")
				r.Header["User-Agent"] = values
				pb, pBlocked := plain.Check(r, identity.Identity{})
				ob, oBlocked := observed.Check(r, identity.Identity{})
				if pBlocked != oBlocked || pBlocked && fmt.Sprint(pb) != fmt.Sprint(ob) {
					t.Fatalf("%q %s: plain %v %+v, observed %v %+v", values, path, pBlocked, pb, oBlocked, ob)
				}
				compared++
				if pBlocked {
					blocked++
				}
				_, bot := crawlers.IdentifyBotHeader(values)
				_, _, tokOK := plain.Crawler(r)
				if bot || tokOK || namesAICrawler(t, values) {
					counted++
				}
			}
		}
		var total uint64
		counters.EachRequest(func(s metrics.RequestSeries) { total += s.Count })
		if total != counted {
			t.Fatalf("counted %d requests, %d named a bot, a crawler of the AI catalogue or a name of the file\n%+v", total, counted, f)
		}
	}
	if compared < iters*30 || blocked < compared/20 {
		t.Errorf("%d requests compared, %d refused: the generator is off balance", compared, blocked)
	}
}

// TestEnforceNeverRobotsTxt: /robots.txt (and a license document) is never refused, counted
// as a page or charged to a crawl-delay budget, whatever else is on: a review found observing
// refused an impostor's /robots.txt, which check then reported as blocked.
func TestEnforceNeverRobotsTxt(t *testing.T) {
	f := robotsgen.File{Groups: []robotsgen.Group{{UserAgents: []string{"GPTBot"}, CrawlDelay: 10, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/"}}}}}
	impostor := func(*http.Request) identity.Identity {
		return identity.Identity{Bot: "openai-crawler", Status: identity.Impostor}
	}
	for _, tc := range []struct {
		name    string
		enforce *policy.Enforce
		opts    Options
	}{
		{"enforce", &policy.Enforce{Impostors: &policy.Impostors{}}, Options{Identify: impostor}},
		{"enforce and counters", &policy.Enforce{Impostors: &policy.Impostors{}}, Options{Identify: impostor, Counters: metrics.NewCounters()}},
		{"crawl_delay", &policy.Enforce{CrawlDelay: true, Impostors: &policy.Impostors{}}, Options{Identify: impostor}},
		{"violations", nil, Options{violations: func(r *http.Request, _ violation) {
			if r.URL.Path == "/robots.txt" {
				t.Error("robots.txt reported as a violation")
			}
		}}},
	} {
		c := observedCore(t, f, tc.enforce, tc.opts)
		for range 3 {
			r := httptest.NewRequest("GET", "/robots.txt", nil)
			r.Header.Set("User-Agent", "GPTBot/1.2")
			if b, blocked := c.Enforce(r); blocked {
				t.Errorf("%s: /robots.txt refused: %+v", tc.name, b)
			}
		}
		// The same crawler is refused elsewhere, so the guard is what lets robots.txt through.
		r := httptest.NewRequest("GET", "/page", nil)
		r.Header.Set("User-Agent", "GPTBot/1.2")
		if _, blocked := c.Enforce(r); !blocked && tc.enforce != nil {
			t.Errorf("%s: /page not refused", tc.name)
		}
	}
}

// namesAICrawler reports whether a value names a crawler of the AI catalogue (crawlers.All),
// which metrics count whether or not the file names it.
func namesAICrawler(t testing.TB, values []string) bool {
	m, err := allAINames()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		if _, ok := m.Match(v); ok {
			return true
		}
	}
	return false
}

var allAINames = sync.OnceValues(func() (*crawlers.UAMatcher, error) {
	var names []string
	for _, c := range crawlers.All() {
		names = append(names, c.Name)
	}
	return crawlers.NewUAMatcher(names)
})

// BenchmarkViolation is a violation reported (not suppressed by the limit: the clock moves on
// an interval per request), with the rule's line in the served file: a crawler that the file
// names, disallowed by the last rule of its group, in files of n groups of 10 rules each.
func BenchmarkViolation(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		groups := make([]robotsgen.Group, n)
		for i := range groups {
			g := robotsgen.Group{UserAgents: []string{fmt.Sprintf("ScaleBot%d", i)}}
			for k := range 10 {
				g.Rules = append(g.Rules, robotsgen.Rule{Type: robotsgen.Disallow, Path: fmt.Sprintf("/sec%d/%d/", i, k)})
			}
			groups[i] = g
		}
		clock := &fakeClock{t: time.Unix(0, 0)}
		var got violation
		c := observedCore(b, robotsgen.File{Groups: groups}, nil, Options{Now: clock.now, violations: func(_ *http.Request, v violation) { got = v }})
		r := uaRequest(fmt.Sprintf("/sec%d/9/x", n-1), fmt.Sprintf("Mozilla/5.0 (compatible; ScaleBot%d/1.0)", n-1))
		b.Run(fmt.Sprintf("groups=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				clock.advance(ViolationInterval)
				sinkBlock, _ = c.Enforce(r)
			}
			if got.Line == 0 {
				b.Fatalf("no line: %+v", got)
			}
		})
	}
}
