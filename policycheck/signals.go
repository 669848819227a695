package policycheck

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/usage"
)

// A site states what AI systems may do with its pages in several places at once: robots.txt
// Content-Usage and Content-Signal lines (per crawler and path), the Content-Usage response
// header (per route), TDMRep (per route) and RSL licences. Each names the same few uses in
// its own words; this file reads every one of them for one crawler at one path, so that lint
// and check can say where two of them answer the same question differently.

// use is what a usage preference is about, in the words every signal shares.
type use string

const (
	useTrain   use = "AI training"
	useSearch  use = "search"
	useAIInput use = "AI input"
)

// statement is what one signal says about one use for a crawler at a path.
type statement struct {
	// signal names the signal as a reader of the site knows it ("the Content-Usage header").
	signal string
	use    use
	allow  bool
	// value is the declaration as written ("train-ai=n").
	value string
	loc   Location
}

// usageVocab maps the keys of the two usage vocabularies to their uses. Keys outside it
// (extensions) are compared with nothing. Content-Usage's ai-use (vocab-08: input to a
// generative AI model that the user did not provide) holds Content-Signal's and RSL's
// ai-input (input at answer time), so a y or n of either answers the other's question.
var usageVocab = map[usage.Vocab]map[string]use{
	usage.ContentUsage:  {"train-ai": useTrain, "ai-use": useAIInput, "search": useSearch},
	usage.ContentSignal: {"ai-train": useTrain, "search": useSearch, "ai-input": useAIInput},
}

// statements returns what every signal of the site says for the crawler token (with purpose,
// if any) at path (a URL path, "/..."), in a stable order: robots.txt's, then the routes',
// then the RSL documents'. applies says which routes (indexes into the site's Routes) apply
// at path: lint's reading of their paths (routesAt), or check's, which runs their matchers.
func (l *linter) statements(token, purpose, path string, applies func(i int) bool) []statement {
	var out []statement
	if l.m != nil {
		out = l.robotsStatements(token, purpose, path, out)
	}
	return l.routeStatements(path, applies, out)
}

// robotsStatements appends what robots.txt's Content-Usage and Content-Signal lines say for
// token at path (robotsgen.Matcher.Preferences: only a path the crawler may fetch has any).
func (l *linter) robotsStatements(token, purpose, path string, out []statement) []statement {
	for _, v := range []usage.Vocab{usage.ContentUsage, usage.ContentSignal} {
		prefs := l.m.Preferences(v, token, purpose, path).Map()
		if len(prefs) == 0 {
			continue
		}
		field, name := "content_usage", "robots.txt Content-Usage"
		if v == usage.ContentSignal {
			field, name = "content_signal", "robots.txt Content-Signal"
		}
		gi := l.m.Decide(token, purpose, path).Group
		for _, k := range slices.Sorted(maps.Keys(prefs)) {
			u, ok := usageVocab[v][k]
			if !ok {
				continue
			}
			val := prefs[k]
			loc := l.robotsAt(configerr.Index("groups", gi) + "." + field)
			if gi >= 0 {
				if ri := usageRuleAt(groupUsage(&l.file.Groups[gi], v), path, k, val); ri >= 0 {
					loc = l.robotsAt(configerr.Index(configerr.Index("groups", gi)+"."+field, ri))
				}
			}
			out = append(out, statement{signal: name, use: u, allow: val == v.Value(usage.Allow), value: k + "=" + val, loc: loc})
		}
	}
	return out
}

// groupUsage is g's preference rules of vocabulary v.
func groupUsage(g *robotsgen.Group, v usage.Vocab) []usage.Rule {
	if v == usage.ContentSignal {
		return g.ContentSignal
	}
	return g.ContentUsage
}

// usageRuleAt returns the index of the rule among rules that says key=val for path with the
// longest pattern, -1 when none does (the statement then points at the group).
func usageRuleAt(rules []usage.Rule, path, key, val string) int {
	best, size := -1, -1
	for i, r := range rules {
		p := r.Path
		if p == "" {
			p = "/"
		}
		g, ok := robotsGlob(p)
		if !ok || r.Preferences[key] != val || !covers(g, path) {
			continue
		}
		if len(p) > size {
			best, size = i, len(p)
		}
	}
	return best
}

