package robotsgen

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sitepolicy/caddy-robots/crawlers"
)

// Parse reads a robots.txt file leniently, as RFC 9309 section 2.3.1.5 asks:
// every line is tried, what parses is kept, and each line (or part) skipped
// or changed is reported as a Diagnostic. Only the first MaxSize bytes are
// read. The returned File passes Validate unless its rendering would exceed
// MaxSize (Render adds "Disallow:" to groups without rules, and blank lines).
//
// Parse reads lines the way Google's parser does, so that importing a file
// keeps Google's decision for every agent and path (a property test checks
// this against github.com/jimsmart/grobotstxt): lines are split at LF, CRLF
// or CR and cut at maxLineLen bytes; a leading UTF-8 BOM (or part of one) is
// skipped; "#" starts a comment; keys are case-insensitive and matched by
// prefix ("Disallowed" is a disallow line, reported), including the typos
// "useragent", "user agent", "disalow", "dissallow", "dissalow", "diaslow",
// "diasllow", "disallaw" and "site-map"; "Key value" without a colon is read
// as "Key: value"; a user-agent value is cut to the product token Google
// reads ("Googlebot/2.1" is Googlebot). Where Google's reading has no
// representation in a File the line is skipped with a diagnostic saying so:
// a product token with characters RFC 9309 forbids ("Foo.Bot"; a name with
// digits such as "Foo2Bot" is kept whole, as Validate accepts it), a pattern
// ending in a truncated "%" escape. Rules that can match no requested path
// there (not starting with "/" or "*", holding white space, a stray "%") are
// dropped, which keeps every decision. Patterns are otherwise kept as
// written, a mid-pattern "$" included; non-ASCII octets are percent-encoded.
//
// Comment lines at the very top (before any other line, blank lines
// included) become File.Comments. Sitemap, Host and RSL License lines are file-level
// wherever they appear; other unknown records are file-level before the
// first group and belong to the current group after it (a License line with a path, or
// naming a license already read, is skipped with a diagnostic). "crawldelay" is read
// as crawl-delay.
//
// Content-Usage and Content-Signal lines (keys case-insensitive) inside a group go to its
// ContentUsage and ContentSignal, never to another group, read as the vocabulary reads
// them (usage.Vocab.ParseLine) and kept in canonical form: members whose value is not one
// of the vocabulary's Tokens, and parameters, mean nothing there and are left out, with a
// diagnostic; keys outside the vocabulary with a y/n (yes/no) Token are kept as "+key"
// extensions. A value that is not a Structured Field Dictionary makes every preference
// unknown: with a path the rule is kept without preferences (it still overrides shorter
// paths), without one it is skipped, reported either way. A line whose path no pattern can
// express (a stray "%") is skipped with a diagnostic. A skipped line between user-agent
// lines still ends the user agents above it for draft-ietf-aipref-attach (see below): it
// gives them nothing, and never the preferences of the agents below it. Before the first
// group such a line is a file-level record, as any other record there. Between two
// user-agent lines it is kept in the one group RFC 9309 parsers read there, with a
// diagnostic: draft-ietf-aipref-attach reads it as a rule that ends the group above it.
func Parse(data []byte) (*File, []Diagnostic) {
	p := parse(data)
	return p.f, p.diags
}

