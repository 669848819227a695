package caddymodule

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/sitepolicy/caddy-robots/configerr"
)

// loadCaddyfile adapts a whole Caddyfile and validates the result as Caddy's load does
// (every module provisioned, nothing started): the error is the one "caddy run" would print.
func loadCaddyfile(cfg, filename string) error {
	out, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cfg), map[string]any{"filename": filename})
	if err != nil {
		return err
	}
	var c caddy.Config
	if err := json.Unmarshal(out, &c); err != nil {
		return err
	}
	return caddy.Validate(&c)
}

// suggestionMistakes are mistakes whose errors suggest a fix, beside those of
// misplacedCaddyfiles and badCaddyfiles; the marked line is where the error must be.
var suggestionMistakes = []struct{ name, site string }{
	{"except at the top of robots_txt", "robots_txt {\n\tpreset ai-all {\n\t\tdisallow /\n\t}\n\texcept Applebot # <-\n}"},
	{"except of two crawlers at the top", "robots_txt {\n\texcept Applebot facebookexternalhit # <-\n}"},
	{"log_violations on", "robots_txt {\n\tlog_violations on # <-\n}"},
	{"metrics yes", "robots_txt {\n\tmetrics yes # <-\n}"},
	{"enforce impostor", "robots_txt {\n\tgroup GPTBot {\n\t\tdisallow /\n\t}\n\tenforce {\n\t\timpostor # <-\n\t}\n}"},
	{"enforce crawl-delay", "robots_txt {\n\tgroup GPTBot {\n\t\tdisallow /\n\t\tcrawl_delay 5\n\t}\n\tenforce {\n\t\tcrawl-delay # <-\n\t}\n}"},
	{"enforce accept_signatures", "robots_txt {\n\tgroup GPTBot {\n\t\tdisallow /\n\t}\n\tenforce {\n\t\taccept_signatures # <-\n\t}\n}"},
	{"license_document contents", "robots_txt {\n\tlicense_document /license.xml {\n\t\tcontents https://example.com/ { # <-\n\t\t\tpermits ai-all\n\t\t}\n\t}\n}"},
	{"group sitemap after rules", "robots_txt {\n\tgroup * {\n\t\tdisallow /a\n\t\tsitemap /s.xml # <-\n\t\tallow /b\n\t}\n\tgroup GPTBot {\n\t\tdisallow /\n\t}\n}"},
	{"preset block max_age", "robots_txt {\n\tpreset ai-training {\n\t\tdisallow /\n\t\tmax_age 1d # <-\n\t}\n}"},
}

var (
	quoted        = `"((?:[^"\\]|\\.)*)"`
	lineForm      = regexp.MustCompile(`a line ` + quoted + `, then ` + quoted + `, then ` + quoted)
	putAfterGroup = regexp.MustCompile(`put ` + quoted + ` in robots_txt's block, after this group's closing`)
	putInBlock    = regexp.MustCompile(`put ` + quoted + ` in (robots_txt's block|a robots_tag block|a group of robots_txt)`)
	writeAlone    = regexp.MustCompile(`write ` + quoted + ` alone`)
	didYouMean    = regexp.MustCompile(`did you mean ` + quoted)
	errorLine     = regexp.MustCompile(`, at Caddyfile:(\d+)`)
	// suggests is what a message says when it suggests a config: every such message must be
	// one the test can apply.
	suggests = regexp.MustCompile(`did you mean|a line "|put "|write "`)
)

