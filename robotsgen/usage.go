package robotsgen

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dunglas/httpsfv"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/usage"
)

// AI usage preferences in robots.txt: the Content-Usage rule of
// draft-ietf-aipref-attach-05 (vocabulary draft-ietf-aipref-vocab-07) and Cloudflare's
// Content-Signal line (draft-romm-aipref-contentsignals-00), both written
// "Key: [path SP] dictionary" inside a group. RFC 9309 parsers read them as other
// records, so they change no allow/disallow decision (the witness test checks this).

// Line prefixes of the two rules.
const (
	contentUsageKey  = "Content-Usage: "
	contentSignalKey = "Content-Signal: " // the longer of the two
)

// usageVocabs lists the vocabularies with the field of Group that holds each.
var usageVocabs = [...]struct {
	v     usage.Vocab
	field string
	key   string // the rendered line's prefix
	lower string // the key as Parse compares it
}{
	{usage.ContentUsage, "content_usage", contentUsageKey, "content-usage"},
	{usage.ContentSignal, "content_signal", contentSignalKey, "content-signal"},
}

// usageRules returns the group's rules of vocabulary index vi.
func (g *Group) usageRules(vi int) []usage.Rule {
	if vi == 0 {
		return g.ContentUsage
	}
	return g.ContentSignal
}

func (g *Group) addUsageRule(vi int, r usage.Rule) {
	if vi == 0 {
		g.ContentUsage = append(g.ContentUsage, r)
	} else {
		g.ContentSignal = append(g.ContentSignal, r)
	}
}

// checkUsagePath checks the optional path of a Content-Usage or Content-Signal rule: a
// pattern as for Allow/Disallow, which must start with "/" (attach-05: a value that does
// not start with "/" is all preference).
func checkUsagePath(p string) string {
	if p == "" {
		return ""
	}
	if msg := checkPattern(p); msg != "" {
		return msg
	}
	if p[0] != '/' {
		return `the path of a preference rule starts with "/" (a value starting otherwise is read as preferences, not a path); leave the path out to apply the rule to every path`
	}
	return ""
}

// validateUsage checks the group's Content-Usage and Content-Signal rules; gi is the group's
// index, for field paths.
func validateUsage(g *Group, gi int, errs []error) []error {
	for vi, u := range usageVocabs {
		for i, r := range g.usageRules(vi) {
			at := configerr.Index(configerr.Index("groups", gi)+"."+u.field, i)
			if msg := checkUsagePath(r.Path); msg != "" {
				errs = append(errs, configerr.New(at+".path", r.Path, msg))
			}
			p, err := u.v.FromConfig(r.Preferences)
			if err != nil {
				errs = append(errs, configerr.Prefix(at+".preferences", err))
				continue
			}
			if r.Path == "" && p.IsEmpty() {
				errs = append(errs, configerr.New(at+".preferences", "", "no preferences: give at least one, e.g. "+example(u.v)+" (a rule with a path and no preferences makes every preference unknown under that path)"))
				continue
			}
			if line := len(u.key) + len(encodePattern(r.Path)) + 1 + len(p.String()); line > maxLineLen {
				errs = append(errs, configerr.New(at, "", fmt.Sprintf("the %s line would be %d bytes long, over the %d bytes at which Google's parser truncates lines", u.v, line, maxLineLen)))
			}
		}
	}
	return errs
}

func example(v usage.Vocab) string {
	if v == usage.ContentUsage {
		return "train-ai=n"
	}
	return "ai-train=no"
}

// writeUsage writes the group's Content-Usage and Content-Signal lines. The group is valid.
func writeUsage(b writer, g *Group) {
	for vi, u := range usageVocabs {
		for _, r := range g.usageRules(vi) {
			p, _ := u.v.FromConfig(r.Preferences)
			b.WriteString(u.key[:len(u.key)-1]) // without the space, for an empty value
			if r.Path != "" || !p.IsEmpty() {
				b.WriteByte(' ')
			}
			if r.Path != "" {
				writePattern(b, r.Path)
				if !p.IsEmpty() {
					b.WriteByte(' ')
				}
			}
			b.WriteString(p.String())
			b.WriteByte('\n')
		}
	}
}

