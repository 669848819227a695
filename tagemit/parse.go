package tagemit

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dunglas/httpsfv"

	"github.com/sitepolicy/caddy-robots/internal/httplex"
)

// Reading a backend's header decides the syntax per member, never per field value: one
// malformed member must neither hide its valid neighbours nor make them be read in another
// syntax, where a product token's rules could land on "*". Each comma-separated member is
// read, in this order, as
//
//  1. the continuation of a rule list that a draft-00 or historic member left open
//     (`*=noindex, nosnippet;`, `googlebot: noindex, nosnippet`): a lone rule;
//  2. a Structured Field Item (the current draft), parsed by httpsfv;
//  3. the same with what crawlers tolerate: whitespace around ";" and "=", one trailing ";",
//     a "token/version" product token, a value that is not an SF bare item (dates);
//  4. draft-illyes-repext-00 values: `token=rules;` or `rules;`;
//  5. the historic X-Robots-Tag syntax: `token: rule` or `rule[: value]`.
//
// The first reading that accounts for every part of the member wins; when none does, the
// first that fits the member's shape keeps what it could read and reports the rest; a
// member that fits no syntax is dropped and reported.

// segment is a piece of a field value between top-level separators.
type segment struct {
	text       string
	start, end int // offsets in the value
}

// splitTopLevel splits s at sep outside strings (httplex.Outside: SF Strings and Display
// Strings are double quotes with backslash escapes; a stray quote, never closed or not
// followed by ";", ",", ")" or the end, is a plain byte and swallows no member after it). It only finds member
// boundaries; httpsfv parses each piece.
func splitTopLevel(s string, sep byte) []segment {
	var out []segment
	start := 0
	for i := range httplex.Outside(s) {
		if s[i] == sep {
			out = append(out, segment{s[start:i], start, i})
			start = i + 1
		}
	}
	return append(out, segment{s[start:], start, len(s)})
}

