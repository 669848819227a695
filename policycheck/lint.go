package policycheck

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/tagemit"
	"github.com/sitepolicy/caddy-robots/usage"
)

// Severity ranks findings. Lint's command exits 1 when a finding is a warning or an error.
type Severity string

// The severities, most severe first.
const (
	// SeverityError: the config does not do what it says at all.
	SeverityError Severity = "error"
	// SeverityWarning: part of the policy defeats itself or has no effect.
	SeverityWarning Severity = "warning"
	// SeverityInfo: worth a look, often intended.
	SeverityInfo Severity = "info"
)

// AtLeastWarning reports whether s is a warning or an error.
func (s Severity) AtLeastWarning() bool { return s == SeverityError || s == SeverityWarning }

// The lints, by the name a Finding carries.
const (
	LintUnseenTags       = "unseen-tags"            // noindex (or meta) on pages robots.txt keeps the crawler from
	LintShadowedRule     = "shadowed-rule"          // an Allow/Disallow that a longer rule of the other kind always overrides
	LintDuplicateRule    = "duplicate-rule"         // an Allow/Disallow repeated in its group
	LintMisspeltCrawler  = "misspelt-crawler"       // a token one or two edits from a well-known crawler name
	LintCrawlDelayGoogle = "crawl-delay-google"     // Crawl-delay in a group only Google's crawlers read
	LintSitemapHost      = "sitemap-other-host"     // an absolute sitemap on a host the site does not serve
	LintRelativeSitemap  = "relative-sitemap-hosts" // a sitemap path on a site with several hosts
	LintXRobotsTagAlone  = "x-robots-tag-without-robots-tag"
	LintRedundantRoute   = "redundant-route" // a route whose tags a broader route already gives
	LintRobotsTxtSize    = "robots-txt-size" // robots.txt over 80 % of 500 KiB
	// LintOverriddenUsage: a route's content_usage "y" that a route on all of its paths
	// turns into "n" (the header combines routes, any n winning), so it never reaches a
	// response.
	LintOverriddenUsage = "overridden-usage"
	// LintUsageUnreachable: a Content-Usage or Content-Signal rule under a path its crawlers
	// may not fetch, or a file-level one (no crawler reads it): it has no effect.
	LintUsageUnreachable = "unreachable-usage"
	// LintEmptyPreset: a preset group with no rules lets a whole category fetch everything.
	LintEmptyPreset = "empty-preset-group"
	// LintDigitToken: a name with digits, which Google's parser reads only up to the digit.
	LintDigitToken = "digit-token"
	// LintExceptToStar: a crawler a preset group leaves out (except) that no other group
	// names reads the "*" group, or none, which allows paths the preset group disallows:
	// often the point of the exclusion, worth a look when it is not.
	LintExceptToStar = "except-falls-to-star"
	// LintSignalConflict: two signals of the site (robots.txt Content-Usage or
	// Content-Signal, the Content-Usage header, TDMRep, an RSL licence) answer the same use
	// (AI training, search, AI input) differently for some crawler at some path.
	LintSignalConflict = "signal-conflict"
	// LintTrainingUnstated: robots.txt lets AI training crawlers fetch every path and no
	// signal of the site refuses AI training anywhere (informational).
	LintTrainingUnstated = "training-unstated"
	// LintLicenseNotServed: an RSL license (robots.txt License line, a route's Link) on the
	// site itself that no license_document of the config serves: the backend must answer it.
	LintLicenseNotServed = "license-not-served"
	// LintPresetUserFetchers: a preset group that enforcement makes binding includes
	// fetchers that act for a person — link-preview agents (a link shared on a social
	// network or in a chat), and AI assistants' user-triggered fetchers that only ai-all
	// brings in (none of their own categories is named) — which are then refused where the
	// group disallows.
	LintPresetUserFetchers = "preset-refuses-user-fetchers"
)

// Finding is one problem Lint found. Its JSON form is the output of "lint --format json".
type Finding struct {
	// Lint names the check that found it (the Lint* constants).
	Lint string `json:"lint"`
	// Severity is "error", "warning" or "info".
	Severity Severity `json:"severity"`
	// Site names the site, when the config has several.
	Site string `json:"site,omitempty"`
	// Location is the Caddyfile line (or the JSON path) of the config part at fault.
	Location Location `json:"location"`
	// Message says what is wrong.
	Message string `json:"message"`
	// Fix says, in one line, how to fix it.
	Fix string `json:"fix"`
}