// parse is Parse, which also records the line of each group and rule it reads (p.lines).
func parse(data []byte) *parser {
	p := &parser{f: &File{}}
	if len(data) > MaxSize {
		// Keep only whole lines within the limit.
		data = data[:MaxSize]
		if i := bytes.LastIndexAny(data, "\r\n"); i >= 0 {
			data = data[:i+1]
		} else {
			data = nil
		}
		p.truncated = true
	}
	// Google's parser skips a UTF-8 BOM, or any leading part of one.
	for _, b := range []byte("\xEF\xBB\xBF") {
		if len(data) == 0 || data[0] != b {
			break
		}
		data = data[1:]
	}
	leading := true
	line := 0
	for len(data) > 0 {
		line++
		end := bytes.IndexAny(data, "\r\n")
		var raw []byte
		if end < 0 {
			raw, data = data, nil
		} else {
			raw = data[:end]
			if data[end] == '\r' && end+1 < len(data) && data[end+1] == '\n' {
				end++
			}
			data = data[end+1:]
		}
		if len(raw) > maxLineLen {
			// Google's parser reads the first maxLineLen bytes of a line and
			// drops the rest; read the same.
			p.diag(line, raw, fmt.Sprintf("line longer than %d bytes cut there, as Google's parser does", maxLineLen))
			raw = raw[:maxLineLen]
		}
		if leading && len(raw) > 0 && raw[0] == '#' {
			c := string(raw[1:])
			c = strings.TrimPrefix(c, " ")
			if c == PurposeSentinelComment {
				continue // Render's explanation of its guard line, like the line itself
			}
			if checkText(c) == "" && checkLineLen(len("# "), c) == "" {
				p.f.Comments = append(p.f.Comments, c)
				continue
			}
		}
		leading = false
		p.line(line, raw)
	}
	p.finish()
	p.foldForeign()
	if p.truncated {
		p.diag(line+1, nil, "file exceeds 500 KiB; everything from this line on is ignored")
	}
	return p
}

type parser struct {
	f         *File
	diags     []Diagnostic
	truncated bool

	lines fileLines // where each group and rule of f was read

	cur       *Group // group being read, nil before the first header line
	curLine   int    // line of cur's first header line
	nameLine  int    // line of the first header line that gave cur a name: the group's line
	ruleLines []int  // the line of each of cur's rules
	runLine   int    // likewise, of cur's current run (usageBetweenAgents), 0 before its first name
	curRules  bool   // cur has seen a rule line, so the next header starts a new group
	curDelay  bool
	// usageInHeader are the Content-Usage and Content-Signal lines read while cur had no
	// rule yet: if another user-agent line follows, the readings disagree (usage.go).
	usageInHeader []pendingLine
	// runs are cur's runs of user-agent lines that preference lines separate, each with
	// those lines, and runStart where the next run starts in cur's user agents and purposes
	// (usage.go: usageBetweenAgents, splitRuns).
	runs     []agentRun
	runStart [2]int
	// foreign are the rules splitRuns gave a run that only the one-group reading gives it.
	foreign []usageRef
}

// usageRef is a preference rule of p.f: group, vocabulary (index into usageVocabs), rule.
type usageRef struct{ g, vi, k int }

type agentRun struct {
	userAgents, purposes []string
	lines                []pendingLine
	line                 int // the line of the run's first name
}

type pendingLine struct {
	n   int
	raw string
	key string
	vi  int // the vocabulary: index into usageVocabs
	at  int // the rule's index in cur's rules of that vocabulary
}

func (p *parser) diag(line int, raw []byte, reason string) {
	t := string(raw)
	if len(t) > 200 {
		t = t[:200]
	}
	p.diags = append(p.diags, Diagnostic{Line: line, Text: t, Reason: reason})
}

var googleKeyName = map[int]string{kUserAgent: "User-agent", kAllow: "Allow", kDisallow: "Disallow", kSitemap: "Sitemap"}

// key kinds
const (
	kUnknown = iota
	kUserAgent
	kPurpose
	kAllow
	kDisallow
	kSitemap
	kCrawlDelay
	kHost
	kContentUsage // the order of usageVocabs
	kContentSignal
	kLicense
)

// googleKeys are the keys Google's parser recognises, matched by prefix in
// this order ("Disallowed" is a disallow line there, "User-agent-x" a
// user-agent line). Reading them the same way keeps Google's decisions.
var googleKeys = []struct {
	prefix string
	kind   int
}{
	{"user-agent", kUserAgent}, {"useragent", kUserAgent}, {"user agent", kUserAgent},
	{"allow", kAllow},
	{"disallow", kDisallow}, {"dissallow", kDisallow}, {"dissalow", kDisallow}, {"disalow", kDisallow},
	{"diaslow", kDisallow}, {"diasllow", kDisallow}, {"disallaw", kDisallow},
	{"sitemap", kSitemap}, {"site-map", kSitemap},
}

