package syntax

import (
	"go/build"
	"strings"
	"testing"
	"time"
)

// module is the path of the module this package is in.
const module = "github.com/sitepolicy/caddy-robots"

// TestImportsNothingOfTheModule pins the layering: the lexical rules rest on the standard
// library alone, and the packages about crawler names, presets and configs rest on them (a
// rule about crawler names belongs to package crawlers). It reads the import lines of the
// package's source files, tests included, as the go command does.
func TestImportsNothingOfTheModule(t *testing.T) {
	p, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.GoFiles) == 0 {
		t.Fatal("no Go files read")
	}
	for _, imports := range [][]string{p.Imports, p.TestImports, p.XTestImports} {
		for _, imp := range imports {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				t.Errorf("internal/syntax imports %s: it holds lexical rules only and imports nothing of the module", imp)
			}
		}
	}
}

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
