package policycheck

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// TestDeadRulesNeverDecide generates groups of rules and checks, with the matcher as the
// witness, that a rule reported as shadowed or duplicated can be removed without changing
// the decision on any of a set of paths; and that the lints find something in a fair share of
// the groups, so the check is not vacuous.
func TestDeadRulesNeverDecide(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	parts := []string{"/", "a", "b", "/a", "*", "$", "ab", "/b/"}
	pattern := func() string {
		var b strings.Builder
		b.WriteString("/")
		for range rng.IntN(4) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		p := b.String()
		// "$" only at the end, as robots.txt reads it.
		if i := strings.IndexByte(p, '$'); i >= 0 {
			p = p[:i+1]
		}
		return p
	}
	var paths []string
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		paths = append(paths, prefix)
		if n == 0 {
			return
		}
		for _, c := range []string{"a", "b", "/"} {
			gen(prefix+c, n-1)
		}
	}
	gen("/", 5)
	found := 0
	const cases = 4000
	for range cases {
		g := robotsgen.Group{UserAgents: []string{"*"}}
		for range 2 + rng.IntN(4) {
			typ := robotsgen.Disallow
			if rng.IntN(2) == 0 {
				typ = robotsgen.Allow
			}
			g.Rules = append(g.Rules, robotsgen.Rule{Type: typ, Path: pattern()})
		}
		l := &linter{site: &Site{RobotsTxt: &RobotsTxt{}}}
		l.deadRules(0, &g)
		if len(l.out) > 0 {
			found++
		}
		full := robotsgen.NewMatcher(&robotsgen.File{Groups: []robotsgen.Group{g}})
		for _, f := range l.out {
			var i int
			if _, err := fmtSscan(f.Location.JSONPath, &i); err != nil {
				t.Fatal(err)
			}
			h := g
			h.Rules = append(append([]robotsgen.Rule(nil), g.Rules[:i]...), g.Rules[i+1:]...)
			less := robotsgen.NewMatcher(&robotsgen.File{Groups: []robotsgen.Group{h}})
			for _, p := range paths {
				a, b := full.Decide("x", "", p), less.Decide("x", "", p)
				if a.Allowed != b.Allowed {
					t.Fatalf("rules %v: %s, but without rule %d the answer for %s changes from %v to %v", g.Rules, f.Message, i, p, a.Allowed, b.Allowed)
				}
			}
		}
	}
	if found < cases/20 {
		t.Fatalf("only %d of %d groups had a dead rule: the generator does not exercise the lint", found, cases)
	}
	t.Logf("%d of %d groups had a dead rule", found, cases)
}

// fmtSscan reads the rule index from "groups[0].rules[N]".
func fmtSscan(path string, i *int) (int, error) {
	return fmt.Sscanf(path[strings.LastIndexByte(path, '[')+1:], "%d]", i)
}
