package tagemit

import (
	"errors"
	"fmt"
	"html"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/dunglas/httpsfv"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/internal/syntax"
)

// MaxFieldSize is the parsing limit the draft sets as the minimum every parser honours
// (8 KiB). NewPolicy rejects a policy whose Robots-Tag value is longer, and
// ParseRobotsTag processes only this many bytes of a field value.
const MaxFieldSize = syntax.MaxFieldSize

// GlobalToken is the product token that addresses every accessor.
const GlobalToken = "*"

// Policy is a set of robots rules per product token ("*" = every accessor). A Policy is
// an immutable value in canonical form: tokens are lower-cased, rules are deduplicated
// and kept in a canonical order, so equal policies serialise to equal bytes. Its
// serialisations (RobotsTag, XRobotsTag, MetaElements) are computed once, when the
// Policy is built (the legacy and HTML forms on their first use), so calling them per
// request costs nothing.
//
// The zero value is the empty policy.
type Policy struct {
	d *policyData
}

type policyData struct {
	tokens    []string  // canonical order: byte-wise, so "*" first
	rules     []ruleSet // parallel to tokens, none empty
	robotsTag string

	// The legacy and HTML forms are computed on first use (once), so parsing a
	// backend's header does not pay for serialisations nobody asks for.
	lazy    sync.Once
	xRobots []string
	meta    []byte
}

func (d *policyData) computeLazy() {
	d.lazy.Do(func() {
		d.xRobots = d.legacyLines()
		d.meta = d.metaElements()
	})
}

// validToken reports whether tok is an RFC 9309 product token (A-Z a-z _ -), a word with
// digits as well (AI2Bot, crawlers.IsToken), or "*".
func validToken(tok string) bool { return tok == GlobalToken || crawlers.IsToken(tok) }

// checkToken validates and canonicalises a configured product token; the problem is "" for a
// valid one, and the suggestion a token that tok most likely meant, or "".
func checkToken(tok string) (ctok, problem, suggestion string) {
	if !validToken(tok) {
		problem, suggestion := crawlers.NotToken(tok)
		return "", problem, suggestion
	}
	low := strings.ToLower(tok)
	if crawlers.IsCategory(low) {
		return "", fmt.Sprintf("%q is a category of the crawler catalogue, not a crawler: write %s%s for its crawlers", low, PresetPrefix, low), ""
	}
	if low == "robots" {
		return "", fmt.Sprintf("this product token is reserved: in HTML it names every accessor; use %q", GlobalToken), ""
	}
	if isRuleName(low) {
		return "", "a product token must not be a rule name, which the X-Robots-Tag syntax cannot tell apart from a rule", ""
	}
	return low, "", ""
}

// NewPolicy builds a Policy from product token -> rule strings such as "noindex",
// "max-snippet=50", "max-image-preview=large" or
// "unavailable_after=2027-01-01T00:00:00Z" ("name: value" is accepted too). Rule names
// are case-insensitive; "none" expands to noindex and nofollow. An unknown or mistyped
// rule is an error naming it and suggesting the closest known rule; so is "all" (it
// restricts nothing), an invalid product token or value, and a policy whose Robots-Tag
// serialisation exceeds MaxFieldSize. A token listed with no rules is left out.
//
// A key "preset:<category>" (PresetPrefix) names a category of the crawler catalogue
// (package crawlers): its rules go to every catalogue name of the category that may be
// written as a token (crawlers.TokenProduct and TokenDigits), one member each, added to the
// rules those tokens have otherwise. An unknown category is an error listing the known ones.
func NewPolicy(rules map[string][]string) (Policy, error) { return NewPolicyExcept(rules, nil) }