// lowerOutsideStrings lower-cases ASCII letters outside strings, so rule names are
// case-insensitive as the draft requires while SF keys stay lower case.
func lowerOutsideStrings(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return 'A' <= r && r <= 'Z' }) < 0 {
		return s
	}
	b := []byte(s)
	for i := range httplex.Outside(s) {
		if c := b[i]; 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func isOWS(c byte) bool { return c == ' ' || c == '\t' }

// limitValue applies a parsing limit to value: only its first limit bytes are processed; a
// member cut by the limit, and everything after it, is ignored. It returns the processed
// prefix, ending at a member boundary (a comma or the end); partial, the text between
// that boundary and the limit (a draft-00 member's complete ";"-terminated values may be
// read from it); and an error describing what was ignored, nil if nothing was.
func limitValue(value string, limit int) (kept, partial string, err error) {
	if len(value) <= limit {
		return value, "", nil
	}
	cut, rest := value[:limit], value[limit:]
	i := 0
	for i < len(rest) && isOWS(rest[i]) {
		i++
	}
	if i < len(rest) && rest[i] == ',' {
		// The last member ends exactly at (or in whitespace at) the limit: complete.
		return cut, "", fmt.Errorf("tagemit: field value is %d bytes; ignored the %d bytes past the %d-byte limit", len(value), len(rest), MaxFieldSize)
	}
	segs := splitTopLevel(cut, ',')
	last := segs[len(segs)-1]
	return cut[:max(last.start-1, 0)], last.text, fmt.Errorf("tagemit: field value is %d bytes; ignored the member truncated at the %d-byte limit (%q...) and everything after it", len(value), MaxFieldSize, truncForMsg(last.text))
}

func truncForMsg(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 40 {
		return s[:40]
	}
	return s
}

// ParseRobotsTag reads Robots-Tag field lines into a Policy. Each member is read in the
// syntax it is written in: the Structured Field List of the current draft (rule names
// case-insensitive, with the tolerance crawlers show for whitespace around ";", a trailing
// ";", a "token/version" product token and the unavailable_after date forms Google
// documents), the superseded draft-illyes-repext-00 syntax (`*=noindex, nosnippet;
// ExampleBot=;`), or the historic X-Robots-Tag syntax (`googlebot: noindex`). A member
// that names a product token keeps its rules on that token, and a valid member is read
// whatever its neighbours are.
//
// The draft's parsing limit applies to the lines combined: the first MaxFieldSize bytes
// are processed, the member cut by the limit and everything after it are ignored. Unknown
// boolean rules whose names are SF keys are kept (see the package documentation); other
// unknown rules are dropped. Every dropped piece is described by one of the returned
// errors. It never panics.
func ParseRobotsTag(fieldLines []string) (Policy, []error) {
	var fr fieldReader
	fr.lines(fieldLines, "")
	return build(fr.m), fr.errs
}

// ParseXRobotsTag reads X-Robots-Tag field lines in the historic syntax crawlers read:
// `noindex, nosnippet` (every accessor), `examplebot: noindex, max-snippet: 20` (one
// product token; a later `otherbot: ...` switches token within the line), and
// `unavailable_after: <date>` where the date may contain commas and colons (RFC 850 /
// RFC 822 forms). Each line starts with the global token. Members in the Structured Field
// syntax are read as ParseRobotsTag reads them, since the draft lets the experimental
// field name carry it. The same MaxFieldSize limit applies to the lines combined. Unknown
// rules are kept or dropped as by ParseRobotsTag; every dropped piece is described by the
// returned errors. It never panics.
func ParseXRobotsTag(fieldLines []string) (Policy, []error) {
	// One reader for both fields: the syntax is decided per member. Only the start of a
	// line differs: here it opens a rule list for "*", so that a bare unknown word is an
	// extension rule, where a Robots-Tag member would name a product token.
	var fr fieldReader
	fr.lines(fieldLines, GlobalToken)
	return build(fr.m), fr.errs
}

// fieldReader reads field lines member by member into m.
type fieldReader struct {
	m    map[string]ruleSet
	errs []error

	// open is the product token whose rule list a draft-00 or historic member left open,
	// so that the next member may continue it; "" when none is open.
	open string
}

// lines reads field lines as one combined value ("a, b") under the draft's parsing limit.
// Each line starts with open as the open rule list (X-Robots-Tag lines start with "*").
func (fr *fieldReader) lines(fieldLines []string, open string) {
	if fr.m == nil {
		fr.m = make(map[string]ruleSet, 2)
	}
	budget := MaxFieldSize
	for _, line := range fieldLines {
		line = httplex.TrimOWS(line)
		if line == "" {
			continue
		}
		if budget <= 0 {
			fr.errs = append(fr.errs, fmt.Errorf("tagemit: ignored field line %q... past the %d-byte limit", truncForMsg(line), MaxFieldSize))
			return
		}
		kept, partial, err := limitValue(line, budget)
		fr.open = open
		fr.value(kept)
		if err != nil {
			fr.errs = append(fr.errs, err)
			fr.partial(partial)
			return
		}
		budget -= len(line) + len(", ")
	}
}

// value reads the members of one field line.
func (fr *fieldReader) value(v string) {
	if fr.open == "" && fr.list(v) {
		return
	}
	pieces := splitTopLevel(v, ',')
	for i := 0; i < len(pieces); i++ {
		text := httplex.TrimOWS(pieces[i].text)
		if text == "" {
			continue
		}
		i += fr.member(text, pieces[i+1:])
	}
}

// list reads v in one pass when it is a valid SF List whose members all name a product
// token plainly, the common case, which member-by-member reading would give the same
// result for. It reports false, having read nothing, otherwise.
func (fr *fieldReader) list(v string) bool {
	l, err := httpsfv.UnmarshalList([]string{lowerOutsideStrings(v)})
	if err != nil {
		return false
	}
	for _, member := range l {
		item, ok := member.(httpsfv.Item)
		if !ok {
			return false
		}
		tok, ok := itemToken(item)
		if !ok || strings.ContainsAny(tok, ":/") || isRuleName(tok) {
			return false // historic forms, a version, a bare rule: read member by member
		}
	}
	for _, member := range l {
		fr.take(readItem(member.(httpsfv.Item)))
	}
	return true
}

// partial reads what precedes the last ";" of a member cut by the parsing limit, where
// only a draft-00 member can hold complete values (each ends with ";").
func (fr *fieldReader) partial(text string) {
	j := strings.LastIndexByte(text, ';')
	if j < 0 {
		return
	}
	if r, ok := readDraft00(httplex.TrimOWS(text[:j+1]), fr.open); ok {
		fr.take(r)
	}
}

// reading is one syntax's interpretation of a member.
type reading struct {
	rules []tokenRules
	errs  []error
	open  string // the product token whose rule list stays open after the member
	extra int    // following comma pieces the member took (a date with commas)
}

type tokenRules struct {
	tok string
	rs  ruleSet
}

func (r *reading) add(tok string, rs ruleSet) {
	for i := range r.rules {
		if r.rules[i].tok == tok {
			r.rules[i].rs = r.rules[i].rs.add(rs)
			return
		}
	}
	r.rules = append(r.rules, tokenRules{tok, rs})
}

func (r *reading) fail(format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf("tagemit: "+format, args...))
}

