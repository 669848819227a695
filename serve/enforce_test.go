package serve

import (
	"github.com/sitepolicy/caddy-robots/identity"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

const chromeUA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

func uaRequest(path, ua string) *http.Request {
	r := httptest.NewRequest("GET", path, nil)
	if ua != "" {
		r.Header.Set("User-Agent", ua)
	}
	return r
}

// blockAI is the recipe of docs/ai-usage.md: every catalogue crawler kept out, everyone else
// out of /admin/ only.
func blockAI() robotsgen.File {
	return robotsgen.File{Groups: []robotsgen.Group{
		{Presets: []string{crawlers.AIAll}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/"}}},
		{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/admin/"}}},
	}}
}

func mustEnforcer(t testing.TB, f robotsgen.File, status int) *enforcer {
	t.Helper()
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	e, err := fileEnforcer(f, status)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// fileEnforcer is the enforcer of the file f's responder serves.
func fileEnforcer(f robotsgen.File, status int) (*enforcer, error) {
	rt, err := newRobotsTxt(f, 0)
	if err != nil {
		return nil, err
	}
	return newEnforcer(rt, nil, &policy.Enforce{Status: status}, Options{})
}

func TestEnforcer(t *testing.T) {
	e := mustEnforcer(t, robotsgen.File{Groups: []robotsgen.Group{
		{Presets: []string{crawlers.AITraining, crawlers.AIAssistants}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/"}, {Type: robotsgen.Allow, Path: "/public/"}}},
		{UserAgents: []string{"ExampleBot"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/private/"}}},
		{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/"}}},
	}}, 0)
	if e.Status() != 403 {
		t.Errorf("status %d", e.Status())
	}
	cases := []struct {
		ua, path string
		token    string // "" = not blocked
		rule     string
	}{
		{"Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)", "/article", "GPTBot", "/"},
		{"mozilla/5.0 (compatible; gptbot/1.2)", "/article?x=1", "GPTBot", "/"},
		{"Mozilla/5.0 (compatible; GPTBot/1.2)", "/public/a", "", ""},
		{"Mozilla/5.0 (compatible; GPTBot/1.2)", "/robots.txt", "", ""},
		{"Mozilla/5.0 ChatGPT Agent", "/x", "ChatGPT Agent", "/"}, // UA-only name of the preset
		{"AI2Bot", "/x", "AI2Bot", "/"},
		{"ExampleBot/1.0", "/private/x", "ExampleBot", "/private/"},
		{"ExampleBot/1.0", "/other", "", ""},
		{chromeUA, "/x", "", ""},                                  // * disallows /, but * never enforces
		{"Mozilla/5.0 (compatible; Googlebot/2.1)", "/x", "", ""}, // not named
		{"NotGPTBot-x/1.0", "/x", "", ""},                         // not a whole word
		{"", "/x", "", ""},
	}
	for _, c := range cases {
		b, blocked := e.Check(uaRequest(c.path, c.ua), identity.Identity{})
		if blocked != (c.token != "") || b.Token != c.token || (blocked && b.Rule.Path != c.rule) {
			t.Errorf("%q %s: %+v %v, want %q %q", c.ua, c.path, b, blocked, c.token, c.rule)
		}
	}
	b, _ := e.Check(uaRequest("/x", "GPTBot"), identity.Identity{})
	if got := b.Message(); got != "robots.txt disallows this path for GPTBot (Disallow: /)" {
		t.Errorf("message %q", got)
	}
}

func TestNewEnforcerErrors(t *testing.T) {
	star := robotsgen.File{Groups: []robotsgen.Group{{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/"}}}}}
	for _, c := range []struct {
		f      robotsgen.File
		status int
		path   string
		want   string
	}{
		{blockAI(), 302, "enforce.status", "400 to 599"},
		{blockAI(), 600, "enforce.status", "400 to 599"},
		{star, 0, "enforce", "no group names a crawler"},
	} {
		_, err := fileEnforcer(c.f, c.status)
		es := configerr.All(err)
		if len(es) != 1 || es[0].Path != c.path || !strings.Contains(es[0].Problem, c.want) {
			t.Errorf("%d: %v", c.status, err)
		}
	}
	if e := mustEnforcer(t, blockAI(), 451); e.Status() != 451 {
		t.Errorf("status %d", e.Status())
	}
}

// The file and the enforcement never disagree: over random configs, agents and paths, a
// request is blocked exactly when the served file, parsed back and matched, disallows the
// path for a crawler that a group names (not "*").
func TestEnforcementAgreesWithServedFile(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(12, 1))
	agents := []string{"*", "GPTBot", "CCBot", "ExampleBot", "AI2Bot", "Googlebot", "bingbot", "ClaudeBot", "Bytespider", "PerplexityBot", "Applebot"}
	presets := crawlers.Categories()
	patterns := []string{"/", "/a", "/a/", "/a/b", "/*.pdf$", "/private/", "/x$", "/*?q=", "/caf%C3%A9", "/public/", "*"}
	paths := []string{"/", "/a", "/a/b", "/a/c.pdf", "/b.pdf?x=1", "/private/1", "/x", "/xy", "/s?q=1", "/caf%C3%A9", "/café", "/public/a", "/robots.txt"}
	all, _ := crawlers.Category(crawlers.AIAll)
	var names []string
	for _, c := range all {
		names = append(names, c.Name) // UA-only names too: see below
	}
	names = append(names, agents[1:]...)
	blocks, runs := 0, 0
	iters := 300
	if raceEnabled {
		// Under the race detector only races are looked for: the first configs of the same
		// seed, all of which the full-size run without -race (./test.sh) checks too.
		iters = 30
	}
	for iter := 0; iter < iters; iter++ {
		var f robotsgen.File
		for n := 1 + rng.IntN(4); n > 0; n-- {
			var g robotsgen.Group
			for k := rng.IntN(3); k > 0; k-- {
				g.UserAgents = append(g.UserAgents, agents[rng.IntN(len(agents))])
			}
			if rng.IntN(2) == 0 || len(g.UserAgents) == 0 {
				g.Presets = append(g.Presets, presets[rng.IntN(len(presets))])
			}
			for k := rng.IntN(4); k > 0; k-- {
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
		e, err := fileEnforcer(f, 0)
		if err != nil {
			continue
		}
		body, err := f.Render("")
		if err != nil {
			t.Fatal(err)
		}
		served, diags := robotsgen.Parse(body)
		if len(diags) != 0 {
			t.Fatalf("diagnostics %v", diags)
		}
		named := map[string]bool{}
		for _, g := range served.Groups {
			for _, ua := range g.UserAgents {
				named[strings.ToLower(ua)] = ua != "*"
			}
		}
		m := robotsgen.NewMatcher(served)
		for k := 0; k < 40; k++ {
			runs++
			name := names[rng.IntN(len(names))]
			spelled := name
			if rng.IntN(3) == 0 {
				spelled = strings.ToLower(name)
			}
			ua := "Mozilla/5.0 (compatible; " + spelled + "/9.9; +https://example.com/bot)"
			if rng.IntN(8) == 0 {
				ua, name = chromeUA, ""
			}
			path := paths[rng.IntN(len(paths))]
			b, blocked := e.Check(uaRequest(path, ua), identity.Identity{})
			if name != "" && crawlers.Classify(name) == crawlers.TokenUAOnly {
				// Never in the file; when its leading word is, that token decides.
				lead := name
				if i := strings.IndexFunc(name, func(r rune) bool { return crawlers.Classify(string(r)) == crawlers.TokenUAOnly }); i >= 0 {
					lead = name[:i]
				}
				if !named[strings.ToLower(lead)] {
					continue
				}
				name = lead
			}
			want := name != "" && named[strings.ToLower(name)] && !m.Decide(name, "", path).Allowed
			if blocked != want {
				t.Fatalf("%q %s: blocked %v (%+v), the served file says %v\n%s", ua, path, blocked, b, want, body)
			}
			if blocked {
				blocks++
				if !strings.EqualFold(b.Token, name) {
					t.Fatalf("token %q for %q", b.Token, name)
				}
			}
		}
	}
	if blocks < runs/10 || blocks > runs*9/10 {
		t.Errorf("%d of %d requests blocked: the generator is off balance", blocks, runs)
	}
}

var sinkBlocked bool

// BenchmarkEnforceBrowser is what enforcement adds to a browser's request: one scan of its
// User-Agent against the whole catalogue (about 170 names).
func BenchmarkEnforceBrowser(b *testing.B) {
	e := mustEnforcer(b, blockAI(), 0)
	r := uaRequest("/article", chromeUA)
	b.ReportAllocs()
	for b.Loop() {
		_, sinkBlocked = e.Check(r, identity.Identity{})
	}
}

// BenchmarkEnforceCrawler is a blocked crawler's request: the scan, then the decision.
func BenchmarkEnforceCrawler(b *testing.B) {
	e := mustEnforcer(b, blockAI(), 0)
	r := uaRequest("/article", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)")
	b.ReportAllocs()
	for b.Loop() {
		_, sinkBlocked = e.Check(r, identity.Identity{})
	}
}
