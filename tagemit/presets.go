package tagemit

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/internal/syntax"
)

// PresetPrefix starts a rules key that names a category of the crawler catalogue instead of
// a product token: "preset:ai-training". No product token holds ":", so a misspelt category
// is an error, never a token for a crawler that does not exist.
const PresetPrefix = "preset:"

// presetTokens reads a "preset:<category>" key: ok is false for any other key. For a known
// category it returns the category's canonical (lower-case) tokens, else a problem listing
// the known categories.
func presetTokens(key string) (tokens []string, problem *configerr.Error, ok bool) {
	if len(key) < len(PresetPrefix) || !strings.EqualFold(key[:len(PresetPrefix)], PresetPrefix) {
		return nil, nil, false
	}
	cat := key[len(PresetPrefix):]
	cs, err := crawlers.Category(cat)
	if err != nil {
		e := &configerr.Error{Value: key, Problem: fmt.Sprintf("%s names a category of the crawler catalogue: %s", PresetPrefix, strings.Join(crawlers.Categories(), ", "))}
		if c := configerr.Closest(strings.ToLower(cat), crawlers.Categories()); c != "" {
			e.Suggestion = PresetPrefix + c
		}
		return nil, e, true
	}
	writable, _ := crawlers.RobotsTxtNames(cs)
	for _, n := range writable {
		if ctok, problem, _ := checkToken(n); problem == "" {
			tokens = append(tokens, ctok)
		}
	}
	return tokens, nil, true
}

// Warnings reports what in a valid rules map (as NewPolicy takes it) may not be read as
// meant, at the paths NewPolicy's errors use: a token with digits (AI2Bot), which a strict
// RFC 9309 parser reads only up to the first digit. The front ends log them when the config
// loads.
func Warnings(rules map[string][]string) []*configerr.Error {
	var out []*configerr.Error
	for _, tok := range slices.Sorted(maps.Keys(rules)) {
		if tok != GlobalToken && !syntax.ProductToken(tok) && syntax.CrawlerToken(tok) {
			out = append(out, &configerr.Error{Path: configerr.Key("", tok), Value: tok, Problem: syntax.DigitTokenWarning})
		}
	}
	return out
}