// keyKind classifies a key; exact is false when only a prefix matched.
func keyKind(k string) (kind int, exact bool) {
	l := strings.ToLower(k)
	switch l {
	case "user-agent-purpose":
		return kPurpose, true
	case "crawl-delay", "crawldelay":
		return kCrawlDelay, true
	case "host":
		return kHost, true
	case "content-usage":
		return kContentUsage, true
	case "content-signal":
		return kContentSignal, true
	case "license":
		return kLicense, true
	}
	for _, g := range googleKeys {
		if strings.HasPrefix(l, g.prefix) {
			return g.kind, l == g.prefix
		}
	}
	return kUnknown, true
}

// splitLine splits a line (comment and surrounding space removed) into key
// and value as Google's parser does: at the first ":", or, without one, at
// the first space or tab when a single word follows ("Disallow /x").
func splitLine(s []byte) (key, val []byte, colon, ok bool) {
	sep := bytes.IndexByte(s, ':')
	colon = sep >= 0
	if !colon {
		sep = bytes.IndexAny(s, " \t")
		if sep < 0 || bytes.ContainsAny(bytes.TrimSpace(s[sep:]), " \t") {
			return nil, nil, false, false
		}
	}
	key = bytes.TrimSpace(s[:sep])
	return key, bytes.TrimSpace(s[sep+1:]), colon, len(key) > 0
}

func (p *parser) line(n int, raw []byte) {
	s := raw
	if i := bytes.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	s = bytes.TrimSpace(s)
	if len(s) == 0 {
		return
	}
	keyb, valb, colon, ok := splitLine(s)
	if !ok {
		p.diag(n, raw, `no ":" after a key, nor a single word after a space`)
		return
	}
	key := string(keyb)
	kind, exact := keyKind(key)
	if !colon {
		// Google reads it; an RFC 9309 parser skips it, so the two disagree on this line.
		p.diag(n, raw, `no ":" after the key; read as "`+key+`: `+string(valb)+`", as Google's parser does (RFC 9309 parsers skip the line)`)
	}
	if !exact {
		p.diag(n, raw, "key "+strconv.Quote(key)+" read as "+googleKeyName[kind]+", as Google's parser does (RFC 9309 parsers ignore it)")
	}
	// Header and rule lines count whatever their value: they start or end
	// a group, as they do for Google's parser.
	switch kind {
	case kUserAgent, kPurpose:
		p.header(n, raw, kind, valb)
		return
	case kAllow, kDisallow:
		p.rule(n, raw, kind, valb)
		return
	}
	if !utf8.Valid(valb) {
		p.diag(n, raw, "value is not valid UTF-8")
		return
	}
	p.otherLine(n, raw, kind, key, string(valb))
}

// otherLine reads line n, with a key of kind (neither a header nor a rule) and its value.
func (p *parser) otherLine(n int, raw []byte, kind int, key, val string) {
	switch kind {
	case kSitemap:
		p.sitemap(n, raw, val)
	case kLicense:
		p.license(n, raw, val)
	case kCrawlDelay:
		p.crawlDelay(n, raw, val)
	case kHost:
		p.record(n, raw, Record{Key: key, Value: val}, true)
	case kContentUsage, kContentSignal:
		if p.cur == nil {
			// It applies to no crawler; kept where it is, as any record there (Warnings
			// reports it).
			p.record(n, raw, Record{Key: key, Value: val}, true)
			return
		}
		p.usageLine(n, raw, kind-kContentUsage, val)
	default:
		if rp := reservedPrefix(key); rp != "" {
			p.diag(n, raw, "key skipped: parsers disagree on it (Google's parser reads it as "+rp+")")
			return
		}
		p.record(n, raw, Record{Key: key, Value: val}, p.cur == nil)
	}
}

func (p *parser) sitemap(n int, raw []byte, val string) {
	if msg := checkSitemap(val); msg != "" || strings.HasPrefix(val, "/") {
		if msg == "" {
			msg = "a sitemap in a file must be an absolute URL"
		}
		p.diag(n, raw, "sitemap skipped: "+msg)
		return
	}
	p.f.Sitemaps = append(p.f.Sitemaps, val)
}

// license reads an RSL License line: the directive belongs to no group wherever it stands,
// and names an absolute URL (RSL 1.0). Kept once.
func (p *parser) license(n int, raw []byte, val string) {
	if msg := checkLicense(val); msg != "" || strings.HasPrefix(val, "/") {
		if msg == "" {
			msg = "a license in a file must be an absolute URL (RSL 1.0)"
		}
		p.diag(n, raw, "license skipped: "+msg)
		return
	}
	if slices.Contains(p.f.Licenses, val) {
		p.diag(n, raw, "license skipped: the file names it already")
		return
	}
	p.f.Licenses = append(p.f.Licenses, val)
}