// routeStatements appends what the routes that apply at path (applies) send in their
// Content-Usage header, combined as the header combines them (any n wins), and in their
// TDMRep fields, and what the RSL license documents say at path.
func (l *linter) routeStatements(path string, applies func(i int) bool, out []statement) []statement {
	type pick struct {
		val string
		loc Location
	}
	eff := map[string]pick{}
	for i := range l.site.Routes {
		rt := &l.site.Routes[i]
		if len(rt.Tags.ContentUsage) == 0 || !applies(i) {
			continue
		}
		for k, v := range rt.Tags.ContentUsage {
			if cur, ok := eff[k]; ok && (cur.val == "n" || v != "n") {
				continue
			}
			eff[k] = pick{v, rt.Source.At(fmt.Sprintf("content_usage[%q]", k))}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(eff)) {
		u, ok := usageVocab[usage.ContentUsage][k]
		if !ok {
			continue
		}
		out = append(out, statement{signal: "the Content-Usage header", use: u, allow: eff[k].val == "y", value: k + "=" + eff[k].val, loc: eff[k].loc})
	}
	// TDMRep: the routes' declarations combine as the fields do, a 1 from any route winning.
	// A reservation reserves text and data mining, AI training among it; 0 says it is not
	// reserved.
	var tdm *statement
	for i := range l.site.Routes {
		rt := &l.site.Routes[i]
		d := rt.Tags.TDM
		if d == nil || !applies(i) {
			continue
		}
		reserved := d.Derive || (d.Reservation != nil && *d.Reservation == 1)
		if tdm != nil && (!tdm.allow || !reserved) {
			continue
		}
		value := "tdm-reservation=0"
		if reserved {
			value = "tdm-reservation=1"
		}
		tdm = &statement{signal: "TDMRep", use: useTrain, allow: !reserved, value: value, loc: rt.Source.At("tdm")}
	}
	if tdm != nil {
		out = append(out, *tdm)
	}
	return l.rslStatements(path, out)
}

// rslUses are the uses each RSL usage value (RSL 1.0 §3.4.1) names; ai-index, an AI
// system's index, has no counterpart in the other signals.
var rslUses = map[string][]use{
	"all":      {useTrain, useSearch, useAIInput},
	"ai-all":   {useTrain, useAIInput},
	"ai-train": {useTrain},
	"ai-input": {useAIInput},
	"search":   {useSearch},
}

// rslStatements appends what the RSL license documents the site serves say at path: the
// content element with the longest pattern matching the path, its permits and prohibits.
func (l *linter) rslStatements(path string, out []statement) []statement {
	if l.site.RobotsTxt == nil {
		return out
	}
	for di, d := range l.site.RobotsTxt.Config.LicenseDocuments {
		best := licenseContentAt(d.Content, path)
		if best < 0 {
			continue
		}
		c := d.Content[best]
		at := fmt.Sprintf("license_documents[%d].content[%d]", di, best)
		for _, side := range []struct {
			field  string
			values []string
			allow  bool
		}{{"permits", c.Permits, true}, {"prohibits", c.Prohibits, false}} {
			for _, v := range side.values {
				for _, u := range rslUses[v] {
					out = append(out, statement{signal: "the RSL license " + d.Path, use: u, allow: side.allow, value: side.field + " " + v, loc: l.robotsAt(at + "." + side.field)})
				}
			}
		}
	}
	return out
}

// routesAt is lint's reading of which routes apply at path: those whose path patterns match
// it (no patterns: every path). A route that depends on more than its paths (Condition: a
// host, a header, a "not" matcher) is left out, since lint cannot tell which requests it
// applies to; so is a pattern this package cannot read as a glob. Check, which runs the
// routes' matchers on its URL, compares those too.
func (l *linter) routesAt(path string) func(i int) bool {
	if l.routeGlobs == nil {
		l.routeGlobs = make([][]string, len(l.site.Routes))
		for i, rt := range l.site.Routes {
			if rt.Condition != "" || rt.Match != nil {
				continue
			}
			globs := []string{}
			for _, p := range rt.Paths {
				if g, ok := pathGlob(p); ok {
					globs = append(globs, strings.ToLower(g))
				}
			}
			if len(rt.Paths) == 0 {
				globs = append(globs, "*")
			}
			l.routeGlobs[i] = globs
		}
	}
	lp := strings.ToLower(path)
	return func(i int) bool {
		for _, g := range l.routeGlobs[i] {
			if covers(g, lp) {
				return true
			}
		}
		return false
	}
}

// conflict is two signals that answer the same use differently for some crawler at some
// path.
type conflict struct {
	use         use
	allow, deny statement
	crawlers    []string // "*" for any crawler
	path        string
}

// conflicts returns the conflicts among stmts: for each use, each allowing statement with
// each refusing one of another signal.
func conflicts(stmts []statement) []conflict {
	var out []conflict
	for _, a := range stmts {
		if !a.allow {
			continue
		}
		for _, d := range stmts {
			if d.allow || d.use != a.use || d.signal == a.signal {
				continue
			}
			out = append(out, conflict{use: a.use, allow: a, deny: d})
		}
	}
	return out
}

// samplePaths are paths at which the site's signals may change: one path matched by each
// pattern of robots.txt's rules and preference rules and of the routes, and "/", sorted.
func (l *linter) samplePaths() []string {
	set := map[string]bool{"/": true}
	addRobots := func(p string) {
		if g, ok := robotsGlob(p); ok {
			set[globSample(g)] = true
		}
	}
	if l.file != nil {
		for _, g := range l.file.Groups {
			for _, r := range g.Rules {
				addRobots(r.Path)
			}
			for _, v := range []usage.Vocab{usage.ContentUsage, usage.ContentSignal} {
				for _, r := range groupUsage(&g, v) {
					if r.Path != "" {
						addRobots(r.Path)
					}
				}
			}
		}
	}
	if l.site.RobotsTxt != nil {
		for _, d := range l.site.RobotsTxt.Config.LicenseDocuments {
			for _, c := range d.Content {
				p := c.URL
				if u, err := url.Parse(p); err == nil && u.Scheme != "" {
					p = u.EscapedPath()
				}
				if p != "" {
					addRobots(p)
				}
			}
		}
	}
	for _, rt := range l.site.Routes {
		for _, p := range rt.Paths {
			if s, ok := samplePath(p); ok {
				set[s] = true
			}
		}
	}
	// Routes match paths without case, robots.txt rules with it: a pattern written with
	// capitals ("/Docs/") answers "/docs/x" otherwise than the route "/Docs/*" does. (Other
	// case variants of lower-case patterns would flag every config for paths few servers
	// answer.)
	for p := range maps.Clone(set) {
		set[strings.ToLower(p)] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// globSample is a path a whole-string glob matches: its "*" as "x".
func globSample(g string) string {
	s := strings.ReplaceAll(g, "*", "x")
	if !strings.HasPrefix(s, "/") {
		s = "/" + s
	}
	return s
}

// crawlerClass is a set of crawlers that robots.txt answers alike: the user agents that
// exactly the same groups name (presets written out), the crawlers no group names ("*"), or
// the crawlers of a purpose a group names.
type crawlerClass struct {
	token, purpose string   // the crawler asked for the class
	names          []string // the crawlers it stands for, as findings name them
}

// crawlerClasses are the classes of crawlers whose statements may differ.
func (l *linter) crawlerClasses() []crawlerClass {
	out := []crawlerClass{{token: "*", names: []string{"*"}}}
	if l.expanded == nil {
		return out
	}
	groupsOf := map[string][]int{}
	var order []string
	spelt := map[string]string{}
	purposes := map[string]bool{}
	for gi, g := range l.expanded.Groups {
		for _, ua := range g.UserAgents {
			k := strings.ToLower(ua)
			if k == "*" {
				continue
			}
			if _, ok := groupsOf[k]; !ok {
				order = append(order, k)
				spelt[k] = ua
			}
			if gs := groupsOf[k]; len(gs) == 0 || gs[len(gs)-1] != gi {
				groupsOf[k] = append(gs, gi)
			}
		}
		for _, p := range g.Purposes {
			purposes[p] = true
		}
	}
	byKey := map[string]int{}
	for _, k := range order {
		key := fmt.Sprint(groupsOf[k])
		i, ok := byKey[key]
		if !ok {
			i = len(out)
			byKey[key] = i
			out = append(out, crawlerClass{token: spelt[k]})
		}
		out[i].names = append(out[i].names, spelt[k])
	}
	for _, p := range slices.Sorted(maps.Keys(purposes)) {
		out = append(out, crawlerClass{token: "*", purpose: p, names: []string{"crawlers with purpose " + p}})
	}
	return out
}

// maxConflictCrawlers is how many crawlers a conflict finding names before counting the rest.
const maxConflictCrawlers = 4

// signalConflicts reports each pair of declarations of different signals that answer a use
// differently for some crawler at some path, once per pair, with the crawlers and one path
// where they do.
func (l *linter) signalConflicts() {
	type key struct {
		use         use
		allow, deny string
	}
	found := map[key]*conflict{}
	var order []key
	classes := l.crawlerClasses()
	for _, path := range l.samplePaths() {
		routes := l.routeStatements(path, l.routesAt(path), nil)
		for _, cl := range classes {
			var stmts []statement
			if l.m != nil {
				stmts = l.robotsStatements(cl.token, cl.purpose, path, nil)
			}
			for _, c := range conflicts(append(stmts, routes...)) {
				k := key{c.use, c.allow.loc.String() + "|" + c.allow.value, c.deny.loc.String() + "|" + c.deny.value}
				f, ok := found[k]
				if !ok {
					c.path = path
					f = &c
					found[k] = f
					order = append(order, k)
				}
				for _, n := range cl.names {
					if !slices.Contains(f.crawlers, n) {
						f.crawlers = append(f.crawlers, n)
					}
				}
			}
		}
	}
	for _, k := range order {
		c := found[k]
		l.add(LintSignalConflict, SeverityWarning, c.allow.loc,
			fmt.Sprintf("make the two agree: change %s or %s, or narrow one of them to the paths where it is meant", c.allow.value, c.deny.value),
			"%s: %s says %s (%s allowed) while %s at %s says %s, for %s at %s",
			c.use, c.allow.signal, c.allow.value, c.use, c.deny.signal, c.deny.loc, c.deny.value, crawlerList(c.crawlers), c.path)
	}
}

// crawlerList names crawlers, the first few, counting the rest.
func crawlerList(cs []string) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c
		if c == "*" {
			names[i] = "any crawler (*)"
		}
	}
	if len(names) <= maxConflictCrawlers {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxConflictCrawlers], ", "), len(names)-maxConflictCrawlers)
}