// String formats f as "place: severity: message [lint]" and an indented "fix:" line.
func (f Finding) String() string {
	return fmt.Sprintf("%s: %s: %s [%s]\n\tfix: %s", f.Location, f.Severity, f.Message, f.Lint, f.Fix)
}

// sizeWarning is the robots.txt size from which LintRobotsTxtSize warns.
const sizeWarning = robotsgen.MaxSize * 8 / 10

// Lint returns the findings on site, sorted by place. An error means the config is invalid
// (every front end refuses it); findings are only for valid configs.
func Lint(site *Site) ([]Finding, error) {
	if err := validate(site); err != nil {
		return nil, err
	}
	l := newLinter(site)
	if site.RobotsTxt != nil {
		l.robotsRules()
		l.exceptFallback()
		l.presetUserFetchers()
		l.fileWarnings()
		l.usageConflicts()
		l.sitemaps()
		l.size()
		l.prices()
	}
	for i := range site.Routes {
		l.unseenTags(&site.Routes[i])
		l.routeTokens(&site.Routes[i])
		l.xRobotsTagAlone(&site.Routes[i])
	}
	l.redundantRoutes()
	l.signalConflicts()
	l.trainingUnstated()
	l.licensesServed()
	sort.SliceStable(l.out, func(i, j int) bool {
		a, b := l.out[i].Location, l.out[j].Location
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.JSONPath < b.JSONPath
	})
	return l.out, nil
}

type linter struct {
	site *Site
	file *robotsgen.File
	// expanded is file with its presets written out as user agents.
	expanded *robotsgen.File
	m        *robotsgen.Matcher
	out      []Finding
	// routeGlobs are, per route, its path patterns as lower-case globs ("*" for a route
	// without paths); nil for a route with another condition (routesAt).
	routeGlobs [][]string
}

// newLinter prepares the lints of a valid site.
func newLinter(site *Site) *linter {
	l := &linter{site: site}
	if site.RobotsTxt != nil {
		f := site.RobotsTxt.File()
		l.file = &f
		// Presets are decided as the crawlers they name, as the rendered file says.
		l.expanded = f.Expand(false)
		l.m = robotsgen.NewMatcher(l.expanded)
	}
	return l
}

func (l *linter) add(lint string, sev Severity, loc Location, fix, format string, args ...any) {
	l.out = append(l.out, Finding{Lint: lint, Severity: sev, Site: l.site.Name, Location: loc, Message: fmt.Sprintf(format, args...), Fix: fix})
}

func (l *linter) robotsAt(field string) Location { return l.site.RobotsTxt.Source.At(field) }

// usageConflicts reports, in each group, a preference rule's "y" (or "yes") that another rule
// with the same path sets to "n" ("no"): rules with identical paths combine with any n
// winning, so the y never applies.
func (l *linter) usageConflicts() {
	for gi, g := range l.file.Groups {
		for _, vl := range []struct {
			field string
			rules []usage.Rule
			vocab usage.Vocab
		}{{"content_usage", g.ContentUsage, usage.ContentUsage}, {"content_signal", g.ContentSignal, usage.ContentSignal}} {
			yes, no := vl.vocab.Value(usage.Allow), vl.vocab.Value(usage.Disallow)
			for i, a := range vl.rules {
				for j, b := range vl.rules {
					if i == j || a.Path != b.Path {
						continue
					}
					var keys []string
					for _, k := range slices.Sorted(maps.Keys(a.Preferences)) {
						if a.Preferences[k] == yes && b.Preferences[k] == no {
							keys = append(keys, k+"="+yes)
						}
					}
					if len(keys) == 0 {
						continue
					}
					path := a.Path
					if path == "" {
						path = "every path"
					}
					l.add(LintOverriddenUsage, SeverityWarning, l.robotsAt(configerr.Index(configerr.Index("groups", gi)+"."+vl.field, i)),
						"remove one of the two rules, or give the y to a more specific path",
						"%s for %s is never read: the group's rule %d for the same path says %s, and rules with the same path combine with any %s winning",
						strings.Join(keys, ", "), path, j, no, no)
					break
				}
			}
		}
	}
}