// usageSizeHint estimates the bytes of the group's preference lines.
func usageSizeHint(g *Group) int {
	n := 0
	for vi := range usageVocabs {
		for _, r := range g.usageRules(vi) {
			n += len(contentSignalKey) + len(r.Path) + 2*nonASCII(r.Path) + 1 + 16*len(r.Preferences)
		}
	}
	return n
}

// canonicalUsage returns the rules as Parse reads them back: paths encoded, preferences
// in their canonical configuration form.
func canonicalUsage(v usage.Vocab, rs []usage.Rule) []usage.Rule {
	if len(rs) == 0 {
		return nil
	}
	out := make([]usage.Rule, len(rs))
	for i, r := range rs {
		p, _ := v.FromConfig(r.Preferences)
		out[i] = usage.Rule{Path: encodePattern(r.Path), Preferences: p.Map()}
	}
	return out
}

// usageKind returns the index into usageVocabs of a Content-Usage or Content-Signal key,
// or -1.
func usageKind(key string) int {
	for vi, u := range usageVocabs {
		if strings.EqualFold(key, u.lower) {
			return vi
		}
	}
	return -1
}

// usageLine reads a Content-Usage or Content-Signal line of a group into it, as Parse's
// documentation says.
func (p *parser) usageLine(n int, raw []byte, vi int, val string) {
	u := usageVocabs[vi]
	// nothing is what a skipped line's diagnostic says it leaves: in a group's header a
	// line is still a rule for draft-ietf-aipref-attach, which ends the user agents above
	// it, whether or not it parses (usageBetweenAgents).
	nothing := "without a path the rule changes nothing"
	if kept := len(p.cur.usageRules(vi)); !p.curRules {
		nothing = "it states no preference, but still ends the user-agent lines above it as draft-ietf-aipref-attach reads it"
		defer func() {
			at := -1 // skipped: the line ends the run and adds no rule
			if len(p.cur.usageRules(vi)) > kept {
				at = kept
			}
			p.usageInHeader = append(p.usageInHeader, pendingLine{n, string(raw), u.v.String(), vi, at})
		}()
	}
	path, _, err := u.v.ParseLine(val)
	if path != "" {
		path = encodePattern(path)
		msg := patternProblem(path)
		if msg == "" {
			msg = checkUsagePath(path)
		}
		if msg != "" {
			p.diag(n, raw, u.v.String()+" skipped: its path is not a valid pattern: "+msg+"; "+nothing)
			return
		}
	}
	r := usage.Rule{Path: path, Preferences: map[string]string{}}
	if err != nil {
		if path == "" {
			p.diag(n, raw, u.v.String()+" skipped: "+err.Error()+"; "+nothing)
			return
		}
		p.diag(n, raw, err.Error()+"; kept as a rule with no preferences for "+strconv.Quote(path))
		p.cur.addUsageRule(vi, r)
		return
	}
	// The dictionary part, split off as ParseLine does.
	dict := strings.Trim(cutComment(val), " \t")
	if strings.HasPrefix(dict, "/") {
		if i := strings.IndexAny(dict, " \t"); i >= 0 {
			dict = strings.TrimLeft(dict[i:], " \t")
		} else {
			dict = ""
		}
	}
	m, ignored := readPrefs(u.v, dict)
	prefs, err := u.v.FromConfig(m)
	if err != nil { // readPrefs keeps only what FromConfig accepts
		prefs = usage.Prefs{}
	}
	r.Preferences = prefs.Map()
	if len(ignored) > 0 {
		p.diag(n, raw, u.v.String()+" rewritten without what the vocabulary reads as unknown or ignores: "+strings.Join(ignored, "; "))
	}
	if path == "" && prefs.IsEmpty() {
		p.diag(n, raw, u.v.String()+" skipped: every preference in it is unknown; "+nothing)
		return
	}
	p.cur.addUsageRule(vi, r)
}

