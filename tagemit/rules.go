package tagemit

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sitepolicy/caddy-robots/configerr"
)

// ruleKind tells how a rule carries its value.
type ruleKind int

const (
	kindFlag    ruleKind = iota // boolean rule: present or absent
	kindInt                     // integer >= -1, -1 meaning unlimited
	kindPreview                 // none | standard | large
	kindDate                    // a point in time
)

// Flag bits, in canonical emission order.
const (
	flagNoindex uint16 = 1 << iota
	flagNosnippet
	flagIndexifembedded
	flagNoarchive
	flagNocache
	flagNofollow
	flagNoimageindex
	flagNotranslate
)

type ruleDef struct {
	name string
	kind ruleKind
	flag uint16 // for kindFlag
}

// registry lists every rule tagemit knows, in canonical order: the two rules of the
// draft's registry first, then the rules crawlers document, alphabetically.
var registry = []ruleDef{
	{"noindex", kindFlag, flagNoindex},
	{"nosnippet", kindFlag, flagNosnippet},
	{"indexifembedded", kindFlag, flagIndexifembedded},
	{"max-image-preview", kindPreview, 0},
	{"max-snippet", kindInt, 0},
	{"max-video-preview", kindInt, 0},
	{"noarchive", kindFlag, flagNoarchive},
	{"nocache", kindFlag, flagNocache},
	{"nofollow", kindFlag, flagNofollow},
	{"noimageindex", kindFlag, flagNoimageindex},
	{"notranslate", kindFlag, flagNotranslate},
	{"unavailable_after", kindDate, 0},
}

// Names of the rules with a special meaning outside the registry.
const (
	ruleNone = "none" // shorthand for noindex, nofollow: expanded on input
	ruleAll  = "all"  // the permissive no-op: rejected in configuration, ignored when read
)

func lookupRule(name string) (ruleDef, bool) {
	for _, d := range registry {
		if d.name == name {
			return d, true
		}
	}
	return ruleDef{}, false
}

// isRuleName reports whether the lower-case name is a rule name, including none and all.
func isRuleName(name string) bool {
	_, ok := lookupRule(name)
	return ok || name == ruleNone || name == ruleAll
}

// Image preview sizes, most restrictive first.
const (
	previewUnset int8 = iota
	previewNone
	previewStandard
	previewLarge
)

var previewNames = [...]string{"", "none", "standard", "large"}

func parsePreview(s string) (int8, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "none":
		return previewNone, true
	case "standard":
		return previewStandard, true
	case "large":
		return previewLarge, true
	}
	return previewUnset, false
}

// maxSFInteger is the largest Integer a Structured Field can carry (RFC 9651 §3.3.1).
const maxSFInteger = 999_999_999_999_999

// ruleSet is the rules for one product token.
type ruleSet struct {
	flags            uint16
	hasSnippet       bool
	maxSnippet       int64
	hasVideo         bool
	maxVideoPreview  int64
	maxImagePreview  int8 // previewUnset when absent
	hasUnavailable   bool
	unavailableAfter time.Time // UTC, whole seconds

	// ext holds rules outside the registry read from a backend's header or a page
	// (e.g. "noai"): boolean rules whose names are valid SF keys, kept so that merging
	// a backend's header never drops its restrictions. Sorted, unique; never shared
	// for writing. NewPolicy does not accept them.
	ext []string
}

// isExtensionName reports whether an unknown rule name can be kept and emitted safely in
// every form: an SF key (lcalpha first; lcalpha, DIGIT, "_", "-", ".", "*" after), which
// also cannot break the X-Robots-Tag or meta syntax.
func isExtensionName(name string) bool {
	if name == "" || len(name) > 64 || name[0] < 'a' || name[0] > 'z' || isRuleName(name) {
		return false
	}
	for i := 1; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.' || c == '*') {
			return false
		}
	}
	return true
}