func (fr *fieldReader) take(r reading) {
	for _, tr := range r.rules {
		if !tr.rs.isEmpty() {
			fr.m[tr.tok] = fr.m[tr.tok].add(tr.rs)
		}
	}
	fr.errs = append(fr.errs, r.errs...)
	fr.open = r.open
}

// member reads one trimmed member; rest are the comma pieces after it, which a historic
// date may extend into. It returns how many of them it took.
func (fr *fieldReader) member(text string, rest []segment) int {
	low := lowerOutsideStrings(text)
	var fallback *reading
	try := func(r reading, ok bool) bool {
		if !ok {
			return false
		}
		if len(r.errs) == 0 {
			fr.take(r)
			return true
		}
		if fallback == nil {
			fallback = &r
		}
		return false
	}
	if fr.open != "" {
		if r, ok := readContinuation(low, fr.open, rest); try(r, ok) {
			return r.extra
		}
	}
	if try(readSFItem(low)) {
		return 0
	}
	if r, ok := readTolerantItem(low, rest); try(r, ok) {
		return r.extra
	}
	if try(readDraft00(low, "")) {
		return 0
	}
	if r, ok := readHistoric(low, rest); try(r, ok) {
		return r.extra
	}
	if fallback != nil {
		fr.take(*fallback)
		return fallback.extra
	}
	fr.errs = append(fr.errs, fmt.Errorf("tagemit: dropped member %q: it is not a Robots-Tag member in the Structured Field, draft-00 or historic syntax", truncForMsg(text)))
	fr.open = ""
	return 0
}

// readSFItem reads a member that is a Structured Field Item. An Item whose Token value
// holds ":" is the historic `googlebot:noindex` without a space, which SF happens to
// allow in a Token: it is left to the historic reading.
func readSFItem(low string) (reading, bool) {
	item, err := httpsfv.UnmarshalItem([]string{low})
	if err != nil {
		return reading{}, false
	}
	if t, ok := item.Value.(httpsfv.Token); ok && strings.Contains(string(t), ":") {
		return reading{}, false
	}
	return readItem(item), true
}

// readTolerantItem reads an SF Item written with the slack crawlers accept: whitespace
// around ";" and "=", one trailing ";", a "token/version" product token, and parameter
// values that are not SF bare items (read as the text of a String, e.g. an unquoted
// date). Empty parameters between two ";" are not tolerated.
func readTolerantItem(low string, rest []segment) (reading, bool) {
	segs := splitTopLevel(low, ';')
	if last := segs[len(segs)-1]; len(segs) > 1 && httplex.TrimOWS(last.text) == "" {
		segs = segs[:len(segs)-1]
	}
	extra := 0
	tok := cutVersion(httplex.TrimOWS(segs[0].text))
	if !validToken(tok) && !isRuleName(tok) && !(len(tok) > 1 && tok[0] == '"') {
		return reading{}, false
	}
	var b strings.Builder
	b.WriteString(tok)
	for _, s := range segs[1:] {
		key, val, hasVal := strings.Cut(s.text, "=")
		key = httplex.TrimOWS(key)
		if key == "" {
			return reading{}, false
		}
		b.WriteByte(';')
		b.WriteString(key)
		if hasVal {
			val = httplex.TrimOWS(val)
			if key == "unavailable_after" && len(segs) > 1 && s == segs[len(segs)-1] {
				// An unquoted RFC 850 / RFC 822 date holds a comma ("Friday, 25-Jun-10 ..."),
				// which split it from the rest of itself.
				val, extra = joinDate(val, rest)
			}
			if _, err := httpsfv.UnmarshalItem([]string{val}); err != nil {
				q, err := httpsfv.Marshal(httpsfv.NewItem(val))
				if err != nil {
					return reading{}, false // not even a String: non-ASCII or control bytes
				}
				val = q
			}
			b.WriteByte('=')
			b.WriteString(val)
		}
	}
	item, err := httpsfv.UnmarshalItem([]string{b.String()})
	if err != nil {
		return reading{}, false
	}
	r := readItem(item)
	r.extra = extra
	return r, true
}

