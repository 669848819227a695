package tagemit

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dunglas/httpsfv"
)

// segment is a piece of a field value between top-level separators.
type segment struct {
	text       string
	start, end int // offsets in the value
}

// splitTopLevel splits s at sep outside SF Strings and Display Strings (double quotes with
// backslash escapes). It only finds member boundaries; httpsfv parses each piece.
func splitTopLevel(s string, sep byte) []segment {
	var out []segment
	start, inStr := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case !inStr && c == sep:
			out = append(out, segment{s[start:i], start, i})
			start = i + 1
		}
	}
	return append(out, segment{s[start:], start, len(s)})
}

// lowerOutsideStrings lower-cases ASCII letters outside quoted strings, so rule names are
// case-insensitive as the draft requires while SF keys stay lower case.
func lowerOutsideStrings(s string) string {
	b := []byte(s)
	inStr := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case !inStr && 'A' <= c && c <= 'Z':
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func isOWS(c byte) bool { return c == ' ' || c == '\t' }

// limitValue applies the draft's parsing limit: only the first MaxFieldSize bytes are
// processed; a member cut by the limit, and everything after it, is ignored. It returns
// the processed prefix ending at a member boundary (a separator position or the end).
func limitValue(value string, sep byte) (string, error) {
	if len(value) <= MaxFieldSize {
		return value, nil
	}
	cut, rest := value[:MaxFieldSize], value[MaxFieldSize:]
	i := 0
	for i < len(rest) && isOWS(rest[i]) {
		i++
	}
	if i < len(rest) && rest[i] == sep {
		// The last member ends exactly at (or in whitespace at) the limit: complete.
		return cut, fmt.Errorf("tagemit: field value is %d bytes; ignored the %d bytes past the %d-byte limit", len(value), len(rest), MaxFieldSize)
	}
	segs := splitTopLevel(cut, sep)
	last := segs[len(segs)-1]
	kept := cut[:max(last.start-1, 0)]
	return kept, fmt.Errorf("tagemit: field value is %d bytes; ignored the member truncated at the %d-byte limit (%q...) and everything after it", len(value), MaxFieldSize, truncForMsg(last.text))
}

func truncForMsg(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 40 {
		return s[:40]
	}
	return s
}

// joinLines combines field lines as HTTP does (", "), skipping empty ones.
func joinLines(lines []string) string {
	var kept []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			kept = append(kept, strings.TrimSpace(l))
		}
	}
	return strings.Join(kept, ", ")
}

// ParseRobotsTag reads Robots-Tag field lines into a Policy. It accepts the Structured
// Field List of the current draft with case-insensitive rule names, applies the draft's
// limit (the first MaxFieldSize bytes are processed, every complete valid member in them
// is honoured, the member cut by the limit and everything after it are ignored), and
// salvages every valid member when the value is not a valid List as a whole. It also
// reads the superseded draft-illyes-repext-00 syntax (`*=noindex, nosnippet; ExampleBot=;`).
// Unknown boolean rules whose names are SF keys are kept (see the package
// documentation); other unknown rules are dropped. Every dropped piece is described by
// one of the returned errors. It never panics.
func ParseRobotsTag(fieldLines []string) (Policy, []error) {
	var errs []error
	value := joinLines(fieldLines)
	m := map[string]ruleSet{}
	if value == "" {
		return Policy{}, nil
	}
	lower := lowerOutsideStrings(value)
	sfBody, sfLimitErr := limitValue(lower, ',')
	if list, err := httpsfv.UnmarshalList([]string{sfBody}); err == nil && strings.TrimSpace(sfBody) != "" {
		if sfLimitErr != nil {
			errs = append(errs, sfLimitErr)
		}
		for _, member := range list {
			errs = append(errs, readMember(member, m)...)
		}
		return build(m), errs
	}
	if looksLikeDraft00(lower) {
		body, limitErr := limitValue(lower, ';')
		if limitErr != nil {
			errs = append(errs, limitErr)
		}
		errs = append(errs, readDraft00(body, m)...)
		return build(m), errs
	}
	if sfLimitErr != nil {
		errs = append(errs, sfLimitErr)
	}
	for _, seg := range splitTopLevel(sfBody, ',') {
		if strings.TrimSpace(seg.text) == "" {
			continue
		}
		item, err := httpsfv.UnmarshalItem([]string{strings.Trim(seg.text, " \t")})
		if err != nil {
			errs = append(errs, fmt.Errorf("tagemit: dropped invalid Robots-Tag member %q: %v", truncForMsg(seg.text), err))
			continue
		}
		errs = append(errs, readMember(item, m)...)
	}
	return build(m), errs
}

