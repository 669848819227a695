package crawlers_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/internal/syntax"
)

func TestNotToken(t *testing.T) {
	for _, c := range []struct{ in, suggestion, note string }{
		{"Googlebot/2.1", "Googlebot", ""},
		{"Googlebot 2.1", "Googlebot", ""},
		{"Googlebot-Image/1.0", "Googlebot-Image", ""},
		{"AI2Bot/1.0", "AI2Bot", ""},
		{"bingbot/2.0;", "bingbot", ""},
		{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "Googlebot", ""},
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36", "bingbot", ""},
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36 GPTBot/1.2", "GPTBot", ""},
		{"Mozilla/5.0", "", "Mozilla is the browser a User-Agent header claims to be compatible with"},
		{"2.1", "", "looks like a version number"},
		{"v1.0.3", "", "looks like a version number"},
		{"(compatible;", "", ""},
		{"+http://www.bing.com/bingbot.htm)", "", ""},
		{"Bot.2", "", ""},
		{"bad bot!", "", ""},
	} {
		problem, sugg := crawlers.NotToken(c.in)
		if sugg != c.suggestion {
			t.Errorf("crawlers.NotToken(%q) suggests %q, want %q", c.in, sugg, c.suggestion)
		}
		if !strings.HasPrefix(problem, crawlers.TokenProblem) || !strings.Contains(problem, c.note) {
			t.Errorf("crawlers.NotToken(%q) problem %q, want %q", c.in, problem, c.note)
		}
		if c.note == "" && problem != crawlers.TokenProblem {
			t.Errorf("crawlers.NotToken(%q) adds to the problem: %q", c.in, problem)
		}
	}
}

// TestTokenRestsOnSyntax: the catalogue's token classes are the lexical rules of
// internal/syntax: a TokenProduct name is an RFC 9309 product token and nothing else is,
// LeadingToken stops where an IsToken name does, and a product token is its own leading
// token for Google's parser too.
func TestTokenRestsOnSyntax(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "aZ_-09./ *é\x00"
	n := 20000
	if raceEnabled {
		n = 2000
	}
	for range n {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		s := b.String()
		if got, want := crawlers.Classify(s) == crawlers.TokenProduct, syntax.ProductToken(s); got != want {
			t.Fatalf("%q: Classify says product token %v, syntax.ProductToken %v", s, got, want)
		}
		lead := crawlers.LeadingToken(s)
		if !strings.HasPrefix(s, lead) || lead != "" && !crawlers.IsToken(lead) || lead != s && crawlers.IsToken(lead+s[len(lead):len(lead)+1]) {
			t.Fatalf("LeadingToken(%q) = %q", s, lead)
		}
		if crawlers.IsToken(s) != (s != "" && lead == s) {
			t.Fatalf("IsToken(%q) = %v, LeadingToken %q", s, crawlers.IsToken(s), lead)
		}
	}
}