// fileWarnings reports what the config load warns about (robotsgen.File.Warnings), so that
// lint lists every finding the log would show.
func (l *linter) fileWarnings() {
	for _, w := range l.file.Warnings() {
		loc := l.robotsAt(w.Path)
		switch {
		case strings.Contains(w.Path, ".content_usage[") || strings.Contains(w.Path, ".content_signal[") || strings.HasPrefix(w.Path, "records["):
			l.add(LintUsageUnreachable, SeverityWarning, loc,
				"move the rule to a path its crawlers may fetch (or into a group), or remove it",
				"%s: %s", w.Value, w.Problem)
		case strings.HasSuffix(w.Path, ".presets"):
			l.add(LintEmptyPreset, SeverityWarning, loc, "add disallow / (or the paths to keep them from) to the group",
				"preset %s: %s", w.Value, w.Problem)
		case strings.Contains(w.Path, ".user_agents["):
			l.add(LintDigitToken, SeverityInfo, loc, "keep it if the crawler's operator documents this name; there is no spelling every parser reads whole",
				"%q: %s", w.Value, w.Problem)
		default:
			l.add("robots-txt-warning", SeverityWarning, loc, "see the message", "%s: %s", w.Value, w.Problem)
		}
	}
}

// robotsRules runs the lints on robots.txt groups: dead rules, misspelt tokens, Crawl-delay
// for Google.
func (l *linter) robotsRules() {
	for gi, g := range l.file.Groups {
		gpath := configerr.Index("groups", gi)
		for k, ua := range g.UserAgents {
			if n := misspelling(ua); n != "" {
				l.add(LintMisspeltCrawler, SeverityWarning, l.robotsAt(configerr.Index(gpath+".user_agents", k)),
					fmt.Sprintf("write %s if you mean that crawler (matching ignores case, not spelling)", n),
					"robots.txt group for %q: no crawler is known by that name; it looks like a misspelling of %s, which this group then does not address", ua, n)
			}
		}
		if g.CrawlDelay != 0 && len(g.Purposes) == 0 && len(g.UserAgents) > 0 && allGoogle(g.UserAgents) {
			l.add(LintCrawlDelayGoogle, SeverityWarning, l.robotsAt(gpath+".crawl_delay"),
				"remove crawl_delay: Google's crawlers ignore it and adapt their rate to how fast and how successfully the server answers",
				"crawl_delay %s in a group only for %s: Google does not read Crawl-delay, so it has no effect", formatFloat(g.CrawlDelay), strings.Join(g.UserAgents, ", "))
		}
		l.deadRules(gi, &g)
	}
}

// exceptFallback reports each crawler a preset group leaves out that then reads the "*" group
// (or no group at all) where that is more permissive than the preset group: a path the file
// would disallow to it without the exclusion is allowed. Crawlers another group names keep
// that group, which says what it is meant to; names never written to robots.txt are decided
// only by enforcement, which never refuses by "*". The paths tried are "/" and each pattern of
// the preset group read as a path (its wildcards matching nothing).
func (l *linter) exceptFallback() {
	for gi, g := range l.file.Groups {
		if len(g.Except) == 0 {
			continue
		}
		without := *l.file
		without.Groups = slices.Clone(l.file.Groups)
		without.Groups[gi].Except = nil
		before := robotsgen.NewMatcher(&without)
		for i, name := range g.Except {
			if !crawlers.IsToken(name) {
				continue
			}
			if d := l.m.Decide(name, "", "/"); d.Group >= 0 && slices.ContainsFunc(l.expanded.Groups[d.Group].UserAgents, func(ua string) bool { return strings.EqualFold(ua, name) }) {
				continue
			}
			paths := []string{"/"}
			for _, r := range g.Rules {
				paths = append(paths, patternPath(r.Path))
			}
			for _, p := range paths {
				was, now := before.Decide(name, "", p), l.m.Decide(name, "", p)
				if was.Allowed || !now.Allowed || was.Rule == nil {
					continue
				}
				reads := "the * group instead"
				if now.Group < 0 {
					reads = "no group (the file has no * group)"
				}
				l.add(LintExceptToStar, SeverityInfo, l.robotsAt(configerr.Index(configerr.Index("groups", gi)+".except", i)),
					fmt.Sprintf("if %s should keep some of the preset's rules, name it in a group of its own with them", name),
					"%s, left out of the preset group by except, reads %s: it may fetch %s, which the preset group disallows (%s: %s)", name, reads, p, was.Rule.Type, was.Rule.Path)
				break
			}
		}
	}
}

