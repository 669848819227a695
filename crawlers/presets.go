package crawlers

import (
	"fmt"
	"strings"

	"github.com/sitepolicy/caddy-robots/configerr"
)

// PresetCrawlers expands presets (categories, as a robots.txt group or a Robots-Tag route
// names them) into their crawlers: those of each category in turn, in All's order, each
// once without regard to case (the first spelling), leaving out those except leaves out. A
// name is left out when except lists it, or lists its leading word (LeadingToken),
// compared without regard to case: a crawler whose name is never written to robots.txt reads
// the file as its leading word ("MistralAI-User/1.0" reads it as MistralAI-User), so leaving
// that word out leaves the crawler out too; otherwise enforcement, which matches the whole
// name, would refuse it by the preset's rules where the file it reads no longer gives them.
// Unknown categories are skipped (ExceptProblem and the callers' checks report them);
// RobotsTxtNames splits the result for a robots.txt writer.
func PresetCrawlers(presets, except []string) []Crawler {
	left := newExcluded(except)
	lower := aiIndex().lower
	var out []Crawler
	seen := map[string]bool{}
	for _, p := range presets {
		m, ok := maskOf(p)
		if !ok {
			continue
		}
		// Category's crawlers, in its order.
		for i := range catalog {
			if !catalog[i].in(m) {
				continue
			}
			if k := lower[i]; !seen[k] && !left.has(k) {
				seen[k] = true
				out = append(out, catalog[i].crawler())
			}
		}
	}
	return out
}

// excluded is the set of names PresetCrawlers leaves out, folded to lower case as crawlers
// compare names (ASCII case-insensitively, as Lookup, RobotsTxtNames and robots.txt matching
// do). The nil set excludes nothing.
type excluded map[string]bool

func newExcluded(names []string) excluded {
	if len(names) == 0 {
		return nil
	}
	e := make(excluded, len(names))
	for _, n := range names {
		e[strings.ToLower(n)] = true
	}
	return e
}

// has reports whether the set leaves name out: name is in it, or its leading word is; never
// a longer name that merely starts with one.
func (e excluded) has(name string) bool {
	if len(e) == 0 {
		return false
	}
	k := strings.ToLower(name)
	return e[k] || e[LeadingToken(k)]
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
		cs, err := Category(p)
		if err != nil {
			continue
		}
		known = append(known, strings.ToLower(p))
		writable, uaOnly := RobotsTxtNames(cs)
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
	if c, ok := Lookup(name); ok {
		return fmt.Sprintf("%s is a crawler of %s, not of the presets it would be left out of (%s)", c.Name, strings.Join(c.Categories, ", "), in), ""
	}
	if id, ok := IdentifyBot(name); ok {
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
