package policycheck

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/jimsmart/grobotstxt"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/internal/fieldcover"
	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/rsl"
	"github.com/sitepolicy/caddy-robots/usage"
)

// Pools of the generated configs: crawlers of the catalogue (in one category or several, with
// digits, never written to robots.txt), others, and patterns that overlap.
var (
	agreeTokens   = []string{"GPTBot", "CCBot", "ClaudeBot", "AI2Bot", "PerplexityBot", "ChatGPT-User", "ExampleBot", "Googlebot", "*"}
	agreeUAOnly   = []string{"Kangaroo Bot/1.0", "ChatGPT Agent", "Echobot Bot"}
	agreeExcept   = []string{"Kangaroo Bot", "ChatGPT Agent", "GPTBot", "ClaudeBot"}
	agreePatterns = []string{"/", "/a", "/a/", "/a/b", "/%61/", "/b", "/*.pdf$", "/a*x", "/private/", "/open/"}
	agreePaths    = []string{"/", "/a", "/a/x", "/a/b/c", "/b", "/x.pdf", "/a/x.pdf", "/private/p", "/open/o", "/%61/x", "/license.xml"}
)

func pickOne[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

func genRules(r *rand.Rand) []robotsgen.Rule {
	var rs []robotsgen.Rule
	for range r.IntN(4) {
		t := robotsgen.Disallow
		if r.IntN(3) == 0 {
			t = robotsgen.Allow
		}
		rs = append(rs, robotsgen.Rule{Type: t, Path: pickOne(r, agreePatterns)})
	}
	return rs
}

func genPrefs(r *rand.Rand, v usage.Vocab) []usage.Rule {
	if r.IntN(3) != 0 {
		return nil
	}
	keys, vals := []string{"train-ai", "search"}, []string{"y", "n"}
	if v == usage.ContentSignal {
		keys, vals = []string{"ai-train", "search"}, []string{"yes", "no"}
	}
	rule := usage.Rule{Preferences: map[string]string{pickOne(r, keys): pickOne(r, vals)}}
	if r.IntN(2) == 0 {
		rule.Path = pickOne(r, []string{"/a/", "/open/"})
	}
	return []usage.Rule{rule}
}

// genAgreeConfig returns a robots_txt config with enforcement, and the site's own robots.txt
// for merge_file or merge_upstream (or "" for neither).
func genAgreeConfig(r *rand.Rand, dir string, c int) (*nethttp.RobotsTxtConfig, string) {
	cfg := &nethttp.RobotsTxtConfig{Enforce: &nethttp.Enforce{}}
	for range 1 + r.IntN(3) {
		var g robotsgen.Group
		switch r.IntN(3) {
		case 0:
			g.Presets = []string{pickOne(r, crawlers.Categories())}
		case 1:
			g.UserAgents = []string{pickOne(r, agreeTokens)}
		default:
			g.UserAgents = []string{pickOne(r, agreeTokens)}
			g.Presets = []string{pickOne(r, crawlers.Categories())}
		}
		if r.IntN(5) == 0 {
			g.Purposes = []string{"training"}
		}
		if len(g.Presets) > 0 && r.IntN(3) == 0 {
			// Left out of the preset: crawlers the test asks about (a name never written to
			// robots.txt among them), which then read the file's other groups.
			cs, _ := crawlers.Category(g.Presets[0])
			for _, n := range []string{pickOne(r, agreeTokens), pickOne(r, agreeExcept)} {
				if slices.ContainsFunc(cs, func(c crawlers.Crawler) bool { return strings.EqualFold(c.Name, n) }) && !slices.Contains(g.UserAgents, n) {
					g.Except = append(g.Except, n)
				}
			}
		}
		g.Rules = genRules(r)
		if len(g.Rules) == 0 {
			g.Rules = []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/private/"}}
		}
		if r.IntN(5) == 0 {
			g.CrawlDelay = 2
		}
		if r.IntN(5) == 0 {
			g.Records = []robotsgen.Record{{Key: "Clean-param", Value: "ref /a"}}
		}
		g.ContentUsage = genPrefs(r, usage.ContentUsage)
		g.ContentSignal = genPrefs(r, usage.ContentSignal)
		cfg.Groups = append(cfg.Groups, g)
	}
	if r.IntN(3) == 0 {
		cfg.Comments = []string{"generated"}
	}
	if r.IntN(3) == 0 {
		cfg.Sitemaps = []string{"/sitemap.xml"}
	}
	if r.IntN(3) == 0 {
		cfg.Licenses = []string{"/license.xml", "https://rights.example.org/rsl.xml"}
	}
	if r.IntN(3) == 0 {
		cfg.LicenseDocuments = []rsl.Document{{Path: "/license.xml", Content: []rsl.Content{{URL: "/", Permits: []string{"search"}, Prohibits: []string{"ai-train"},
			Payment: &rsl.Payment{Type: "attribution", Standard: "https://rights.example.org/std", Custom: "mailto:l@example.com"}}}}}
	}
	if r.IntN(3) == 0 {
		cfg.Records = []robotsgen.Record{{Key: "Host", Value: "example.com"}}
	}
	if r.IntN(3) == 0 {
		cfg.MaxAge = nethttp.Duration(600e9)
	}
	if r.IntN(3) == 0 {
		cfg.Enforce.Status = 451
	}
	if r.IntN(3) == 0 {
		// With a verifier that knows only GPTBot's list (gptbotOnLoopback) and asks no DNS,
		// no request is an impostor: the file's enforcement must be what it is without this.
		cfg.Enforce.Impostors = &policy.Impostors{Status: 410}
	}
	if r.IntN(3) == 0 {
		cfg.Enforce.AcceptSignature = true // a header on refusals: the decisions do not change
	}
	if r.IntN(3) == 0 && slices.ContainsFunc(cfg.Groups, func(g robotsgen.Group) bool { return g.CrawlDelay > 0 && !slices.Equal(g.UserAgents, []string{"*"}) }) {
		// Crawl-delay answers 429 only to requests the file does not refuse (those are
		// refused first): a 429 is not the file's enforcement, and check does not predict it.
		cfg.Enforce.CrawlDelay = true
	}
	genPay(r, cfg)
	other := ""
	if r.IntN(4) != 0 {
		var b strings.Builder
		for range 1 + r.IntN(3) {
			fmt.Fprintf(&b, "User-agent: %s\n", pickOne(r, agreeTokens))
			for _, rl := range genRules(r) {
				fmt.Fprintf(&b, "%s: %s\n", map[robotsgen.RuleType]string{robotsgen.Allow: "Allow", robotsgen.Disallow: "Disallow"}[rl.Type], rl.Path)
			}
			b.WriteString("Disallow: /cms/\n\n")
		}
		other = b.String()
		switch r.IntN(3) {
		case 0:
			cfg.MergeUpstream = true
			if r.IntN(2) == 0 {
				cfg.MergeUpstreamTimeout = nethttp.Duration(3e9)
			}
		default:
			cfg.MergeFile = filepath.Join(dir, fmt.Sprintf("robots-%d.txt", c))
			if err := os.WriteFile(cfg.MergeFile, []byte(other), 0o644); err != nil {
				panic(err)
			}
		}
	}
	return cfg, other
}

// TestCheckServedAndEnforcementAgree: for generated configs with presets, named crawlers,
// purposes, preference lines and enforcement, alone or merged (merge_file, merge_upstream),
// served by the middleware over loopback: enforcement refuses a request exactly when the
// served file (read by Google's parser) disallows the path to a crawler the file names;
// check predicts enforcement, decides as the served file does for the crawler it names, and
// never says allowed and blocked together. The generator sets every field of the config.
func TestCheckServedAndEnforcementAgree(t *testing.T) {
	verifier := gptbotOnLoopback(t)
	t.Parallel() // a long property test: the others run beside it
	configs := 150
	if testing.Short() || raceEnabled {
		configs = 30
	}
	if raceEnabled {
		// Under the race detector only races are looked for: the first configs of the same
		// seed, all of which the full-size run without -race (./test.sh) checks too.
		configs = 12
	}
	r := rand.New(rand.NewPCG(19, 9309))
	dir := t.TempDir()
	set := fieldcover.Set{}
	n := map[string]int{}
	for c := range configs {
		cfg, other := genAgreeConfig(r, dir, c)
		set.Add(cfg)
		m, err := nethttp.New(nethttp.Config{RobotsTxt: cfg}, nethttp.Options{Logger: discard, Verifier: verifier.Verifier})
		if err != nil {
			continue // a generated config may be refused (e.g. a preset group overlapping another's names is fine, a bad one is not)
		}
		n["configs served"]++
		status := cfg.Enforce.Status
		if status == 0 {
			status = 403
		}
		srv := httptest.NewServer(m.Handler(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.URL.Path == "/robots.txt" && cfg.MergeUpstream {
				w.Header().Set("Content-Type", "text/plain")
				_, _ = w.Write([]byte(other))
				return
			}
			w.Header().Set("X-Backend", "1")
		})))
		res, err := http.Get(srv.URL + "/robots.txt")
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, res)
		if res.StatusCode != 200 {
			t.Fatalf("config %d: robots.txt %d", c, res.StatusCode)
		}
		served, _ := robotsgen.Parse(body)
		matcher := robotsgen.NewMatcher(served)
		site := FromConfig(nethttp.Config{RobotsTxt: cfg})
		site.Crawlers = verifier
		agents := slices.Concat(agreeTokens[:len(agreeTokens)-1], agreeUAOnly, []string{"Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0"})
		for range 5 {
			agent := pickOne(r, agents)
			if cfg.Pay != nil && r.IntN(3) == 0 {
				agent = "GPTBot" // the crawler the verifier proves, which prices ask
			}
			ua := agent
			if crawlers.IsToken(agent) && r.IntN(2) == 0 {
				ua = "Mozilla/5.0 (compatible; " + agent + "/1.0; +https://example.com/bot)"
			}
			for range 3 {
				path := pickOne(r, agreePaths)
				req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
				req.Header.Set("User-Agent", ua)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				readAll(t, res)
				enforced := res.StatusCode == status && res.Header.Get("X-Backend") == ""
				fail := func(format string, args ...any) {
					t.Helper()
					t.Fatalf("config %d, %q %s: "+format+"\n--- config %+v\n--- other\n%s--- served\n%s", append(append([]any{c, ua, path}, args...), cfg, other, body)...)
				}
				if crawlers.IsToken(agent) && agent != "Googlebot" || !crawlers.IsToken(agent) && !strings.HasPrefix(agent, "Mozilla") {
					n["requests from catalogue or named crawlers"]++
				}
				if res.StatusCode == http.StatusTooManyRequests && res.Header.Get("Retry-After") != "" {
					n["rate limited (crawl-delay)"]++
				}
				if enforced {
					n["enforced"]++
					// Google's parser compares escapes as written ("/%61/" is not "/a/"); where
					// the path or a pattern has one it may read otherwise than RFC 9309, the
					// server, and enforcement (robotsgen's tests compare the two readings).
					google := !strings.Contains(path, "%") && !strings.Contains(string(body), "%") && grobotstxt.AgentAllowed(string(body), agent, "http://example.com"+path)
					if crawlers.IsToken(agent) && (google || matcher.Decide(agent, "", path).Allowed) {
						fail("enforced, but the served file allows %s", agent)
					}
				} else if crawlers.IsToken(agent) && served.Renderable() != nil && namedIn(served, agent) && !matcher.Decide(agent, "", path).Allowed &&
					!slices.ContainsFunc(cfg.LicenseDocuments, func(d rsl.Document) bool { return d.Path == path }) {
					// An RSL license document is never refused, as /robots.txt: a crawler
					// must be able to read the terms.
					fail("not enforced, but the served file names %s and disallows the path", agent)
				}
				if cfg.MergeUpstream {
					continue // check cannot see the backend's file
				}
				rep, err := Check(site, Request{URL: "http://" + strings.TrimPrefix(srv.URL, "http://") + path, Agent: ua, ClientIP: "127.0.0.1"})
				if err != nil {
					fail("check: %v", err)
				}
				n["checked"]++
				if rep.Enforcement.Blocked != enforced {
					fail("check says blocked %v, enforcement %v (token %q)", rep.Enforcement.Blocked, enforced, rep.ProductToken)
				}
				if rep.Enforcement.Blocked && rep.Allowed {
					fail("check says ALLOWED and BLOCKED (token %q)", rep.ProductToken)
				}
				if tok := rep.ProductToken; crawlers.IsToken(tok) && rep.Allowed != matcher.Decide(tok, "", path).Allowed {
					fail("check says allowed %v for %s, the served file %v", rep.Allowed, tok, !rep.Allowed)
				}
				agreePay(cfg, rep, res, n, fail)
			}
		}
		srv.Close()
	}
	t.Logf("%v", n)
	if n["enforced"] < configs || n["checked"] < configs*5 || n["configs served"] < configs*3/4 || n["asked to pay"] < configs/15 {
		t.Errorf("too few interesting cases: %v", n)
	}
	// Pay too: the verifier proves GPTBot's claim (gptbotOnLoopback), and agreePay compares
	// the price check shows with the 402 served.
	// The fields are all set over the full run (without -race: ./test.sh runs it so); the
	// race detector's first dozen configs need not reach every one.
	if missing := set.Missing(reflect.TypeFor[nethttp.RobotsTxtConfig]()); len(missing) > 0 && !raceEnabled {
		t.Errorf("the generator never sets %q", missing)
	}
}

func namedIn(f *robotsgen.File, token string) bool {
	for _, g := range f.Groups {
		for _, ua := range g.UserAgents {
			if strings.EqualFold(ua, token) {
				return true
			}
		}
	}
	return false
}

func readAll(t *testing.T, res *http.Response) []byte {
	t.Helper()
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		k, err := res.Body.Read(buf)
		b.Write(buf[:k])
		if err != nil {
			break
		}
	}
	return []byte(b.String())
}