// presetUserFetchers reports, in a robots.txt with enforcement, each preset group with a
// disallow rule whose presets include crawlers that fetch for a person (LintPresetUserFetchers)
// and that neither the group's except nor another group's name takes out of it: enforcement
// refuses them where the group disallows. The fix is the except line that keeps them, which
// names each crawler as the catalogue writes it.
func (l *linter) presetUserFetchers() {
	if l.site.RobotsTxt.Config.Enforce == nil {
		return
	}
	named := map[string]bool{}
	for _, g := range l.file.Groups {
		for _, ua := range g.UserAgents {
			named[strings.ToLower(ua)] = true
		}
	}
	for gi, g := range l.file.Groups {
		if len(g.Presets) == 0 || !slices.ContainsFunc(g.Rules, func(r robotsgen.Rule) bool { return r.Type == robotsgen.Disallow && r.Path != "" }) {
			continue
		}
		// A fetcher in a category the group names (PetalBot is in ai-search too) is kept
		// out on purpose; one that only ai-all brings in is not.
		chosen := func(c crawlers.Crawler) bool {
			return slices.ContainsFunc(c.Categories[1:], func(cat string) bool {
				return slices.ContainsFunc(g.Presets, func(p string) bool { return strings.EqualFold(p, cat) })
			})
		}
		seen := map[string]bool{}
		var previews, users []string
		for _, c := range crawlers.PresetCrawlers(g.Presets, g.Except) {
			k := strings.ToLower(c.Name)
			// A name read as its leading word ("MistralAI-User/1.0") goes with it.
			lead := crawlers.LeadingToken(k)
			if seen[lead] || named[k] || named[lead] {
				continue
			}
			seen[k] = true
			switch {
			case linkPreview(c.Name):
				previews = append(previews, c.Name)
			case c.In(crawlers.AIAssistants) && !chosen(c):
				users = append(users, c.Name)
			}
		}
		if len(previews)+len(users) == 0 {
			continue
		}
		var what []string
		if len(previews) > 0 {
			what = append(what, fmt.Sprintf("%d link-preview agent(s) (%s), which fetch a page when someone shares its link", len(previews), strings.Join(previews, ", ")))
		}
		if len(users) > 0 {
			what = append(what, fmt.Sprintf("%d user-triggered fetcher(s) of AI assistants (%s), which fetch a page a person asked about", len(users), strings.Join(users, ", ")))
		}
		keep := append(previews, users...)
		for i, n := range keep {
			if strings.ContainsAny(n, " \t") {
				keep[i] = strconv.Quote(n) // a Caddyfile token with spaces is quoted
			}
		}
		l.add(LintPresetUserFetchers, SeverityWarning, l.robotsAt(configerr.Index(configerr.Index("groups", gi)+".presets", 0)),
			fmt.Sprintf("to keep them, add to the preset block: except %s", strings.Join(keep, " ")),
			"preset %s with enforce refuses %s where the group disallows", strings.Join(g.Presets, " "), strings.Join(what, ", and "))
	}
}

// linkPreview reports whether name is, in the bot catalogue, a crawler that makes link
// previews (its "preview" category).
func linkPreview(name string) bool {
	id, n, ok := crawlers.IdentifyBotName(name)
	if !ok {
		return false
	}
	bn, ok := crawlers.LookupBotName(id, n)
	return ok && slices.Contains(bn.Categories, "preview")
}

// patternPath is a path a robots.txt pattern matches: its "*" wildcards matching nothing, its
// final "$" dropped.
func patternPath(pattern string) string {
	p := strings.ReplaceAll(strings.TrimSuffix(pattern, "$"), "*", "")
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return p
}

func allGoogle(tokens []string) bool {
	for _, t := range tokens {
		if !googleOnly(t) {
			return false
		}
	}
	return true
}

func formatFloat(f float64) string { return strings.TrimSuffix(fmt.Sprintf("%g", f), ".0") }