// NewPolicyExcept is NewPolicy with presets that leave out the crawlers except names
// (compared without case, as robots.txt presets leave them out): those get no rules from any
// preset, only the rules given to their own token and to "*". Names that no preset holds are
// ignored here; CheckExcept reports them.
func NewPolicyExcept(rules map[string][]string, except []string) (Policy, error) {
	m := map[string]ruleSet{}
	var errs []error
	// Map order is random: report in token order so the same config gives the same error.
	presets := 0
	for _, tok := range slices.Sorted(maps.Keys(rules)) {
		at := configerr.Key("", tok)
		if names, problem, ok := presetTokens(tok, except); ok {
			if problem != nil {
				problem.Path = at
				errs = append(errs, problem)
				continue
			}
			rs, rerrs := ruleSetOf(at, rules[tok])
			errs = append(errs, rerrs...)
			for _, n := range names {
				m[n] = m[n].union(rs)
			}
			presets += len(names)
			continue
		}
		ctok, problem, suggestion := checkToken(tok)
		if problem != "" {
			errs = append(errs, &configerr.Error{Path: at, Value: tok, Problem: problem, Suggestion: suggestion})
			continue
		}
		rs, rerrs := ruleSetOf(at, rules[tok])
		errs = append(errs, rerrs...)
		m[ctok] = m[ctok].union(rs)
	}
	if len(errs) > 0 {
		return Policy{}, errors.Join(errs...)
	}
	p := build(m)
	if n := len(p.RobotsTag()); n > MaxFieldSize {
		msg := fmt.Sprintf("the Robots-Tag value would be %d bytes, over the %d-byte limit parsers must honour", n, MaxFieldSize)
		if presets > 0 {
			msg += fmt.Sprintf(": the presets add %d tokens, each with its rules; give a preset fewer rules, use a narrower category, or give the rules to %q", presets, GlobalToken)
		}
		return Policy{}, &configerr.Error{Problem: msg}
	}
	return p, nil
}

// ruleSetOf reads the rule strings of the token at path at.
func ruleSetOf(at string, rules []string) (ruleSet, []error) {
	var rs ruleSet
	var errs []error
	for i, text := range rules {
		if err := rs.addRuleText(text); err != nil {
			e := &configerr.Error{Path: configerr.Index(at, i), Value: text, Problem: err.Error()}
			var ce *configerr.Error
			if errors.As(err, &ce) {
				e.Problem, e.Suggestion = ce.Problem, ce.Suggestion
			}
			errs = append(errs, e)
		}
	}
	return rs, errs
}

// build canonicalises m and precomputes the serialisations.
func build(m map[string]ruleSet) Policy {
	d := &policyData{}
	for tok, rs := range m {
		if !rs.isEmpty() {
			d.tokens = append(d.tokens, tok)
		}
	}
	if len(d.tokens) == 0 {
		return Policy{}
	}
	slices.Sort(d.tokens)
	for _, tok := range d.tokens {
		d.rules = append(d.rules, m[tok])
	}
	d.robotsTag = d.sfList()
	return Policy{d: d}
}

func (p Policy) toMap() map[string]ruleSet {
	m := map[string]ruleSet{}
	if p.d != nil {
		for i, tok := range p.d.tokens {
			m[tok] = p.d.rules[i]
		}
	}
	return m
}

// tokenValue is the SF bare item for a product token: a Token when SF can express it,
// else a String (RFC 9309 allows tokens starting with '-' or '_', SF Tokens do not).
func tokenValue(tok string) any {
	if tok == GlobalToken || ('a' <= tok[0] && tok[0] <= 'z') {
		return httpsfv.Token(tok)
	}
	return tok
}

func (d *policyData) sfList() string {
	list := make(httpsfv.List, 0, len(d.tokens))
	for i, tok := range d.tokens {
		item := httpsfv.NewItem(tokenValue(tok))
		d.rules[i].each(func(v ruleValue) {
			switch v.def.kind {
			case kindFlag:
				item.Params.Add(v.def.name, true)
			case kindInt:
				item.Params.Add(v.def.name, v.i)
			case kindPreview:
				item.Params.Add(v.def.name, httpsfv.Token(v.s))
			case kindDate:
				item.Params.Add(v.def.name, v.s)
			}
		})
		list = append(list, item)
	}
	s, err := httpsfv.Marshal(list)
	if err != nil {
		// Every value above is valid by construction.
		panic("tagemit: serialising a canonical policy failed: " + err.Error())
	}
	return s
}

