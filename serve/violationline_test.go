package serve

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// servedGroup is a group of a served robots.txt as read here, line by line: the names of its
// user-agent (and purpose) lines, and its allow and disallow lines by line number.
type servedGroup struct {
	names []string
	rules map[int]string // line -> "Disallow: /x"
	order []int
}

// readGroups reads body as a crawler groups it (RFC 9309 2.2: a run of user-agent lines, then
// its rules; a user-agent line after a rule starts the next group), independently of robotsgen.
func readGroups(body []byte) []servedGroup {
	var gs []servedGroup
	inRules := true
	for i, l := range strings.Split(string(body), "\n") {
		key, _, _ := strings.Cut(strings.ToLower(l), ":")
		switch key {
		case "user-agent", "user-agent-purpose":
			if inRules {
				gs = append(gs, servedGroup{rules: map[int]string{}})
				inRules = false
			}
			g := &gs[len(gs)-1]
			g.names = append(g.names, strings.TrimSpace(l[len(key)+1:]))
		case "allow", "disallow":
			if len(gs) > 0 {
				gs[len(gs)-1].rules[i+1] = l
				gs[len(gs)-1].order = append(gs[len(gs)-1].order, i+1)
			}
			inRules = true
		}
	}
	return gs
}

// wantLine is the line a violation of rule for tok names in body: the first line writing the
// rule in the groups naming tok, else in the "*" groups; 0 if none writes it.
func wantLine(body []byte, tok string, rule robotsgen.Rule) (line int, named bool) {
	text := map[robotsgen.RuleType]string{robotsgen.Allow: "Allow: ", robotsgen.Disallow: "Disallow: "}[rule.Type]
	for i := 0; i < len(rule.Path); i++ {
		if c := rule.Path[i]; c >= 0x80 {
			text += fmt.Sprintf("%%%02X", c)
		} else {
			text += string(c)
		}
	}
	gs := readGroups(body)
	names := func(name string) []servedGroup {
		var out []servedGroup
		for _, g := range gs {
			if slices.ContainsFunc(g.names, func(n string) bool { return strings.EqualFold(n, name) }) {
				out = append(out, g)
			}
		}
		return out
	}
	sel := names(tok)
	named = tok != "" && len(sel) > 0
	if !named {
		sel = names("*")
	}
	for _, g := range sel {
		for _, k := range g.order {
			if g.rules[k] == text {
				return k, named
			}
		}
	}
	return 0, named
}