// looksLikeDraft00 recognises the draft-00 syntax in a value that is not a valid SF
// List: it ends with the ';' every draft-00 value ends with, or a ';'-separated value
// has the form product-token "=" [rules].
func looksLikeDraft00(lower string) bool {
	if strings.HasSuffix(strings.TrimRight(lower, " \t"), ";") {
		return true
	}
	for _, seg := range splitTopLevel(lower, ';') {
		tok, rules, ok := strings.Cut(seg.text, "=")
		if !ok {
			continue
		}
		tok = strings.TrimSpace(tok)
		if !validToken(tok) || isRuleName(tok) {
			continue
		}
		allRules := true
		for _, r := range strings.Split(rules, ",") {
			name := strings.TrimSpace(r)
			if i := strings.IndexAny(name, ":="); i >= 0 {
				name = strings.TrimSpace(name[:i])
			}
			if name != "" && !isRuleName(name) {
				allRules = false
			}
		}
		if allRules {
			return true
		}
	}
	return false
}

// readDraft00 reads `*=noindex, nosnippet; ExampleBot=;` (the global token may be
// omitted: `noindex, nosnippet; ExampleBot=;`).
func readDraft00(body string, m map[string]ruleSet) []error {
	var errs []error
	for _, seg := range splitTopLevel(body, ';') {
		text := strings.TrimSpace(seg.text)
		if text == "" {
			continue
		}
		tok, rules := GlobalToken, text
		if t, r, ok := strings.Cut(text, "="); ok && !isRuleName(strings.TrimSpace(t)) {
			tok, rules = strings.TrimSpace(t), r
			if tok == "" {
				tok = GlobalToken
			}
		}
		if !validToken(tok) {
			errs = append(errs, fmt.Errorf("tagemit: dropped draft-00 value %q: invalid product token %q", truncForMsg(text), tok))
			continue
		}
		tok = canonicalReadToken(tok)
		rs := m[tok]
		for _, r := range strings.Split(rules, ",") {
			if strings.TrimSpace(r) == "" {
				continue
			}
			if err := rs.addRuleText(r); err != nil {
				errs = append(errs, fmt.Errorf("tagemit: token %q: dropped rule: %v", tok, err))
			}
		}
		m[tok] = rs
	}
	return errs
}

// canonicalReadToken lower-cases a token read from a header or page; "robots" (the HTML
// name for every accessor) is read as "*".
func canonicalReadToken(tok string) string {
	tok = strings.ToLower(tok)
	if tok == "robots" {
		return GlobalToken
	}
	return tok
}

// readMember interprets one List member: an Item naming a product token (Token or
// String) whose Parameters are rules. An Item whose value is itself a rule name (the
// historic `Robots-Tag: noindex` form) is read as rules for every accessor.
func readMember(member httpsfv.Member, m map[string]ruleSet) []error {
	item, ok := member.(httpsfv.Item)
	if !ok {
		return []error{fmt.Errorf("tagemit: dropped an Inner List member: members must be Items naming a product token")}
	}
	var tok string
	switch v := item.Value.(type) {
	case httpsfv.Token:
		tok = string(v)
	case string:
		tok = v
	default:
		return []error{fmt.Errorf("tagemit: dropped a member whose value %v is not a product token", item.Value)}
	}
	var errs []error
	var rs ruleSet
	low := strings.ToLower(tok)
	switch {
	case isRuleName(low):
		if err := rs.addNamed(low, "", false); err != nil {
			errs = append(errs, fmt.Errorf("tagemit: dropped member %q: %v", tok, err))
		}
		tok = GlobalToken
	case validToken(tok):
		tok = canonicalReadToken(tok)
	default:
		return []error{fmt.Errorf("tagemit: dropped member: %q is not a product token", tok)}
	}
	for _, name := range item.Params.Names() {
		v, _ := item.Params.Get(name)
		var err error
		switch v := v.(type) {
		case bool:
			if !v {
				err = fmt.Errorf("rule %q=?0 states no restriction", name)
			} else {
				err = rs.addParsed(name, "", false)
			}
		case int64:
			err = rs.addNamed(name, strconv.FormatInt(v, 10), true)
		case httpsfv.Token:
			err = rs.addNamed(name, string(v), true)
		case string:
			err = rs.addNamed(name, v, true)
		case time.Time:
			if name == "unavailable_after" {
				err = rs.addNamed(name, formatDate(v), true)
			} else {
				err = fmt.Errorf("rule %q does not take a date", name)
			}
		default:
			err = fmt.Errorf("rule %q has a value of unsupported type %T", name, v)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("tagemit: token %q: dropped rule: %v", tok, err))
		}
	}
	m[tok] = m[tok].union(rs)
	return errs
}