// cutVersion cuts a "token/version" product token to the token, as robots.txt parsers
// read a user-agent line. Only a version (letters, digits, ".", "-", "_") is cut: anything
// else after the "/" leaves tok as it is, to fail as a product token.
func cutVersion(tok string) string {
	i := strings.IndexByte(tok, '/')
	if i <= 0 || i == len(tok)-1 {
		return tok
	}
	for _, c := range []byte(tok[i+1:]) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			return tok
		}
	}
	return tok[:i]
}

// itemToken returns the text of an Item whose value can name a product token: a Token or a
// String (RFC 9309 tokens starting with "-" or "_" are not SF Tokens).
func itemToken(item httpsfv.Item) (string, bool) {
	switch v := item.Value.(type) {
	case httpsfv.Token:
		return string(v), true
	case string:
		return v, true
	}
	return "", false
}

// readItem interprets an SF Item: its value names a product token (Token or String, a
// "/version" cut off) whose rules are its Parameters. An Item whose value is itself a rule
// name (the historic `Robots-Tag: noindex` form) states rules for every accessor.
func readItem(item httpsfv.Item) reading {
	var r reading
	tok, ok := itemToken(item)
	if !ok {
		r.fail("dropped a member whose value %v is not a product token", item.Value)
		return r
	}
	var rs ruleSet
	low := strings.ToLower(cutVersion(tok))
	switch {
	case isRuleName(low):
		// The historic bare form: the rules that follow continue the list for "*".
		if err := rs.addNamed(low, "", false); err != nil {
			r.fail("dropped member %q: %v", tok, err)
		}
		tok, r.open = GlobalToken, GlobalToken
	case validToken(low):
		tok = canonicalReadToken(low)
	default:
		r.fail("dropped member: %q is not a product token", tok)
		return r
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
			r.fail("token %q: dropped rule: %v", tok, err)
		}
	}
	r.add(tok, rs)
	return r
}

// readDraft00 reads draft-illyes-repext-00 values, each ended by ";": `token=rules` or
// `rules` for every accessor, rules separated by commas (a member holds one of them, the
// following members continue the list). open is the token whose list the previous member
// left open, for the first value. It fits only a member with a "=" or a ";" whose every
// value has that shape with known (or extension) rules: `googlebot;noindex;` does not fit,
// since "googlebot" is no rule.
func readDraft00(low, open string) (reading, bool) {
	if !strings.ContainsAny(low, "=;") {
		return reading{}, false
	}
	var r reading
	segs := splitTopLevel(low, ';')
	for i, s := range segs {
		text := httplex.TrimOWS(s.text)
		tok := GlobalToken
		if i == 0 && open != "" {
			tok = open
		}
		last := i == len(segs)-1
		if text == "" {
			continue // "ExampleBot=;" ends with an empty value; so does every ";"-ended member
		}
		rule := text
		if t, rl, ok := strings.Cut(text, "="); ok && !isRuleName(httplex.TrimOWS(t)) {
			tok, rule = cutVersion(httplex.TrimOWS(t)), httplex.TrimOWS(rl)
			if tok == "" {
				tok = GlobalToken
			}
			if !validToken(tok) {
				return reading{}, false
			}
			tok = canonicalReadToken(tok)
		}
		if rule != "" {
			// Only known rules: read as a rule, an unknown word could be a product token
			// of another syntax, whose following rules would then land on "*".
			if !isKnownRule(rule) {
				return reading{}, false
			}
			var rs ruleSet
			if err := rs.addParsedText(rule); err != nil {
				r.fail("token %q: dropped rule: %v", tok, err)
			}
			r.add(tok, rs)
		}
		if last {
			r.open = tok // no ";" yet: the next member continues this value's rules
		}
	}
	return r, true
}

// isKnownRule reports whether text is one rule of the registry (or none, all), alone or
// with a value after ":" or "=".
func isKnownRule(text string) bool {
	name := text
	if i := strings.IndexAny(text, ":="); i >= 0 {
		name = text[:i]
	}
	return isRuleName(httplex.TrimOWS(name))
}

// looksLikeRule reports whether text is one rule as a historic rule list holds it: a known
// rule, or an extension rule, which carries no value.
func looksLikeRule(text string) bool {
	return isKnownRule(text) || isExtensionName(httplex.TrimOWS(text))
}