// usageBetweenAgents handles the preference lines read since the group's last user-agent
// line, when user-agent line n continues the group: the readings disagree there.
// draft-ietf-aipref-attach makes such a line a rule, which ends the group's user agents, so
// that it applies only to the agents above it (and the agents below get the rest of the
// group); RFC 9309 parsers, Google's among them, skip it and read the agents above and below
// as one group with every line, and Parse keeps their allow/disallow decisions. The line is
// reported, and the agents above it become a run of their own (splitRuns).
func (p *parser) usageBetweenAgents(n int) {
	if len(p.usageInHeader) == 0 {
		return
	}
	for _, l := range p.usageInHeader {
		if l.at < 0 {
			continue // skipped, and reported so: its diagnostic says it ends the agents above
		}
		p.diag(l.n, []byte(l.raw), fmt.Sprintf("%s line between user-agent lines (the next is line %d): draft-ietf-aipref-attach reads it as a rule ending the group, so it applies only to the user agents above it, while RFC 9309 parsers (Google's) read the user agents above and below as one group with all its lines; read restrictively: a crawler gets a y only where both readings give it one, and every n of either: put it after the group's allow/disallow rules", l.key, n))
	}
	p.runs = append(p.runs, agentRun{
		userAgents: slices.Clone(p.cur.UserAgents[p.runStart[0]:]),
		purposes:   slices.Clone(p.cur.Purposes[p.runStart[1]:]),
		lines:      p.usageInHeader,
		line:       p.runLine,
	})
	p.runStart = [2]int{len(p.cur.UserAgents), len(p.cur.Purposes)}
	p.runLine = 0
	p.usageInHeader = nil
}

// splitRuns returns cur as groups that give every crawler the more restrictive of the two
// readings of usageBetweenAgents, and never a "y" that a reading does not give it. Without
// such lines that is cur. Otherwise cur keeps its user agents, rules and records but no
// preference rule, and each run of user agents gets a group of its own with:
//   - the preference rules attach-05 gives the run, whole: the lines above the next run, and
//     for the last run the group's other preference lines;
//   - every other preference rule of the group with only its "n" values (foreign, returned
//     as references into the groups returned): where it is the longest match, the one-group
//     reading gives the run its preferences, and attach-05 the run's own rules, whose "n"
//     values foldForeign adds once the whole file is read. A rule without a path left
//     without preferences is left out (it overrides nothing); with a path it stays, so that
//     the run's own shorter rules give no "y" there.
//
// A crawler merges the groups naming it (RFC 9309 section 2.2.1). runLines are the lines of
// the first header lines of the runs' groups (the groups after the first).
func (p *parser) splitRuns() (groups []Group, runLines []int, foreign []usageRef) {
	g := *p.cur
	if len(p.runs) == 0 {
		return []Group{g}, nil, nil
	}
	runs := append(slices.Clone(p.runs), agentRun{
		userAgents: slices.Clone(g.UserAgents[p.runStart[0]:]),
		purposes:   slices.Clone(g.Purposes[p.runStart[1]:]),
		line:       p.runLine,
	})
	own := make([]map[[2]int]bool, len(runs))
	claimed := map[[2]int]bool{}
	for i, run := range runs[:len(runs)-1] {
		own[i] = map[[2]int]bool{}
		for _, l := range run.lines {
			if l.at < 0 {
				continue // a skipped line: it only ends the run
			}
			own[i][[2]int{l.vi, l.at}] = true
			claimed[[2]int{l.vi, l.at}] = true
		}
	}
	own[len(runs)-1] = map[[2]int]bool{}
	for vi := range usageVocabs {
		for k := range p.cur.usageRules(vi) {
			if !claimed[[2]int{vi, k}] {
				own[len(runs)-1][[2]int{vi, k}] = true
			}
		}
	}
	g.ContentUsage, g.ContentSignal = nil, nil
	out := []Group{g}
	for i, run := range runs {
		side := Group{UserAgents: run.userAgents, Purposes: run.purposes}
		var refs []usageRef
		for vi, u := range usageVocabs {
			for k, r := range p.cur.usageRules(vi) {
				if own[i][[2]int{vi, k}] {
					side.addUsageRule(vi, usage.Rule{Path: r.Path, Preferences: maps.Clone(r.Preferences)})
					continue
				}
				prefs, _ := u.v.FromConfig(r.Preferences)
				nv := disallowsOf(u.v, prefs)
				if nv.IsEmpty() && r.Path == "" {
					continue
				}
				refs = append(refs, usageRef{len(out), vi, len(side.usageRules(vi))})
				side.addUsageRule(vi, usage.Rule{Path: r.Path, Preferences: nv.Map()})
			}
		}
		// A run whose user-agent lines were all skipped addresses no one.
		if len(side.ContentUsage)+len(side.ContentSignal) > 0 && len(side.UserAgents)+len(side.Purposes) > 0 {
			out = append(out, side)
			runLines = append(runLines, run.line)
			foreign = append(foreign, refs...)
		}
	}
	return out, runLines, foreign
}