// trainingUnstated reports, once, the AI training crawlers that robots.txt lets fetch the
// site (its home page, "/") while no signal of the site refuses AI training anywhere: often
// intended, but a site that means to refuse training says so nowhere.
func (l *linter) trainingUnstated() {
	if l.m == nil {
		return
	}
	if l.refusesTraining() || l.site.RobotsTxt.Config.MergeFile != "" || l.site.RobotsTxt.Config.MergeUpstream {
		// With a merge, the site's other robots.txt may refuse it.
		return
	}
	cs, err := crawlers.Category("ai-training")
	if err != nil {
		return
	}
	var open []string
	seen := map[string]bool{}
	for _, c := range cs {
		writable, _ := crawlers.RobotsTxtNames([]crawlers.Crawler{c})
		for _, n := range writable {
			if seen[strings.ToLower(n)] || !l.m.Decide(n, "", "/").Allowed {
				continue
			}
			seen[strings.ToLower(n)] = true
			open = append(open, n)
		}
	}
	if len(open) == 0 {
		return
	}
	l.add(LintTrainingUnstated, SeverityInfo, l.robotsAt(""),
		"if training is not wanted, say so: content_usage train-ai=n (a group's rule or a route's header) or content_signal ai-train=no, or disallow the crawlers (preset ai-training)",
		"robots.txt lets %d AI training crawlers (%s) fetch the site, and no signal of the site refuses AI training (no train-ai=n, ai-train=no)",
		len(open), crawlerList(open))
}