// readContinuation reads a member that continues the rule list of token open: one rule,
// possibly followed by ";" and more draft-00 values.
func readContinuation(low, open string, rest []segment) (reading, bool) {
	head, tail, hasSemi := strings.Cut(low, ";")
	if hasSemi && strings.Trim(tail, " \t;") != "" {
		// Draft-00 values that go on to other tokens: an unknown word is not taken for a
		// rule here, since it may be a product token of another syntax.
		if !isKnownRule(head) {
			return reading{}, false
		}
		return readDraft00(low, open)
	}
	low = httplex.TrimOWS(head) // the value's last rule, ended by ";" or not
	if !looksLikeRule(low) {
		return reading{}, false
	}
	r, ok := readHistoricRules(low, open, rest)
	if r.open = open; hasSemi {
		r.open, r.extra = "", 0
	}
	return r, ok
}

// readHistoric reads a member in the historic X-Robots-Tag syntax: `token: rule`, where
// the token switches the rules that follow to that crawler, or a rule for every accessor.
func readHistoric(low string, rest []segment) (reading, bool) {
	if strings.ContainsAny(low, ";\"") {
		return reading{}, false
	}
	tok := GlobalToken
	if i := strings.IndexByte(low, ':'); i >= 0 && !isRuleName(httplex.TrimOWS(low[:i])) {
		name := cutVersion(httplex.TrimOWS(low[:i]))
		if !validToken(name) {
			var r reading
			r.fail("dropped %q: %q is neither a rule nor a product token", truncForMsg(low), httplex.TrimOWS(low[:i]))
			return r, true
		}
		tok, low = canonicalReadToken(name), httplex.TrimOWS(low[i+1:])
		if low == "" {
			return reading{open: tok}, true
		}
	} else if !looksLikeRule(low) {
		return reading{}, false
	}
	r, _ := readHistoricRules(low, tok, rest)
	r.open = tok
	return r, true
}

// readHistoricRules reads one historic rule for tok. unavailable_after's date may hold
// commas ("Friday, 25-Jun-10 15:00:00 PST"): it takes the longest run of the following
// pieces (none of them a rule) that still parses as a date.
func readHistoricRules(text, tok string, rest []segment) (reading, bool) {
	var r reading
	name, value, hasValue := text, "", false
	if i := strings.IndexAny(text, ":="); i >= 0 {
		name, value, hasValue = httplex.TrimOWS(text[:i]), text[i+1:], true
	}
	if name == "unavailable_after" && hasValue {
		value, r.extra = joinDate(value, rest)
	}
	var rs ruleSet
	if err := rs.addParsed(name, value, hasValue); err != nil {
		r.fail("token %q: dropped rule: %v", tok, err)
	}
	r.add(tok, rs)
	return r, true
}

// joinDate extends a date cut at a comma with the following comma pieces: it takes the
// longest run of up to three of them (none of them a rule) that still parses as a date, and
// returns the date and how many pieces it took.
func joinDate(value string, rest []segment) (string, int) {
	best, n, acc := value, 0, value
	for k := 1; k <= 3 && k <= len(rest); k++ {
		if looksLikeRule(httplex.TrimOWS(rest[k-1].text)) {
			break
		}
		acc += "," + rest[k-1].text
		if _, err := parseDate(acc); err == nil {
			best, n = acc, k
		}
	}
	return best, n
}

// addParsedText adds a rule written as "name", "name=value" or "name: value".
func (r *ruleSet) addParsedText(text string) error {
	name, value, hasValue := text, "", false
	if i := strings.IndexAny(text, "=:"); i >= 0 {
		name, value, hasValue = httplex.TrimOWS(text[:i]), text[i+1:], true
	}
	return r.addParsed(strings.ToLower(name), value, hasValue)
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

// readLegacyLine reads a meta element's content, a comma-separated rule list in the
// historic syntax, into m[tok]; with allowSwitch, a piece "token: rule" switches the
// product token as in an X-Robots-Tag line.
func readLegacyLine(line, tok string, allowSwitch bool, m map[string]ruleSet) []error {
	fr := fieldReader{m: m}
	pieces := splitTopLevel(lowerOutsideStrings(line), ',')
	for i := 0; i < len(pieces); i++ {
		text := httplex.TrimOWS(pieces[i].text)
		if text == "" {
			continue
		}
		var r reading
		if allowSwitch {
			r, _ = readHistoric(text, pieces[i+1:])
			tok = r.open
		} else {
			r, _ = readHistoricRules(text, tok, pieces[i+1:])
		}
		fr.take(r)
		i += r.extra
	}
	return fr.errs
}
