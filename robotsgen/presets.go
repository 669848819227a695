package robotsgen

import (
	"fmt"
	"strings"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/internal/syntax"
)

// Expand returns f with the presets of every group written out as user agents, in place of
// Group.Presets: what Render writes and Parse reads back. A preset adds the catalogue's names
// of its category that may be written to robots.txt (crawlers.TokenProduct and TokenDigits),
// in catalogue order, after the group's own user agents, leaving out:
//   - a name the group already lists (case-insensitively, as crawlers compare),
//   - a name another group lists among its user agents: a crawler named explicitly has its
//     own group, which overrides the preset for it ("block ai-training except GPTBot on
//     /blog/"), and
//   - a name the group's Except lists: that crawler is simply not in the group, and obeys
//     whatever other group addresses it (a group naming it, another preset's group), or "*".
//
// Two preset groups that share a crawler both list it; a crawler merges its groups (RFC 9309
// section 2.2.1), and the Matcher does the same.
//
// With uaOnly, the names of the presets that are never written to robots.txt
// (crawlers.TokenUAOnly, such as "ChatGPT Agent") are added to their groups too, except those
// whose leading word is a user agent of the file ("iaskspider/2.0" when iaskspider is
// written): such a crawler reads the file as that token, so a User-Agent naming it must be
// decided as that token, not by the preset. For the same reason a name the group's Except
// lists, or whose leading word it lists, is left out (crawlers.PresetCrawlers). That file is
// not for rendering: NewMatcher on it decides for those names as their group says, which is what
// enforcement by User-Agent needs. Unknown categories and excluded names that are in none of
// the presets are skipped (Validate reports them). f is not modified; without presets,
// Expand returns f.
func (f *File) Expand(uaOnly bool) *File {
	has := false
	for i := range f.Groups {
		has = has || len(f.Groups[i].Presets) > 0
	}
	if !has {
		return f
	}
	named := map[string]bool{}
	for i := range f.Groups {
		for _, ua := range f.Groups[i].UserAgents {
			named[strings.ToLower(ua)] = true
		}
	}
	c := *f
	c.Groups = make([]Group, len(f.Groups))
	written := map[string]bool{}
	only := make([][]string, len(f.Groups)) // by group, the names never written
	for i, g := range f.Groups {
		if len(g.Presets) > 0 {
			agents := append([]string(nil), g.UserAgents...)
			var writable []string
			writable, only[i] = crawlers.RobotsTxtNames(crawlers.PresetCrawlers(g.Presets, g.Except))
			for _, n := range writable {
				if !named[strings.ToLower(n)] {
					agents = append(agents, n)
				}
			}
			g.UserAgents = agents
			g.Presets, g.Except = nil, nil
		}
		for _, ua := range g.UserAgents {
			written[strings.ToLower(ua)] = true
		}
		c.Groups[i] = g
	}
	if !uaOnly {
		return &c
	}
	for i := range f.Groups {
		for _, n := range only[i] {
			if !written[crawlers.LeadingToken(strings.ToLower(n))] {
				c.Groups[i].UserAgents = append(c.Groups[i].UserAgents, n)
			}
		}
	}
	return &c
}

// PresetProblem says what a preset may be: one of the catalogue's categories.
func PresetProblem() string {
	return "a preset is a category of the crawler catalogue: " + strings.Join(crawlers.Categories(), ", ")
}

// checkPresets reports the presets of group gi that are not categories, and the names of its
// Except that none of its presets holds or that the group names as its own user agents.
func checkPresets(f *File, gi int, add func(e *configerr.Error)) {
	g := &f.Groups[gi]
	for i, p := range g.Presets {
		if !crawlers.IsCategory(p) {
			e := configerr.New(configerr.Index(configerr.Index("groups", gi)+".presets", i), p, PresetProblem())
			e.Suggestion = configerr.Closest(strings.ToLower(p), crawlers.Categories())
			add(e)
		}
	}
	for i, n := range g.Except {
		at := configerr.Index(configerr.Index("groups", gi)+".except", i)
		if problem, suggestion := crawlers.ExceptProblem(n, g.Presets); problem != "" {
			add(&configerr.Error{Path: at, Value: n, Problem: problem, Suggestion: suggestion})
			continue
		}
		// The group would address the crawler and leave it out at once.
		for j, ua := range g.UserAgents {
			if strings.EqualFold(ua, n) {
				add(configerr.New(at, n, fmt.Sprintf("the group names this crawler as its own user agent too (user_agents[%d]): it cannot both address it and leave it out; remove one of the two", j)))
				break
			}
		}
	}
}

// checkAgentNotCategory refuses a user agent spelled like a category: it names no crawler,
// and the author almost certainly meant the preset.
func checkAgentNotCategory(ua string) string {
	if crawlers.IsCategory(ua) {
		return fmt.Sprintf("%q is a category of the crawler catalogue, not a crawler: name it as a preset (JSON \"presets\", Caddyfile preset)", strings.ToLower(ua))
	}
	return ""
}

// checkPurposeNotCrawler refuses a purpose token that is a catalogue crawler's name: Google's
// parser reads any key starting with "user-agent" as a user-agent line, so it would read the
// purpose group as a group for that crawler. It reads the value only as far as
// syntax.GoogleAgentToken says, so "GPTBot2" is read as GPTBot and refused too.
func checkPurposeNotCrawler(p string) string {
	if c, ok := crawlers.Lookup(p); ok {
		return fmt.Sprintf("a purpose token must not be the name of a crawler (%s): Google's parser reads User-Agent-Purpose as a user-agent line, so the group would address that crawler", c.Name)
	}
	if lead := syntax.GoogleAgentToken(p); lead != p && lead != "" {
		if c, ok := crawlers.Lookup(lead); ok {
			return fmt.Sprintf("a purpose token must not start with the name of a crawler followed by a digit (%s): Google's parser reads User-Agent-Purpose as a user-agent line, and only up to the first digit, so the group would address that crawler", c.Name)
		}
	}
	return ""
}

// agentWarnings is the part of Warnings about user agents: a name with digits (see
// crawlers.DigitTokenWarning), and a group with presets that says nothing to their crawlers.
func (f *File) agentWarnings() []*configerr.Error {
	var out []*configerr.Error
	for gi := range f.Groups {
		if g := &f.Groups[gi]; len(g.Presets) > 0 && len(g.Rules) == 0 && g.CrawlDelay == 0 && len(g.Records) == 0 &&
			len(g.ContentUsage) == 0 && len(g.ContentSignal) == 0 {
			out = append(out, configerr.New(configerr.Index("groups", gi)+".presets", strings.Join(g.Presets, " "),
				"the group has no rules, so its crawlers may fetch every path (and enforce refuses none of them); to keep them out, add disallow /"))
		}
		for i, ua := range f.Groups[gi].UserAgents {
			if crawlers.Classify(ua) == crawlers.TokenDigits {
				out = append(out, configerr.New(configerr.Index(configerr.Index("groups", gi)+".user_agents", i), ua, crawlers.DigitTokenWarning))
			}
		}
	}
	return out
}