// refusesTraining reports whether any declaration of the site refuses AI training, for any
// crawler, path or condition.
func (l *linter) refusesTraining() bool {
	for _, rt := range l.site.Routes {
		if d := rt.Tags.TDM; rt.Tags.ContentUsage["train-ai"] == "n" || d != nil && (d.Derive || d.Reservation != nil && *d.Reservation == 1) {
			return true
		}
	}
	for _, d := range l.site.RobotsTxt.Config.LicenseDocuments {
		for _, c := range d.Content {
			for _, v := range c.Prohibits {
				if slices.Contains(rslUses[v], useTrain) {
					return true
				}
			}
		}
	}
	for _, g := range l.file.Groups {
		for _, v := range []usage.Vocab{usage.ContentUsage, usage.ContentSignal} {
			for _, r := range groupUsage(&g, v) {
				for k, val := range r.Preferences {
					if usageVocab[v][k] == useTrain && val == v.Value(usage.Disallow) {
						return true
					}
				}
			}
		}
	}
	return false
}

// SignalConflict is a use on which two signals of the site disagree for the crawler and URL
// that Check explains.
type SignalConflict struct {
	// Use is what the signals disagree about: "AI training", "search" or "AI input".
	Use string `json:"use"`
	// Allows is the signal that allows it, Refuses the one that refuses it.
	Allows SignalStatement `json:"allows"`
	// Refuses is the signal that refuses it.
	Refuses SignalStatement `json:"refuses"`
}

