package syntax

import (
	"strings"
	"testing"
	"time"
)

func TestProductToken(t *testing.T) {
	for s, want := range map[string]bool{"GPTBot": true, "a_b-c": true, "-x": true, "": false, "*": false, "Bot2": false, "a b": false, "a/1": false, "é": false} {
		if ProductToken(s) != want {
			t.Errorf("ProductToken(%q) = %v", s, !want)
		}
	}
}

func TestTextProblem(t *testing.T) {
	for _, s := range []string{"a\nb", "a\rb", "a\x00", "a\u0085", "a\u2028", "a\u2029", "\x7f", "\xff"} {
		if TextProblem(s) == "" {
			t.Errorf("TextProblem(%q) accepted it", s)
		}
	}
	for _, s := range []string{"", "plain text", "ünïcödé", "tab-free"} {
		if p := TextProblem(s); p != "" {
			t.Errorf("TextProblem(%q) = %s", s, p)
		}
	}
}

// TestParseDuration checks the forms Caddy reads; caddymodule compares it with
// caddy.ParseDuration itself over many inputs.
func TestParseDuration(t *testing.T) {
	for s, want := range map[string]time.Duration{"1h": time.Hour, "1d": 24 * time.Hour, "1.5d": 36 * time.Hour, "1d12h": 36 * time.Hour, "90s": 90 * time.Second, "-1d": -24 * time.Hour} {
		got, err := ParseDuration(s)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "soon", "1x", "d", "1dd"} {
		if _, err := ParseDuration(s); err == nil {
			t.Errorf("ParseDuration(%q) accepted it", s)
		}
	}
}

func TestNotCrawlerToken(t *testing.T) {
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
		problem, sugg := NotCrawlerToken(c.in)
		if sugg != c.suggestion {
			t.Errorf("NotCrawlerToken(%q) suggests %q, want %q", c.in, sugg, c.suggestion)
		}
		if !strings.HasPrefix(problem, CrawlerTokenProblem) || !strings.Contains(problem, c.note) {
			t.Errorf("NotCrawlerToken(%q) problem %q, want %q", c.in, problem, c.note)
		}
		if c.note == "" && problem != CrawlerTokenProblem {
			t.Errorf("NotCrawlerToken(%q) adds to the problem: %q", c.in, problem)
		}
	}
}

// TestGoogleAgentToken pins Google's reading of a user-agent value (google/robotstxt,
// RobotsMatcher::ExtractUserAgent: "Allowed characters in user-agent are [a-zA-Z_-]").
func TestGoogleAgentToken(t *testing.T) {
	for in, want := range map[string]string{
		"Googlebot": "Googlebot", "Googlebot/2.1": "Googlebot", "Foo.Bot": "Foo", "AI2Bot": "AI",
		"FooBot*": "FooBot", "Googlebot-Image": "Googlebot-Image", "my_bot x": "my_bot", "2Bot": "", "": "",
	} {
		if got := GoogleAgentToken(in); got != want {
			t.Errorf("GoogleAgentToken(%q) = %q, want %q", in, got, want)
		}
		if ProductToken(want) != (want != "") {
			t.Errorf("GoogleAgentToken(%q) = %q is not a product token", in, want)
		}
	}
}

// Excluded compares names without case, and leaves out a name a parser reads as an excluded
// token (its leading word), never a longer token that merely starts with one.
func TestExcluded(t *testing.T) {
	e := NewExcluded([]string{"MistralAI-User", "googleother"})
	for name, want := range map[string]bool{
		"GoogleOther": true, "GOOGLEOTHER": true, "MistralAI-User/1.0": true, "mistralai-user": true,
		"GoogleOther-Image": false, "MistralAI": false, "GPTBot": false,
	} {
		if got := e.Has(name); got != want {
			t.Errorf("Has(%q) = %v, want %v", name, got, want)
		}
	}
	if NewExcluded(nil).Has("GPTBot") {
		t.Error("the empty set excludes")
	}
}