func (p *parser) crawlDelay(n int, raw []byte, val string) {
	if p.cur == nil {
		p.diag(n, raw, "crawl-delay outside any group skipped")
		return
	}
	d, err := strconv.ParseFloat(val, 64)
	if err != nil || math.IsNaN(d) || math.IsInf(d, 0) || d < 0 || strings.ContainsAny(val, "xXpP_") {
		p.diag(n, raw, "crawl-delay is not a finite number of seconds >= 0")
		return
	}
	if p.curDelay {
		p.diag(n, raw, "second crawl-delay in a group replaces the first")
	}
	p.cur.CrawlDelay = d
	p.curDelay = true
}

func (p *parser) record(n int, raw []byte, r Record, fileLevel bool) {
	var msgs []string
	checkRecord(r, fileLevel, func(_, _, msg string) { msgs = append(msgs, msg) })
	if len(msgs) > 0 {
		p.diag(n, raw, "record skipped: "+strings.Join(msgs, "; "))
		return
	}
	if fileLevel {
		p.f.Records = append(p.f.Records, r)
	} else {
		p.cur.Records = append(p.cur.Records, r)
	}
}

func (p *parser) header(n int, raw []byte, kind int, val []byte) {
	if p.cur == nil || p.curRules {
		p.finish()
		p.cur = &Group{}
		p.curLine, p.nameLine, p.runLine, p.ruleLines = n, 0, 0, nil
		p.curRules = false
		p.curDelay = false
		p.usageInHeader = nil
	} else {
		p.usageBetweenAgents(n)
	}
	if kind == kPurpose {
		if v := string(val); validPurposeToken(v) && checkLineLen(len(purposeKey), v) == "" {
			p.cur.Purposes = append(p.cur.Purposes, v)
			p.named(n)
			return
		}
		// Parsers that do not know the line read it as a user-agent line;
		// a valid purpose would have no other reading.
		p.diag(n, raw, "user-agent-purpose is not a purpose token (A-Z, a-z, 0-9, \"_\", \"-\"); read as a user-agent line, as Google's parser does")
	}
	// Google's parser reads "*" followed by white space as the global agent.
	if len(val) > 0 && val[0] == '*' && (len(val) == 1 || unicode.IsSpace(rune(val[1]))) {
		p.cur.UserAgents = append(p.cur.UserAgents, "*")
		p.named(n)
		return
	}
	// The value is read up to its first byte that a crawler's name cannot hold, as Google's
	// parser reads it ("Googlebot/2.1", "FooBot*", "Foo.Bot" are Googlebot, FooBot, Foo), but
	// with the digits of a name kept: written back whole, Google still reads "AI" of AI2Bot,
	// and the parsers that read such names whole read them as the file meant.
	tok := crawlers.LeadingToken(string(val))
	switch {
	case tok == PurposeSentinel:
		// Render's guard line: matches no crawler, drop silently.
	case tok == "":
		p.diag(n, raw, "user-agent has no product token; the line still starts a group")
	case checkLineLen(len(uaKey), tok) != "":
		p.diag(n, raw, "user-agent skipped: "+checkLineLen(len(uaKey), tok)+"; the line still starts a group")
	default:
		if len(tok) < len(val) {
			p.diag(n, raw, "user-agent value cut to its product token "+strconv.Quote(tok))
		}
		p.cur.UserAgents = append(p.cur.UserAgents, tok)
		p.named(n)
	}
}

// named notes that header line n gave the current group a name: the first such line is where
// the group (and its current run) is, as a reader looking for the lines naming a crawler
// finds it (a PurposeSentinel line above it names none).
func (p *parser) named(n int) {
	if p.nameLine == 0 {
		p.nameLine = n
	}
	if p.runLine == 0 {
		p.runLine = n
	}
}

