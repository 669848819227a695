package tagemit

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
)

// PresetPrefix starts a rules key that names a category of the crawler catalogue instead of
// a product token: "preset:ai-training". No product token holds ":", so a misspelt category
// is an error, never a token for a crawler that does not exist.
const PresetPrefix = "preset:"

// presetCategory returns the category a "preset:<category>" key names; ok is false for any
// other key.
func presetCategory(key string) (category string, ok bool) {
	if len(key) < len(PresetPrefix) || !strings.EqualFold(key[:len(PresetPrefix)], PresetPrefix) {
		return "", false
	}
	return key[len(PresetPrefix):], true
}

// presetTokens reads a "preset:<category>" key: ok is false for any other key. For a known
// category it returns the category's canonical (lower-case) tokens, less those except leaves
// out (crawlers.PresetCrawlers), else a problem listing the known categories.
func presetTokens(key string, except []string) (tokens []string, problem *configerr.Error, ok bool) {
	cat, ok := presetCategory(key)
	if !ok {
		return nil, nil, false
	}
	if !crawlers.IsCategory(cat) {
		e := &configerr.Error{Value: key, Problem: fmt.Sprintf("%s names a category of the crawler catalogue: %s", PresetPrefix, strings.Join(crawlers.Categories(), ", "))}
		if c := configerr.Closest(strings.ToLower(cat), crawlers.Categories()); c != "" {
			e.Suggestion = PresetPrefix + c
		}
		return nil, e, true
	}
	writable, _ := crawlers.RobotsTxtNames(crawlers.PresetCrawlers([]string{cat}, except))
	for _, n := range writable {
		if ctok, problem, _ := checkToken(n); problem == "" {
			tokens = append(tokens, ctok)
		}
	}
	return tokens, nil, true
}

// CheckExcept reports the names of except (the crawlers NewPolicyExcept leaves out of the
// presets of rules) that no preset of rules holds, each at its index ("[1]") with the
// presets searched and the closest crawler of them: what every front end says
// (crawlers.ExceptProblem). A name that also has rules of its own is no contradiction: it keeps
// them, without the presets'.
func CheckExcept(rules map[string][]string, except []string) error {
	if len(except) == 0 {
		return nil
	}
	var presets []string
	for _, key := range slices.Sorted(maps.Keys(rules)) {
		if cat, ok := presetCategory(key); ok {
			presets = append(presets, cat)
		}
	}
	var errs []error
	for i, n := range except {
		if problem, suggestion := crawlers.ExceptProblem(n, presets); problem != "" {
			errs = append(errs, &configerr.Error{Path: configerr.Index("", i), Value: n, Problem: problem, Suggestion: suggestion})
		} else if !crawlers.IsToken(n) {
			errs = append(errs, configerr.New(configerr.Index("", i), n, "this name is never a Robots-Tag token (it is not a product token), so the presets give it no rules to leave out"))
		}
	}
	return errors.Join(errs...)
}

// Warnings reports what in a valid rules map (as NewPolicy takes it) may not be read as
// meant, at the paths NewPolicy's errors use: a token with digits (AI2Bot), which a strict
// RFC 9309 parser reads only up to the first digit. The front ends log them when the config
// loads.
func Warnings(rules map[string][]string) []*configerr.Error {
	var out []*configerr.Error
	for _, tok := range slices.Sorted(maps.Keys(rules)) {
		if crawlers.Classify(tok) == crawlers.TokenDigits {
			out = append(out, &configerr.Error{Path: configerr.Key("", tok), Value: tok, Problem: crawlers.DigitTokenWarning})
		}
	}
	return out
}