// foldForeign adds to each rule that splitRuns gave a run from the one-group reading the "n"
// values of the rules it overrides for the run's crawlers (as long or shorter, matching some
// of its paths, in any group naming one of the run's user agents or purposes): where only the
// one-group reading gives a crawler that rule, attach-05 gives it those.
func (p *parser) foldForeign() {
	if len(p.foreign) == 0 {
		return
	}
	f := p.f
	sharesName := func(a, b *Group) bool {
		for _, x := range a.UserAgents {
			if slices.ContainsFunc(b.UserAgents, func(y string) bool { return strings.EqualFold(x, y) }) {
				return true
			}
		}
		for _, x := range a.Purposes {
			if slices.ContainsFunc(b.Purposes, func(y string) bool { return strings.EqualFold(x, y) }) {
				return true
			}
		}
		return false
	}
	folded := make([]usage.Prefs, len(p.foreign))
	for i, ref := range p.foreign {
		u := usageVocabs[ref.vi]
		r := f.Groups[ref.g].usageRules(ref.vi)[ref.k]
		sh := shapeOf(usagePath(r.Path))
		nv, _ := u.v.FromConfig(r.Preferences)
		for gi := range f.Groups {
			if !sharesName(&f.Groups[ref.g], &f.Groups[gi]) {
				continue
			}
			for k, o := range f.Groups[gi].usageRules(ref.vi) {
				if gi == ref.g && k == ref.k {
					continue
				}
				if osh := shapeOf(usagePath(o.Path)); osh.size <= sh.size && osh.overlaps(sh) {
					op, _ := u.v.FromConfig(o.Preferences)
					nv = usage.Combine(nv, disallowsOf(u.v, op))
				}
			}
		}
		folded[i] = nv
	}
	for i, ref := range p.foreign {
		f.Groups[ref.g].usageRules(ref.vi)[ref.k].Preferences = folded[i].Map()
	}
}

