package syntax

import (
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

func TestClosest(t *testing.T) {
	cands := []string{"noindex", "nosnippet", "nofollow", "max-snippet"}
	for name, want := range map[string]string{"noindx": "noindex", "nosnipet": "nosnippet", "max-snipet": "max-snippet", "zzzzzzzzzz": ""} {
		if got := Closest(name, cands); got != want {
			t.Errorf("Closest(%q) = %q, want %q", name, got, want)
		}
	}
}
