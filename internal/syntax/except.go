package syntax

import (
	"fmt"
	"strings"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
)

// Excluded is the set of crawler names that presets leave out (robotsgen.Group.Except,
// policy.Tags.Except), keyed as crawlers compare names: ASCII case-insensitively, as Lookup,
// RobotsTxtNames and robots.txt matching do. The nil set excludes nothing.
type Excluded map[string]bool

// NewExcluded returns the set of names; nil for none.
func NewExcluded(names []string) Excluded {
	if len(names) == 0 {
		return nil
	}
	e := make(Excluded, len(names))
	for _, n := range names {
		e[strings.ToLower(n)] = true
	}
	return e
}

// Has reports whether a preset leaves name out: name is in the set, or its leading word is
// (LeadingCrawlerToken). A crawler whose name is never written to robots.txt reads the file as
// its leading word ("MistralAI-User/1.0" reads it as MistralAI-User), so leaving that word out
// leaves the crawler out too; otherwise enforcement, which matches the whole name, would
// refuse it by the preset's rules where the file it reads no longer gives them.
func (e Excluded) Has(name string) bool {
	if len(e) == 0 {
		return false
	}
	k := strings.ToLower(name)
	return e[k] || e[LeadingCrawlerToken(k)]
}

// ExceptProblem is what every front end says about name, listed to be left out of the
// presets (categories of the crawler catalogue) of a group or route: "" when a crawler of one
// of them has that name; otherwise the problem, naming the presets searched, and the name of
// those presets' crawlers that name most likely meant ("" when none is close). Unknown
// categories are skipped (their own check reports them); with no known category at all the
// problem says the exclusion has nothing to leave out of.
func ExceptProblem(name string, presets []string) (problem, suggestion string) {
	var known []string
	var names []string
	for _, p := range presets {
		cs, err := crawlers.Category(p)
		if err != nil {
			continue
		}
		known = append(known, strings.ToLower(p))
		writable, uaOnly := crawlers.RobotsTxtNames(cs)
		for _, n := range append(writable, uaOnly...) {
			if strings.EqualFold(n, name) {
				return "", ""
			}
			names = append(names, n)
		}
	}
	if len(known) == 0 {
		if len(presets) == 0 {
			return "except leaves crawlers out of the presets beside it, and there are none here: to give a crawler rules of its own, name it", ""
		}
		return "", "" // the presets are all unknown, which is reported for them
	}
	in := strings.Join(known, ", ")
	if c, ok := crawlers.Lookup(name); ok {
		return fmt.Sprintf("%s is a crawler of %s, not of the presets it would be left out of (%s)", c.Name, strings.Join(c.Categories, ", "), in), ""
	}
	if id, ok := crawlers.IdentifyBot(name); ok {
		// A search engine's crawler, say, is close in spelling to some AI crawler's name
		// (Googlebot, GoogleOther); suggesting that one would mislead.
		return fmt.Sprintf("this is not a crawler of the AI catalogue (it is the well-known bot %s), so no preset addresses it and there is nothing to leave out", id), ""
	}
	lower := make([]string, len(names))
	for i, n := range names {
		lower[i] = strings.ToLower(n)
	}
	if c := configerr.Closest(strings.ToLower(name), lower); c != "" {
		for i := range lower {
			if lower[i] == c {
				suggestion = names[i]
				break
			}
		}
	}
	return fmt.Sprintf("no crawler of the presets (%s) has this name: except takes crawler names as the catalogue writes them (case aside)", in), suggestion
}