// deadRules finds rules of a group that can never decide: repeated, or always overridden by
// a rule of the other kind that is at least as specific and matches every path they match.
func (l *linter) deadRules(gi int, g *robotsgen.Group) {
	rulePath := func(i int) string { return configerr.Index(configerr.Index("groups", gi)+".rules", i) }
	desc := func(r robotsgen.Rule) string {
		if r.Type == robotsgen.Allow {
			return "Allow: " + r.Path
		}
		return "Disallow: " + r.Path
	}
rules:
	for i, r := range g.Rules {
		for j := 0; j < i; j++ {
			if g.Rules[j] == r {
				l.add(LintDuplicateRule, SeverityInfo, l.robotsAt(rulePath(i)), "remove the repeated rule",
					"%s is repeated in its group (first at %s): the repetition never decides anything", desc(r), l.robotsAt(rulePath(j)))
				continue rules
			}
		}
		rg, ok := robotsGlob(r.Path)
		if !ok {
			continue
		}
		for j, s := range g.Rules {
			if j == i || s.Type == r.Type {
				continue
			}
			sg, ok := robotsGlob(s.Path)
			if !ok {
				continue
			}
			// s wins over r where both match: it is longer, or as long and an Allow.
			wins := len(s.Path) > len(r.Path) || (len(s.Path) == len(r.Path) && s.Type == robotsgen.Allow)
			if wins && covers(sg, rg) {
				verb := "longer"
				if len(s.Path) == len(r.Path) {
					verb = "equally long (and Allow wins ties)"
				}
				l.add(LintShadowedRule, SeverityWarning, l.robotsAt(rulePath(i)),
					fmt.Sprintf("remove one of the two rules, or make %q more specific than %q", r.Path, s.Path),
					"%s never decides: %s (%s) matches every path it matches and wins, so the group behaves as if it were not there", desc(r), desc(s), verb)
				continue rules
			}
		}
	}
}

// sitemaps checks sitemap URLs against the site's hosts.
func (l *linter) sitemaps() {
	hosts := l.site.Hosts
	if len(hosts) == 0 {
		return
	}
	wildcard := false
	for _, h := range hosts {
		wildcard = wildcard || strings.Contains(h, "*")
	}
	for i, s := range l.file.Sitemaps {
		at := l.robotsAt(configerr.Index("sitemaps", i))
		if strings.HasPrefix(s, "/") {
			if len(hosts) > 1 || wildcard {
				l.add(LintRelativeSitemap, SeverityInfo, at,
					"give the absolute URL of the one sitemap (e.g. https://"+strings.TrimPrefix(hosts[0], "*.")+s+"), or make sure every host serves its own",
					"sitemap %q is resolved against each host the site answers to (%s): every host's robots.txt lists a different sitemap URL", s, strings.Join(hosts, ", "))
			}
			continue
		}
		u, err := url.Parse(s)
		if err != nil || u.Hostname() == "" {
			continue
		}
		if !hostServed(u.Hostname(), hosts) {
			l.add(LintSitemapHost, SeverityInfo, at,
				"list the sitemap in the robots.txt of its own host, or keep it if you mean to cross-submit it (you must control both hosts)",
				"sitemap %q is on host %s, which this site (%s) does not serve: crawlers accept it only as a cross-site submission", s, u.Hostname(), strings.Join(hosts, ", "))
		}
	}
}

func hostServed(h string, hosts []string) bool {
	for _, s := range hosts {
		if strings.EqualFold(s, h) {
			return true
		}
		if rest, ok := strings.CutPrefix(s, "*."); ok {
			if i := strings.IndexByte(h, '.'); i > 0 && strings.EqualFold(h[i+1:], rest) {
				return true
			}
		}
	}
	return false
}

// size warns when robots.txt nears the 500 KiB that crawlers must read at least.
func (l *linter) size() {
	origin := "https://example.com"
	if len(l.site.Hosts) > 0 && !strings.Contains(l.site.Hosts[0], "*") {
		origin = "https://" + l.site.Hosts[0]
	}
	body, err := robotsBody(l.site.RobotsTxt, origin)
	if err != nil || len(body) <= sizeWarning {
		return
	}
	l.add(LintRobotsTxtSize, SeverityWarning, l.robotsAt(""),
		"merge groups and rules (a pattern with * can replace many paths) before the file outgrows the limit",
		"robots.txt is %d bytes, %d%% of the %d bytes crawlers must read (RFC 9309 §2.5); what lies past it may be ignored", len(body), len(body)*100/robotsgen.MaxSize, robotsgen.MaxSize)
}