// SignalStatement is one signal's declaration.
type SignalStatement struct {
	// Signal names it: "robots.txt Content-Usage", "robots.txt Content-Signal", "the
	// Content-Usage header", ...
	Signal string `json:"signal"`
	// Value is the declaration as written, e.g. "train-ai=y".
	Value string `json:"value"`
	// Location is where the config declares it.
	Location Location `json:"location"`
}

// signalConflictsAt returns the conflicts among the site's signals for the crawler token
// (with purpose, if any) at path, with the routes that apply there (indexes into site.Routes, as the core finds them).
func signalConflictsAt(site *Site, token, purpose, path string, routes []int) []SignalConflict {
	l := newLinter(site)
	in := map[int]bool{}
	for _, i := range routes {
		in[i] = true
	}
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	out := []SignalConflict{}
	for _, c := range conflicts(l.statements(token, purpose, path, func(i int) bool { return in[i] })) {
		out = append(out, SignalConflict{Use: string(c.use),
			Allows:  SignalStatement{c.allow.signal, c.allow.value, c.allow.loc},
			Refuses: SignalStatement{c.deny.signal, c.deny.value, c.deny.loc}})
	}
	return out
}

// licensesServed reports each RSL license on the site itself (a path, or a URL on one of its
// hosts) that no license_document of the config serves: crawlers that follow the License
// line or the Link field must find an RSL document there, which only the backend can then
// give. A license on another host (a collective's license server) is not looked at.
func (l *linter) licensesServed() {
	served := map[string]bool{}
	if l.site.RobotsTxt != nil {
		for _, d := range l.site.RobotsTxt.Config.LicenseDocuments {
			served[d.Path] = true
		}
	}
	check := func(lic string, loc Location) {
		p := lic
		if !strings.HasPrefix(lic, "/") {
			u, err := url.Parse(lic)
			if err != nil || len(l.site.Hosts) == 0 || !hostServed(u.Hostname(), l.site.Hosts) {
				return
			}
			p = u.EscapedPath()
		}
		if served[p] {
			return
		}
		l.add(LintLicenseNotServed, SeverityInfo, loc,
			"declare the document with license_document "+p+" { ... }, or make sure the backend serves an RSL document (application/rsl+xml) at "+p,
			"license %q is on this site, but the config serves no RSL document at %s: the backend must answer it", lic, p)
	}
	if l.site.RobotsTxt != nil {
		for i, lic := range l.site.RobotsTxt.Config.Licenses {
			check(lic, l.robotsAt(configerr.Index("licenses", i)))
		}
	}
	for _, rt := range l.site.Routes {
		for i, lic := range rt.Tags.Licenses {
			check(lic, rt.Source.At(configerr.Index("licenses", i)))
		}
	}
}