func (d *policyData) legacyLines() []string {
	out := make([]string, 0, len(d.tokens))
	for i, tok := range d.tokens {
		line := strings.Join(d.rules[i].strings(": "), ", ")
		if tok != GlobalToken {
			line = tok + ": " + line
		}
		out = append(out, line)
	}
	return out
}

func (d *policyData) metaElements() []byte {
	var b strings.Builder
	for i, tok := range d.tokens {
		name := tok
		if tok == GlobalToken {
			name = "robots"
		}
		b.WriteString(`<meta name="`)
		b.WriteString(html.EscapeString(name))
		b.WriteString(`" content="`)
		b.WriteString(html.EscapeString(strings.Join(d.rules[i].strings(":"), ", ")))
		b.WriteString(`">`)
	}
	return []byte(b.String())
}

// Union returns the union of the restrictions of p and q, per product token. For a
// valued rule the most restrictive value wins: the smallest max-snippet and
// max-video-preview (-1, unlimited, being the least restrictive), the smallest
// max-image-preview (none < standard < large) and the earliest unavailable_after.
// indexifembedded relaxes noindex, so it survives only when no side states noindex
// without it. The result is not checked against MaxFieldSize (check len(RobotsTag())
// when combining arbitrary policies).
func (p Policy) Union(q Policy) Policy {
	if q.IsEmpty() {
		return p
	}
	if p.IsEmpty() {
		return q
	}
	m := p.toMap()
	for i, tok := range q.d.tokens {
		m[tok] = m[tok].union(q.d.rules[i])
	}
	return build(m)
}

// IsEmpty reports whether p states no rule at all.
func (p Policy) IsEmpty() bool { return p.d == nil }

// Equal reports whether p and q state the same rules for the same tokens.
func (p Policy) Equal(q Policy) bool { return p.RobotsTag() == q.RobotsTag() }

// Rules returns a canonical copy of the policy: product token -> rule strings in the
// form NewPolicy accepts, e.g. "max-snippet=50". A policy read by ParseRobotsTag or
// ParseXRobotsTag may also list unknown rules it kept (e.g. "noai"), which NewPolicy
// rejects.
func (p Policy) Rules() map[string][]string {
	m := map[string][]string{}
	if p.d != nil {
		for i, tok := range p.d.tokens {
			m[tok] = p.d.rules[i].strings("=")
		}
	}
	return m
}

// RobotsTag returns the Robots-Tag field value: a Structured Field List whose members
// are Items naming a product token, with the token's rules as lower-case Parameters,
// e.g. `*;noindex;nosnippet, examplebot;max-snippet=20`. Product tokens starting with
// '-' or '_' are Strings. It returns "" for the empty policy.
func (p Policy) RobotsTag() string {
	if p.d == nil {
		return ""
	}
	return p.d.robotsTag
}

// XRobotsTag returns the legacy X-Robots-Tag field lines in the historic syntax crawlers
// read today, one per product token, e.g.
// ["noindex, nosnippet", "examplebot: noindex, max-snippet: 20"]. The draft deprecates
// the X- name: emitting it is the caller's opt-in. It returns nil for the empty policy.
// The returned slice is shared: do not modify it.
func (p Policy) XRobotsTag() []string {
	if p.d == nil {
		return nil
	}
	p.d.computeLazy()
	return p.d.xRobots
}

// MetaElements returns one robots meta element per product token, e.g.
// `<meta name="robots" content="noindex, nosnippet"><meta name="examplebot" content="max-snippet:50">`,
// with attribute values escaped. Valued rules use the "name:value" form crawlers
// document. It returns nil for the empty policy. The returned slice is shared: do not
// modify it.
func (p Policy) MetaElements() []byte {
	if p.d == nil {
		return nil
	}
	p.d.computeLazy()
	return p.d.meta
}

// String returns the Robots-Tag value, for debugging.
func (p Policy) String() string { return p.RobotsTag() }

// RulesFor returns the rules that apply to an accessor with the given product token:
// the union of the rules for "*" and for the token (matched case-insensitively), as
// canonical rule strings. RulesFor("*") gives the global rules.
func (p Policy) RulesFor(token string) []string {
	m := p.toMap()
	return m[GlobalToken].union(m[strings.ToLower(token)]).strings("=")
}