// routeTokens checks a route's product tokens for misspellings.
func (l *linter) routeTokens(rt *Route) {
	for _, tok := range slices.Sorted(maps.Keys(rt.Tags.Rules)) {
		if n := misspelling(tok); n != "" {
			l.add(LintMisspeltCrawler, SeverityWarning, rt.Source.At(configerr.Key("rules", tok)),
				fmt.Sprintf("write %s if you mean that crawler", n),
				"robots_tag rules for %q: no crawler is known by that name; it looks like a misspelling of %s", tok, n)
		}
	}
}

// xRobotsTagAlone: a route with x_robots_tag always sends Robots-Tag too. The serving core
// guarantees it (a route needs at least one rule, and the structured field is always sent);
// the lint keeps the guarantee checked on every config.
func (l *linter) xRobotsTagAlone(rt *Route) {
	if !rt.Tags.XRobotsTag {
		return
	}
	p, err := tagPolicy(rt.Tags)
	if err == nil && p.RobotsTag() != "" {
		return
	}
	l.add(LintXRobotsTagAlone, SeverityError, rt.Source.At("x_robots_tag"),
		"give the route at least one rule",
		"x_robots_tag without a Robots-Tag field: the route has no rule to send in the structured field")
}

// unseenTags finds noindex (or meta elements) on pages that robots.txt keeps the same crawler
// from fetching: the crawler never sees them, and a disallowed URL can stay indexed from
// links. Each path pattern of the route is asked about through a sample path it matches
// ("/drafts/*" through "/drafts/x"). Rules for "*" are asked for the crawlers without a group
// of their own (*) and for those robots.txt names, except crawlers it keeps out of the whole
// site: rules for everyone are not meant for them.
func (l *linter) unseenTags(rt *Route) {
	if l.m == nil {
		return
	}
	pol, err := tagPolicy(rt.Tags)
	if err != nil {
		return
	}
	paths := rt.Paths
	if len(paths) == 0 {
		paths = []string{"*"}
	}
	named := map[string]bool{}
	var others []string
	for _, g := range l.expanded.Groups {
		for _, ua := range g.UserAgents {
			if k := strings.ToLower(ua); ua != "*" && !named[k] {
				named[k] = true
				others = append(others, ua)
			}
		}
	}
	for _, tok := range slices.Sorted(maps.Keys(rt.Tags.Rules)) {
		rules := pol.RulesFor(tok)
		noindex := contains(rules, "noindex")
		if !noindex && !rt.Tags.Meta {
			continue
		}
		crawlers := []string{tok}
		if tok == "*" {
			crawlers = []string{"*"}
			for _, o := range others {
				if _, specific := rt.Tags.Rules[o]; !specific && l.m.Decide(o, "", "/").Allowed {
					crawlers = append(crawlers, o)
				}
			}
		}
		var blocked []string
		var example string
		for _, c := range crawlers {
			for _, p := range paths {
				sp, ok := samplePath(p)
				if !ok {
					continue
				}
				if d := l.m.Decide(c, "", sp); !d.Allowed {
					blocked = append(blocked, c)
					if example == "" {
						example = fmt.Sprintf("%s (%s: %s)", sp, d.Rule.Type, d.Rule.Path)
					}
					break
				}
			}
		}
		if len(blocked) == 0 {
			continue
		}
		what := "noindex"
		if !noindex {
			what = "meta elements (" + strings.Join(rules, ", ") + ")"
		}
		who := strings.Join(blocked, ", ")
		if blocked[0] == "*" {
			who = "every crawler without a group of its own (*)" + strings.TrimPrefix(who, "*")
		}
		on := "every path"
		if len(rt.Paths) > 0 {
			on = strings.Join(rt.Paths, " ")
		}
		whom := tok
		if tok == "*" {
			whom = "every crawler (*)"
		}
		l.add(LintUnseenTags, SeverityWarning, rt.Source.At(configerr.Key("rules", tok)),
			fmt.Sprintf("to drop these pages from the index, allow them in robots.txt until they are recrawled; otherwise remove the %s", what),
			"robots_tag gives %s %s on %s, but robots.txt disallows these paths for %s, e.g. %s: the crawler never fetches the pages, never sees the %s, and can keep their URLs indexed from links",
			whom, what, on, who, example, what)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// redundantRoutes finds routes whose tags a broader route already adds to every response
// they apply to. Routes with conditions besides paths are left out.
func (l *linter) redundantRoutes() {
	rs := l.site.Routes
	overridden := make(map[int]bool)
	for i := range rs {
		a := &rs[i]
		for j := range rs {
			b := &rs[j]
			if i == j || b.Condition != "" || !pathsCover(b.Paths, a.Paths) {
				continue
			}
			if keys := overriddenUsage(b.Tags.ContentUsage, a.Tags.ContentUsage); len(keys) > 0 {
				bp := "every path"
				if len(b.Paths) > 0 {
					bp = strings.Join(b.Paths, " ")
				}
				l.add(LintOverriddenUsage, SeverityWarning, a.Source.At("content_usage"),
					"keep the broader route's content_usage off these paths (e.g. a \"not path\" matcher), so that the y is sent",
					"content_usage %s is never sent: the robots_tag at %s, which applies to %s, says n, and any n wins when routes combine",
					strings.Join(keys, ", "), b.Source.At(""), bp)
				overridden[i] = true
				break
			}
		}
	}
	for i := range rs {
		a := &rs[i]
		if a.Condition != "" || overridden[i] {
			continue
		}
		for j := range rs {
			b := &rs[j]
			if i == j || b.Condition != "" || !pathsCover(b.Paths, a.Paths) || !tagsImply(b.Tags, a.Tags) {
				continue
			}
			// Two routes that imply each other: report the later one only.
			if j > i && pathsCover(a.Paths, b.Paths) && tagsImply(a.Tags, b.Tags) {
				continue
			}
			bp := "every path"
			if len(b.Paths) > 0 {
				bp = strings.Join(b.Paths, " ")
			}
			l.add(LintRedundantRoute, SeverityInfo, a.Source.At(""),
				"remove this robots_tag, or give it a rule the broader one does not",
				"every rule of this robots_tag is already given by the one at %s, which applies to %s", b.Source.At(""), bp)
			break
		}
	}
}

// pathsCover reports whether every path matched by one of a is matched by one of b.
func pathsCover(b, a []string) bool {
	if len(b) == 0 {
		return true
	}
	for _, p := range b {
		if p == "*" {
			return true
		}
	}
	if len(a) == 0 {
		return false
	}
	for _, p := range a {
		ag, ok := pathGlob(p)
		if !ok {
			return false
		}
		found := false
		for _, q := range b {
			if bg, ok := pathGlob(q); ok && covers(bg, ag) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// overriddenUsage returns the keys, sorted, for which a's usage preferences say "y" and b's say
// "n": combined (vocab "Combining Preferences"), a's value never reaches a response b also
// tags.
func overriddenUsage(b, a map[string]string) []string {
	var keys []string
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if yes := usage.ContentUsage.Value(usage.Allow); a[k] == yes && b[k] == usage.ContentUsage.Value(usage.Disallow) {
			keys = append(keys, k+"="+yes)
		}
	}
	return keys
}

// tagPolicy is the Robots-Tag policy of a route's tags, as the serving core builds it: its
// presets less the crawlers they leave out.
func tagPolicy(t policy.Tags) (tagemit.Policy, error) {
	return tagemit.NewPolicyExcept(t.Rules, t.Except)
}

// tagsImply reports whether b's tags give every accessor at least a's restrictions, b
// sends meta elements and X-Robots-Tag wherever a does, and b's Content-Usage preferences give
// each of a's keys the same value or "n" (which wins when they combine).
func tagsImply(b, a policy.Tags) bool {
	if (a.Meta && !b.Meta) || (a.XRobotsTag && !b.XRobotsTag) {
		return false
	}
	for k, v := range a.ContentUsage {
		if w := b.ContentUsage[k]; w != v && w != "n" {
			return false
		}
	}
	pa, err := tagPolicy(a)
	if err != nil {
		return false
	}
	pb, err := tagPolicy(b)
	if err != nil {
		return false
	}
	// The tokens a's policy has members for, presets written out: a rules key
	// "preset:<category>" is no token.
	tokens := append(slices.Sorted(maps.Keys(pa.Rules())), "*")
	for _, t := range tokens {
		qa, err1 := tagemit.NewPolicy(map[string][]string{"*": pa.RulesFor(t)})
		qb, err2 := tagemit.NewPolicy(map[string][]string{"*": pb.RulesFor(t)})
		if err1 != nil || err2 != nil || !qb.Union(qa).Equal(qb) {
			return false
		}
	}
	return true
}