// ParseXRobotsTag reads X-Robots-Tag field lines in the historic syntax crawlers read:
// `noindex, nosnippet` (every accessor), `examplebot: noindex, max-snippet: 20` (one
// product token; a later `otherbot: ...` switches token within the line), and
// `unavailable_after: <date>` where the date may contain commas and colons (RFC 850 /
// RFC 822 forms). Each line starts with the global token. A line containing ';' (which
// the historic syntax never uses) is read with ParseRobotsTag, since the draft lets the
// experimental field name carry the Structured Field syntax. Unknown rules are kept or
// dropped as by ParseRobotsTag; every dropped piece is described by the returned
// errors. It never panics.
func ParseXRobotsTag(fieldLines []string) (Policy, []error) {
	m := map[string]ruleSet{}
	var errs []error
	var sf []string
	for _, line := range fieldLines {
		// The draft lets the experimental name carry the new syntax too: a line with ';'
		// (never part of the historic syntax) is read as a Robots-Tag value.
		if strings.Contains(line, ";") {
			sf = append(sf, line)
			continue
		}
		errs = append(errs, readLegacyLine(line, GlobalToken, true, m)...)
	}
	p := build(m)
	if len(sf) > 0 {
		q, more := ParseRobotsTag(sf)
		p, errs = p.Union(q), append(errs, more...)
	}
	return p, errs
}

// readLegacyLine reads a comma-separated rule list in the historic syntax into m[tok];
// with allowSwitch, a piece "token: rule" switches the product token.
func readLegacyLine(line, tok string, allowSwitch bool, m map[string]ruleSet) []error {
	var errs []error
	pieces := strings.Split(line, ",")
	for i := 0; i < len(pieces); i++ {
		text := strings.TrimSpace(pieces[i])
		if text == "" {
			continue
		}
		name, value, hasValue, sep := text, "", false, byte(0)
		if j := strings.IndexAny(text, ":="); j >= 0 {
			name, value, hasValue, sep = strings.TrimSpace(text[:j]), text[j+1:], true, text[j]
		}
		lname := strings.ToLower(name)
		if hasValue && !isRuleName(lname) && allowSwitch && sep == ':' {
			if !validToken(name) {
				errs = append(errs, fmt.Errorf("tagemit: dropped %q: %q is neither a rule nor a product token", truncForMsg(text), name))
				continue
			}
			tok = canonicalReadToken(name)
			pieces[i] = value
			i--
			continue
		}
		if lname == "unavailable_after" && hasValue {
			// The date may itself contain commas: take the longest run of following
			// pieces that still parses as a date.
			best, bestK := "", -1
			acc := value
			for k := 0; k <= 3 && i+k < len(pieces); k++ {
				if k > 0 {
					next := strings.TrimSpace(pieces[i+k])
					nn := strings.ToLower(next)
					if j := strings.IndexAny(nn, ":="); j >= 0 {
						nn = strings.TrimSpace(nn[:j])
					}
					if isRuleName(nn) {
						break
					}
					acc += "," + pieces[i+k]
				}
				if _, err := parseDate(acc); err == nil {
					best, bestK = acc, k
				}
			}
			if bestK >= 0 {
				value = best
				i += bestK
			}
		}
		rs := m[tok]
		if err := rs.addParsed(lname, value, hasValue); err != nil {
			errs = append(errs, fmt.Errorf("tagemit: token %q: dropped rule: %v", tok, err))
		}
		if !rs.isEmpty() {
			m[tok] = rs
		}
	}
	return errs
}