// mergeNames returns the sorted union of two sorted name lists in a new slice.
func mergeNames(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := make([]string, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

func (r ruleSet) isEmpty() bool {
	return r.flags == 0 && !r.hasSnippet && !r.hasVideo && r.maxImagePreview == previewUnset && !r.hasUnavailable && len(r.ext) == 0
}

// lessRestrictiveLimit reports whether limit a restricts less than b, where -1 means unlimited.
func lessRestrictiveLimit(a, b int64) bool {
	if a == -1 {
		return b != -1
	}
	if b == -1 {
		return false
	}
	return a > b
}

// union combines two rule sets for one token from independent sources (a route and a
// backend): every restriction of either, the most restrictive value of each valued rule.
// indexifembedded relaxes noindex, so it survives only when no side states noindex
// without it.
func (r ruleSet) union(q ruleSet) ruleSet {
	out := r.add(q)
	relaxes := func(s ruleSet) bool {
		return s.flags&flagNoindex == 0 || s.flags&flagIndexifembedded != 0
	}
	if !relaxes(r) || !relaxes(q) {
		out.flags &^= flagIndexifembedded
	}
	return out
}

// add combines rules one statement makes for one token (the members of one field value,
// the rules of one meta element): every rule of either, the most restrictive value of each
// valued rule. Unlike union, noindex and indexifembedded stated together both stand.
func (r ruleSet) add(q ruleSet) ruleSet {
	out := r
	out.flags |= q.flags
	if q.hasSnippet && (!out.hasSnippet || lessRestrictiveLimit(out.maxSnippet, q.maxSnippet)) {
		out.hasSnippet, out.maxSnippet = true, q.maxSnippet
	}
	if q.hasVideo && (!out.hasVideo || lessRestrictiveLimit(out.maxVideoPreview, q.maxVideoPreview)) {
		out.hasVideo, out.maxVideoPreview = true, q.maxVideoPreview
	}
	if q.maxImagePreview != previewUnset && (out.maxImagePreview == previewUnset || q.maxImagePreview < out.maxImagePreview) {
		out.maxImagePreview = q.maxImagePreview
	}
	if q.hasUnavailable && (!out.hasUnavailable || q.unavailableAfter.Before(out.unavailableAfter)) {
		out.hasUnavailable, out.unavailableAfter = true, q.unavailableAfter
	}
	out.ext = mergeNames(r.ext, q.ext)
	return out
}

// minus returns the rules of r that q does not already imply (q states the flag, or a
// valued rule at least as restrictive). Used to avoid repeating rules a page states.
func (r ruleSet) minus(q ruleSet) ruleSet {
	out := r
	out.flags &^= q.flags
	if out.flags&flagNoindex == 0 && r.flags&flagNoindex != 0 {
		// noindex is already stated by q; keep indexifembedded only if q has it too
		if q.flags&flagIndexifembedded != 0 {
			out.flags &^= flagIndexifembedded
		}
	}
	if out.hasSnippet && q.hasSnippet && !lessRestrictiveLimit(q.maxSnippet, r.maxSnippet) {
		out.hasSnippet, out.maxSnippet = false, 0
	}
	if out.hasVideo && q.hasVideo && !lessRestrictiveLimit(q.maxVideoPreview, r.maxVideoPreview) {
		out.hasVideo, out.maxVideoPreview = false, 0
	}
	if out.maxImagePreview != previewUnset && q.maxImagePreview != previewUnset && q.maxImagePreview <= r.maxImagePreview {
		out.maxImagePreview = previewUnset
	}
	if out.hasUnavailable && q.hasUnavailable && !q.unavailableAfter.After(r.unavailableAfter) {
		out.hasUnavailable, out.unavailableAfter = false, time.Time{}
	}
	if len(q.ext) > 0 {
		var kept []string
		for _, e := range r.ext {
			if !slices.Contains(q.ext, e) {
				kept = append(kept, e)
			}
		}
		out.ext = kept
	}
	return out
}

// ruleValue is one rule of a set, for emission in canonical order.
type ruleValue struct {
	def ruleDef
	i   int64  // kindInt
	s   string // kindPreview: size name; kindDate: canonical date
}

func (r ruleSet) each(f func(ruleValue)) {
	for _, d := range registry {
		switch d.kind {
		case kindFlag:
			if r.flags&d.flag != 0 {
				f(ruleValue{def: d})
			}
		case kindInt:
			if d.name == "max-snippet" && r.hasSnippet {
				f(ruleValue{def: d, i: r.maxSnippet})
			}
			if d.name == "max-video-preview" && r.hasVideo {
				f(ruleValue{def: d, i: r.maxVideoPreview})
			}
		case kindPreview:
			if r.maxImagePreview != previewUnset {
				f(ruleValue{def: d, s: previewNames[r.maxImagePreview]})
			}
		case kindDate:
			if r.hasUnavailable {
				f(ruleValue{def: d, s: formatDate(r.unavailableAfter)})
			}
		}
	}
	for _, e := range r.ext {
		f(ruleValue{def: ruleDef{name: e, kind: kindFlag}})
	}
}

// valueString renders a rule's value as text ("" for flags).
func (v ruleValue) valueString() string {
	switch v.def.kind {
	case kindInt:
		return strconv.FormatInt(v.i, 10)
	case kindPreview, kindDate:
		return v.s
	}
	return ""
}

// strings renders the set as rule strings with sep between name and value.
func (r ruleSet) strings(sep string) []string {
	var out []string
	r.each(func(v ruleValue) {
		if v.def.kind == kindFlag {
			out = append(out, v.def.name)
		} else {
			out = append(out, v.def.name+sep+v.valueString())
		}
	})
	return out
}

// set adds one rule with its textual value (already split from the name) to r.
func (r *ruleSet) set(d ruleDef, value string, hasValue bool) error {
	value = strings.TrimSpace(value)
	if d.kind == kindFlag {
		if hasValue {
			return fmt.Errorf("rule %q takes no value (got %q)", d.name, value)
		}
		r.flags |= d.flag
		return nil
	}
	if !hasValue || value == "" {
		return fmt.Errorf("rule %q needs a value", d.name)
	}
	var add ruleSet
	switch d.kind {
	case kindInt:
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < -1 || n > maxSFInteger {
			return fmt.Errorf("rule %q: value %q is not an integer from -1 to %d", d.name, value, int64(maxSFInteger))
		}
		if d.name == "max-snippet" {
			add.hasSnippet, add.maxSnippet = true, n
		} else {
			add.hasVideo, add.maxVideoPreview = true, n
		}
	case kindPreview:
		p, ok := parsePreview(value)
		if !ok {
			return fmt.Errorf("rule %q: value %q is not one of none, standard, large", d.name, value)
		}
		add.maxImagePreview = p
	case kindDate:
		t, err := parseDate(value)
		if err != nil {
			return fmt.Errorf("rule %q: %v", d.name, err)
		}
		add.hasUnavailable, add.unavailableAfter = true, t
	}
	*r = r.add(add)
	return nil
}

// addRuleText parses one rule written as "name", "name=value" or "name: value" (the
// form crawlers document) and adds it. none expands to noindex, nofollow; all is
// reported as an error that restricts nothing.
func (r *ruleSet) addRuleText(text string) error {
	text = strings.TrimSpace(text)
	name, value, hasValue := text, "", false
	if i := strings.IndexAny(text, "=:"); i >= 0 {
		name, value, hasValue = strings.TrimSpace(text[:i]), text[i+1:], true
	}
	return r.addNamed(strings.ToLower(name), value, hasValue)
}

func (r *ruleSet) addNamed(name, value string, hasValue bool) error {
	switch name {
	case "":
		return fmt.Errorf("empty rule")
	case ruleNone:
		if hasValue {
			return fmt.Errorf("rule %q takes no value (got %q)", name, strings.TrimSpace(value))
		}
		r.flags |= flagNoindex | flagNofollow
		return nil
	case ruleAll:
		return fmt.Errorf("rule %q restricts nothing (it is the default); leave it out", name)
	}
	d, ok := lookupRule(name)
	if !ok {
		return &configerr.Error{Problem: fmt.Sprintf("unknown rule %q", name), Suggestion: configerr.Closest(name, ruleNames())}
	}
	return r.set(d, value, hasValue)
}

// addParsed adds a rule read from a header or page: like addNamed, but an unknown
// boolean rule whose name isExtensionName is kept as an extension rule.
func (r *ruleSet) addParsed(name, value string, hasValue bool) error {
	if !hasValue && isExtensionName(name) {
		if !slices.Contains(r.ext, name) {
			r.ext = mergeNames(slices.Clone(r.ext), []string{name})
		}
		return nil
	}
	return r.addNamed(name, value, hasValue)
}

// ruleNames lists the rule names a configuration may use, for suggestions.
func ruleNames() []string {
	names := []string{ruleNone}
	for _, d := range registry {
		names = append(names, d.name)
	}
	return names
}

// Date handling for unavailable_after. The canonical form is RFC 3339 in UTC with whole
// seconds, e.g. 2027-01-01T00:00:00Z.

func formatDate(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// rfc822Zones are the zone names RFC 822 defines (Go's parser gives unknown
// abbreviations a zero offset, so they are resolved here).
var rfc822Zones = map[string]int{
	"UT": 0, "GMT": 0, "UTC": 0, "Z": 0,
	"EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6, "PST": -8, "PDT": -7,
}

var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05", // ISO 8601 without zone: UTC
	"2006-01-02T15:04",    // ISO 8601 without seconds
	"2006-01-02",          // ISO 8601 date: midnight UTC
	time.RFC1123,          // Mon, 02 Jan 2006 15:04:05 MST (RFC 822 with 4-digit year)
	time.RFC1123Z,         // Mon, 02 Jan 2006 15:04:05 -0700
	time.RFC822,           // 02 Jan 06 15:04 MST
	time.RFC822Z,          // 02 Jan 06 15:04 -0700
	time.RFC850,           // Monday, 02-Jan-06 15:04:05 MST
	"Monday, 02-Jan-2006 15:04:05 MST",
	"02 Jan 2006 15:04:05 MST", // Google's documented example form
	"02 Jan 2006 15:04:05 -0700",
	"02 Jan 2006 15:04 MST",
	"Mon, 02 Jan 06 15:04:05 MST",
	"Mon, 02 Jan 2006 15:04 MST",
	"Mon, 2 Jan 2006 15:04:05 MST",
	"2 Jan 2006 15:04:05 MST",
	time.ANSIC,
}

// parseDate reads the date forms crawlers document for unavailable_after: RFC 3339 /
// ISO 8601, RFC 822 / RFC 1123 and RFC 850.
func parseDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	// Header values reach here lower-cased with their rule names; month, weekday and zone
	// names are case-insensitive, and RFC 3339 wants "T" and "Z" in upper case.
	u := strings.ToUpper(s)
	for _, layout := range dateLayouts {
		t, err := time.ParseInLocation(layout, u, time.UTC)
		if err != nil {
			continue
		}
		if strings.Contains(layout, "MST") {
			name, off := t.Zone()
			if off == 0 {
				h, ok := rfc822Zones[strings.ToUpper(name)]
				if !ok {
					return time.Time{}, fmt.Errorf("date %q: unknown time zone %q", s, name)
				}
				t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.FixedZone(name, h*3600))
			}
		}
		t = t.UTC().Truncate(time.Second)
		if t.Year() < 1 || t.Year() > 9999 {
			return time.Time{}, fmt.Errorf("date %q is out of range", s)
		}
		return t, nil
	}
	return time.Time{}, fmt.Errorf("date %q is not RFC 3339, RFC 822/1123 or RFC 850", s)
}