// applySuggestion rewrites cfg as the error message msg suggests, at the line the message
// names; ok is false when the message suggests no config.
func applySuggestion(t *testing.T, cfg, msg string) (fixed string, ok bool) {
	t.Helper()
	m := errorLine.FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("the error names no line: %s", msg)
	}
	n, _ := strconv.Atoi(m[1])
	lines := strings.Split(cfg, "\n")
	i := n - 1
	unq := func(s string) string {
		u, err := strconv.Unquote(`"` + s + `"`)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return u
	}
	indent := lines[i][:len(lines[i])-len(strings.TrimLeft(lines[i], "\t"))]
	without := func() []string { return append(append([]string(nil), lines[:i]...), lines[i+1:]...) }
	switch {
	case lineForm.MatchString(msg):
		s := lineForm.FindStringSubmatch(msg)
		repl := []string{indent + unq(s[1]), indent + "\t" + unq(s[2]), indent + unq(s[3])}
		lines = append(lines[:i], append(repl, lines[i+1:]...)...)
	case putAfterGroup.MatchString(msg):
		l := unq(putAfterGroup.FindStringSubmatch(msg)[1])
		rest := without()
		// The group's closing brace: the first "}" after the line, one tab less indented.
		for j := i; j < len(rest); j++ {
			if rest[j] == indent[1:]+"}" {
				rest = append(rest[:j+1], append([]string{indent[1:] + l}, rest[j+1:]...)...)
				break
			}
		}
		lines = rest
	case putInBlock.MatchString(msg):
		s := putInBlock.FindStringSubmatch(msg)
		block := map[string]string{
			"robots_txt's block":    "robots_txt {\n\t%s\n}",
			"a robots_tag block":    "robots_tag noindex {\n\t%s\n}",
			"a group of robots_txt": "robots_txt {\n\tgroup * {\n\t\t%s\n\t}\n}",
		}[s[2]]
		rest := without()
		// A block the line was alone in goes too, as the user moving it would remove it.
		if i > 0 && i < len(rest) && strings.TrimSpace(rest[i]) == "}" && len(strings.Fields(rest[i-1])) == 2 && strings.HasSuffix(rest[i-1], " {") {
			rest = append(rest[:i-1], rest[i+1:]...)
		}
		// Into the site, before its closing brace (the last one).
		last := len(rest) - 1
		for rest[last] != "}" {
			last--
		}
		add := strings.Split(fmt.Sprintf(block, unq(s[1])), "\n")
		lines = append(rest[:last], append(add, rest[last:]...)...)
	case writeAlone.MatchString(msg):
		lines[i] = indent + unq(writeAlone.FindStringSubmatch(msg)[1])
	case didYouMean.MatchString(msg):
		// The name replaces the word of the line nearest to it ("preset:ai-training", a
		// rule's name, replaces the category written after preset).
		name := unq(didYouMean.FindStringSubmatch(msg)[1])
		code, _, _ := strings.Cut(lines[i], "#")
		f := strings.Fields(code)
		if !strings.Contains(code, ":") {
			if _, after, ok := strings.Cut(name, ":"); ok {
				name = after
			}
		}
		best := 0
		for k := range f {
			if f[k] == "{" || f[k] == "}" {
				continue
			}
			if f[best] == "{" || configerr.Distance(strings.ToLower(f[k]), strings.ToLower(name)) < configerr.Distance(strings.ToLower(f[best]), strings.ToLower(name)) {
				best = k
			}
		}
		f[best] = name
		lines[i] = indent + strings.Join(f, " ")
	default:
		if suggests.MatchString(msg) {
			t.Errorf("the message suggests a config the test cannot apply: %s", msg)
		}
		return cfg, false
	}
	return strings.Join(lines, "\n"), true
}

// TestSuggestionsLoad: every error of the directives that suggests a config (did you mean,
// where a line goes, what to write) suggests one that loads: the test applies it to the
// Caddyfile and loads that, over every mistake of the tables.
func TestSuggestionsLoad(t *testing.T) {
	var sites []string
	for _, c := range suggestionMistakes {
		sites = append(sites, c.site)
	}
	for _, c := range misplacedCaddyfiles {
		sites = append(sites, c.site)
	}
	for _, c := range badCaddyfiles {
		sites = append(sites, c.site)
	}
	applied := 0
	for _, site := range sites {
		cfg, line := badCaddyfile(t, site)
		err := loadCaddyfile(cfg, "Caddyfile")
		if err == nil {
			t.Errorf("loaded without error:\n%s", cfg)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, fmt.Sprintf(", at Caddyfile:%d", line)) {
			continue // an error of Caddy's own, or one without a suggestion's place
		}
		if strings.Contains(msg, "\n") {
			continue // several problems, which one suggestion cannot all fix
		}
		fixed, ok := applySuggestion(t, cfg, msg)
		if !ok {
			continue
		}
		applied++
		if err := loadCaddyfile(fixed, "Caddyfile"); err != nil {
			t.Errorf("the suggestion of\n\t%s\ndoes not load: %v\n%s", msg, err, fixed)
		}
	}
	if applied < len(suggestionMistakes)+len(misplacedCaddyfiles)/2 {
		t.Errorf("only %d suggestions applied", applied)
	}
	t.Logf("%d suggestions applied and loaded, of %d mistakes", applied, len(sites))
}

// TestSuggestionMessages: the messages of suggestionMistakes say what the fix is.
func TestSuggestionMessages(t *testing.T) {
	for _, c := range []struct{ site, want string }{
		{suggestionMistakes[0].site, `except goes inside a preset block, and leaves crawlers out of the block's categories: put it in the preset block it belongs to (before or after the block's rules), e.g. for every AI crawler of the catalogue, a line "preset ai-all {", then "except Applebot", then "}"`},
		{suggestionMistakes[2].site, `robots_txt: log_violations takes no argument: write "log_violations" alone to turn it on, and leave it out for off`},
		{suggestionMistakes[4].site, `robots_txt: enforce's block takes impostors, accept_signature, crawl_delay (got "impostor") (did you mean "impostors"?)`},
		{"robots_txt {\n\texcept NotACrawler # <-\n}", `"NotACrawler" is not a crawler of the AI catalogue, which presets are made of, so there is nothing to leave it out of: to give it rules of its own, name it in a group`},
	} {
		cfg, _ := badCaddyfile(t, c.site)
		err := loadCaddyfile(cfg, "Caddyfile")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v\nwant %s", err, c.want)
		}
	}
}