// usagePath is the pattern a preference rule applies to: its path, or "/" without one.
func usagePath(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

func cutComment(s string) string {
	if i := strings.IndexAny(s, "#\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

func tokens(v usage.Vocab) []string {
	if v == usage.ContentUsage {
		return []string{"y", "n"}
	}
	return []string{"yes", "no"}
}

// readPrefs reads a valid Dictionary into configuration form, extensions ("+key") included,
// and names the members left out (dropped or with parameters dropped).
func readPrefs(v usage.Vocab, dict string) (map[string]string, []string) {
	m := map[string]string{}
	d, err := httpsfv.UnmarshalDictionary([]string{dict})
	if err != nil {
		return m, nil
	}
	var ignored []string
	vocabKeys := v.Keys()
	toks := tokens(v)
	for _, name := range d.Names() {
		member, _ := d.Get(name)
		item, ok := member.(httpsfv.Item)
		tok, isTok := item.Value.(httpsfv.Token)
		if !ok || !isTok || !slices.Contains(toks, string(tok)) {
			ignored = append(ignored, name+" (its value is not "+strings.Join(toks, " or ")+")")
			continue
		}
		key := name
		if !slices.Contains(vocabKeys, name) {
			key = "+" + name
			if _, err := v.FromConfig(map[string]string{key: string(tok)}); err != nil {
				ignored = append(ignored, name+" (not a valid extension key)")
				continue
			}
		}
		m[key] = string(tok)
		if item.Params != nil && len(item.Params.Names()) > 0 {
			ignored = append(ignored, "the parameters of "+name)
		}
	}
	return m, ignored
}

// usageMatchRule is a preference rule prepared for matching.
type usageMatchRule struct {
	pat   string // normalised pattern without a final "$"
	end   bool
	size  int // octets as written, non-ASCII encoded; "" counts as "/"
	prefs usage.Prefs
}

// prepareUsage prepares a group's rules of one vocabulary, most specific first.
func prepareUsage(v usage.Vocab, rs []usage.Rule) []usageMatchRule {
	var out []usageMatchRule
	for _, r := range rs {
		path := r.Path
		if path == "" {
			path = "/"
		}
		p, _ := v.FromConfig(r.Preferences)
		mr := usageMatchRule{pat: normalise(path, true), size: len(path) + 2*nonASCII(path), prefs: p}
		if strings.HasSuffix(mr.pat, "$") {
			mr.pat, mr.end = mr.pat[:len(mr.pat)-1], true
		}
		out = append(out, mr)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].size > out[j].size })
	return out
}

// Preferences returns the AI usage preferences of vocabulary v (Content-Usage or
// Content-Signal) that the file states for the crawler with productToken (and purpose) and
// path, as draft-ietf-aipref-attach-05 says:
//
//   - only a path the crawler may fetch has preferences: a path Decide disallows has none
//     (the empty set);
//   - the groups are those Decide obeys (merged when several name the token);
//   - among their rules of v, the one with the longest matching path wins, measured as
//     Allow/Disallow patterns are (octets as written, non-ASCII percent-encoded); a rule
//     without a path applies to "/";
//   - rules with identical paths are combined with usage.Combine (any disallow wins, else
//     any allow); so are rules with distinct patterns of the same length that both match.
//
// A rule whose preferences are empty makes every preference unknown under its path.
func (m *Matcher) Preferences(v usage.Vocab, productToken, purpose, path string) usage.Prefs {
	if m.usage[v] == nil {
		return usage.Prefs{}
	}
	d := m.Decide(productToken, purpose, path)
	if !d.Allowed || d.Group < 0 {
		return usage.Prefs{}
	}
	sel, _ := m.groupsFor(productToken, purpose)
	if i := strings.IndexByte(path, '#'); i >= 0 {
		path = path[:i]
	}
	if path == "" {
		path = "/"
	}
	var buf [512]byte
	np := appendNormalised(buf[:0], path, false)
	var out usage.Prefs
	best := -1
	for _, gi := range sel {
		for _, r := range m.usage[v][gi] {
			if r.size < best {
				break
			}
			if matchPattern(r.pat, r.end, np) {
				if r.size > best {
					out, best = r.prefs, r.size
				} else {
					out = usage.Combine(out, r.prefs)
				}
			}
		}
	}
	return out
}

// usageWarnings is the part of Warnings about preference rules: a file-level
// Content-Usage or Content-Signal record, and a Content-Usage or Content-Signal rule whose
// path is disallowed for every crawler that reads it (preferences apply only to paths that
// may be crawled, attach-05). A crawler reads a group's rules merged with those of the other
// groups that name it (RFC 9309 2.2.1), so each of the group's user agents (presets
// expanded) and purposes is checked against its merged rules. The path of a rule stands for
// the paths it matches: the rule is reported when the merged rules disallow its path and no
// Allow rule among them can match a path the rule matches.
func (f *File) usageWarnings() []*configerr.Error {
	var out []*configerr.Error
	for i, r := range f.Records {
		if vi := usageKind(r.Key); vi >= 0 {
			out = append(out, configerr.New(configerr.Index("records", i)+".key", r.Key,
				fmt.Sprintf("a %s line outside any group applies to no crawler (draft-ietf-aipref-attach puts it inside a group): use a group's %s", usageVocabs[vi].v, usageVocabs[vi].field)))
		}
	}
	ef := f.Expand(false) // groups stay at their indexes
	for gi := range f.Groups {
		g := &f.Groups[gi]
		if len(g.ContentUsage)+len(g.ContentSignal) == 0 {
			continue
		}
		readers := readerRules(ef, gi)
		for vi, u := range usageVocabs {
			for i, r := range g.usageRules(vi) {
				if checkUsagePath(r.Path) != "" || len(readers) == 0 {
					continue
				}
				var by *Rule
				for _, rules := range readers {
					if by = disallowsAll(rules, r.Path); by == nil {
						break
					}
				}
				if by == nil {
					continue
				}
				out = append(out, configerr.New(configerr.Index(configerr.Index("groups", gi)+"."+u.field, i), r.Path,
					fmt.Sprintf("every crawler the group addresses is disallowed this path (%s %q), and preferences apply only to paths that may be crawled (draft-ietf-aipref-attach): this %s rule has no effect", by.Type, by.Path, u.v)))
			}
		}
	}
	return out
}

// readerRules returns, for each crawler that reads group gi of f (one per user agent and
// purpose of the group), the rules it obeys: those of every group naming it, merged.
func readerRules(f *File, gi int) [][]Rule {
	var out [][]Rule
	merged := func(names func(*Group) []string, name string) []Rule {
		var rules []Rule
		for hi := range f.Groups {
			if slices.ContainsFunc(names(&f.Groups[hi]), func(s string) bool { return strings.EqualFold(s, name) }) {
				rules = append(rules, f.Groups[hi].Rules...)
			}
		}
		return rules
	}
	g := &f.Groups[gi]
	for _, ua := range g.UserAgents {
		out = append(out, merged(func(h *Group) []string { return h.UserAgents }, ua))
	}
	for _, p := range g.Purposes {
		out = append(out, merged(func(h *Group) []string { return h.Purposes }, p))
	}
	return out
}

// disallowsAll returns the rule that disallows every path the preference rule's path
// matches, or nil if rules may let some of them be crawled: the literal part of the path
// (up to its first "*") is disallowed by a rule that is not "$"-anchored, so every path
// starting with it is too, and no Allow rule can match a path that the preference rule
// matches.
func disallowsAll(rules []Rule, path string) *Rule {
	if path == "" {
		path = "/"
	}
	m := NewMatcher(&File{Groups: []Group{{UserAgents: []string{"*"}, Rules: rules}}})
	lit, _, _ := strings.Cut(normalise(path, true), "*")
	lit = strings.TrimSuffix(lit, "$")
	d := m.Decide("*", "", lit)
	if d.Allowed || d.Rule == nil || strings.HasSuffix(d.Rule.Path, "$") {
		// Allowed, or disallowed only at that one path.
		return nil
	}
	glob := strings.TrimSuffix(normalise(path, true), "$")
	if !strings.HasSuffix(normalise(path, true), "$") {
		glob += "*"
	}
	for _, ar := range rules {
		if ar.Type != Allow || ar.Path == "" {
			continue
		}
		ag := normalise(ar.Path, true)
		if strings.HasSuffix(ag, "$") {
			ag = ag[:len(ag)-1]
		} else {
			ag += "*"
		}
		if coMatch(glob, ag) {
			return nil
		}
	}
	return d.Rule
}