func (p *parser) rule(n int, raw []byte, kind int, val []byte) {
	if p.cur == nil {
		p.diag(n, raw, "rule before the first user-agent line is in no group and ignored (RFC 9309 2.2.2)")
		return
	}
	p.curRules = true
	if len(val) == 0 {
		// Empty disallow/allow matches nothing: allow-all is the default.
		return
	}
	t := Allow
	if kind == kDisallow {
		t = Disallow
	}
	// Bridge non-UTF-8 bytes the way crawlers see them: percent-encoded.
	// This is the pattern Google's parser matches, and it is kept as it is:
	// any rewrite (a mid "$" as %24, a space as %20) would change which
	// paths it matches there.
	path := encodePattern(string(val))
	msg := patternProblem(path)
	if msg == "" {
		msg = checkPattern(path)
	}
	if msg == "" {
		p.addRule(n, Rule{Type: t, Path: path})
		return
	}
	p.diag(n, raw, "rule skipped: "+msg)
	// Google's parser also reads an allow of ".../index.htm..." that does
	// not match as an allow of ".../$"; a skipped pattern never matches
	// there, so that part of the rule stays in force.
	if s := strings.LastIndexByte(path, '/'); t == Allow && s >= 0 && strings.HasPrefix(path[s:], "/index.htm") {
		if fb := path[:s+1] + "$"; patternProblem(fb) == "" && checkPattern(fb) == "" {
			p.diag(n, raw, "kept as Allow "+strconv.Quote(fb)+", which Google's parser reads it as for that path")
			p.addRule(n, Rule{Type: Allow, Path: fb})
		}
	}
}

// addRule adds r, read on line n, to the current group.
func (p *parser) addRule(n int, r Rule) {
	p.cur.Rules = append(p.cur.Rules, r)
	p.ruleLines = append(p.ruleLines, n)
}

// patternProblem says why Google's parser could never match pattern p (as
// it reads it: non-ASCII percent-encoded) against a path a crawler requests,
// so that dropping the rule keeps its decisions, or why no pattern of ours
// means the same. It returns "" for a pattern we keep as written.
// A requested path is a valid URI path and query: it starts with "/", holds
// no white space or control character, and has "%" only before two hex
// digits. Google's parser compares "%" escapes literally.
func patternProblem(p string) string {
	if p[0] != '/' && p[0] != '*' {
		return `a pattern that does not start with "/" or "*" matches no path for Google's parser`
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c <= ' ' || c == 0x7f {
			return "a pattern holding white space or a control character matches no requested path for Google's parser (write a space as %20)"
		}
		if c != '%' || i+2 < len(p) && isHex(p[i+1]) && isHex(p[i+2]) {
			continue
		}
		for k := i + 1; k <= i+2; k++ {
			switch {
			case k == len(p) || p[k] == '*':
				// "/a%" matches "/a%41" there; %25 would match only "/a%25".
				return `a "%" without two hex digits at the end of a pattern or before "*" matches any escape there for Google's parser; no valid pattern says the same (a literal "%" is %25)`
			case !isHex(p[k]):
				return `a "%" not followed by two hex digits matches no requested path for Google's parser (a literal "%" is %25)`
			}
		}
	}
	return ""
}

// finish closes the current group, dropping it if nobody is addressed.
func (p *parser) finish() {
	if p.cur == nil {
		return
	}
	if len(p.cur.UserAgents) == 0 && len(p.cur.Purposes) == 0 {
		if len(p.cur.Rules) > 0 || p.cur.CrawlDelay != 0 || len(p.cur.Records) > 0 {
			p.diags = append(p.diags, Diagnostic{Line: p.curLine, Reason: "group without a valid user-agent or purpose skipped with its rules"})
		}
	} else {
		gs, runLines, foreign := p.splitRuns()
		for _, ref := range foreign {
			p.foreign = append(p.foreign, usageRef{len(p.f.Groups) + ref.g, ref.vi, ref.k})
		}
		p.f.Groups = append(p.f.Groups, gs...)
		// The group is where its first name is; the groups of its runs (without rules)
		// where theirs are.
		p.lines.groups = append(p.lines.groups, p.nameLine)
		p.lines.rules = append(p.lines.rules, p.ruleLines)
		for _, l := range runLines {
			p.lines.groups = append(p.lines.groups, l)
			p.lines.rules = append(p.lines.rules, nil)
		}
	}
	p.cur, p.runs, p.runStart, p.ruleLines = nil, nil, [2]int{}, nil
}