// TestViolationLineProperty: over generated configs (presets, sitemaps and licenses by path,
// so that each origin gets a body of its own, non-ASCII patterns, purpose groups) served
// alone, merged with a merge_file and merged with the backend's robots.txt, the line each
// violation names is the first line of the served body, read line by line here, that writes
// its rule in the groups naming the crawler's token ("*" when none does): for a name the body
// writes, exactly that line; for a name never written there (a preset's "ChatGPT Agent"),
// 0 or such a line of the "*" groups.
func TestViolationLineProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 4))
	agents := []string{"*", "GPTBot", "CCBot", "ExampleBot", "Googlebot", "ClaudeBot", "Claude-User"}
	patterns := []string{"/", "/a", "/a/", "/*.pdf$", "/private/", "/x$", "/café/", "/a*b"}
	paths := []string{"/", "/a", "/a/b", "/a/c.pdf", "/private/1", "/x", "/caf%C3%A9/1", "/aXb"}
	others := []string{"User-agent: *\nDisallow: /a\nAllow: /a/b\n", "User-agent: GPTBot\nDisallow: /\n\nUser-agent: Foo\nDisallow: /private/\n",
		"# cms\nUser-agent: ExampleBot\nUser-agent: Googlebot\nAllow: /x\nDisallow: /café/\n"}
	all, _ := crawlers.Category(crawlers.AIAll)
	names := []string{"Googlebot", "ExampleBot", "GPTBot", "CCBot", "ClaudeBot", "Claude-User"}
	for _, c := range all {
		names = append(names, c.Name)
	}
	dir := t.TempDir()
	iters := 300
	if raceEnabled {
		iters = 40
	}
	checked, written, nonASCII := 0, 0, 0
	for it := range iters {
		rt := &policy.RobotsTxt{}
		for n := 1 + rng.IntN(4); n > 0; n-- {
			var g robotsgen.Group
			for k := rng.IntN(3); k > 0; k-- {
				g.UserAgents = append(g.UserAgents, agents[rng.IntN(len(agents))])
			}
			switch {
			case rng.IntN(6) == 0:
				g.Purposes = []string{"training"}
			case rng.IntN(2) == 0 || len(g.UserAgents) == 0:
				g.Presets = append(g.Presets, pick(rng, crawlers.Categories()))
			}
			for k := 1 + rng.IntN(3); k > 0; k-- {
				typ := robotsgen.Disallow
				if rng.IntN(3) == 0 {
					typ = robotsgen.Allow
				}
				g.Rules = append(g.Rules, robotsgen.Rule{Type: typ, Path: pick(rng, patterns)})
			}
			rt.Groups = append(rt.Groups, g)
		}
		if rng.IntN(2) == 0 {
			rt.Sitemaps = []string{"/sitemap.xml"}
		}
		if rng.IntN(2) == 0 {
			rt.Licenses = []string{"/license.xml", "https://a.example/license.xml"}
		}
		other := pick(rng, others)
		switch rng.IntN(3) {
		case 1:
			p := filepath.Join(dir, fmt.Sprintf("robots%d.txt", it))
			if err := os.WriteFile(p, []byte(other), 0o644); err != nil {
				t.Fatal(err)
			}
			rt.MergeFile = p
		case 2:
			rt.MergeUpstream = true
		}
		var got []violation
		// The clock moves an interval per reading: no violation is suppressed.
		clock := &fakeClock{t: time.Unix(0, 0)}
		now := func() time.Time { clock.advance(ViolationInterval); return clock.now() }
		c, err := New(policy.Config{RobotsTxt: rt}, Options{Now: now, violations: func(_ *http.Request, v violation) { got = append(got, v) }})
		if err != nil {
			continue // a generated config may be refused (a preset group naming nothing new)
		}
		backend := HandlerFunc(func(w http.ResponseWriter, _ *http.Request) error { _, err := w.Write([]byte(other)); return err })
		for _, host := range []string{"a.example", "b.example"} {
			req := func(path, ua string) *http.Request {
				r := httptest.NewRequest("GET", "https://"+host+path, nil)
				r.Header.Set("User-Agent", ua)
				return r
			}
			w := httptest.NewRecorder()
			if err := c.ServeRobotsTxt(w, req("/robots.txt", ""), backend); err != nil || w.Code != 200 {
				t.Fatalf("config %d: robots.txt %d %v", it, w.Code, err)
			}
			body := w.Body.Bytes()
			for range 15 {
				got = got[:0]
				name := pick(rng, names)
				c.Enforce(req(pick(rng, paths), "Mozilla/5.0 (compatible; "+name+"/1.0)"))
				for _, v := range got {
					want, named := wantLine(body, v.Token, v.Rule)
					if v.Line != want && (named || v.Line != 0) {
						t.Fatalf("config %d, %s %s (token %q): rule %+v at line %d, the served file writes it at line %d\n%s", it, name, v.Path, v.Token, v.Rule, v.Line, want, body)
					}
					checked++
					if v.Line != 0 {
						written++
					}
					if strings.Contains(v.Rule.Path, "é") && v.Line != 0 {
						nonASCII++
					}
				}
			}
		}
		c.Close()
	}
	t.Logf("%d violations, %d with a line, %d of a non-ASCII rule", checked, written, nonASCII)
	if written < iters || nonASCII == 0 {
		t.Errorf("%d violations, %d with a line, %d of a non-ASCII rule: the generator is off balance", checked, written, nonASCII)
	}
}

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }
