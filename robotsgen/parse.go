package robotsgen

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Parse reads a robots.txt file leniently, as RFC 9309 section 2.3.1.5 asks:
// every line is tried, what parses is kept, and each line (or part) skipped
// or changed is reported as a Diagnostic. Only the first MaxSize bytes are
// read. The returned File passes Validate unless its rendering would exceed
// MaxSize (Render adds "Disallow:" to groups without rules, and blank lines).
//
// Accepted spellings: keys are case-insensitive; besides the RFC keys it
// reads "useragent" and "user agent" as user-agent, "disalow", "dissallow",
// "dissalow", "diaslow", "diasllow" and "disallaw" as disallow, "site-map" as
// sitemap and "crawldelay" as crawl-delay (the typos Google's parser and
// github.com/temoto/robotstxt accept). Lines are split at LF, CRLF or CR; a
// leading UTF-8 BOM is skipped; "#" starts a comment. Comment lines at the
// very top (before any other line, blank lines included) become
// File.Comments. Sitemap and Host lines are file-level wherever they appear;
// other unknown records are file-level before the first group and belong to
// the current group after it.
func Parse(data []byte) (*File, []Diagnostic) {
	p := parser{f: &File{}}
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
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
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
		if leading && len(raw) > 0 && raw[0] == '#' {
			c := string(raw[1:])
			c = strings.TrimPrefix(c, " ")
			if checkText(c) == "" {
				p.f.Comments = append(p.f.Comments, c)
				continue
			}
		}
		leading = false
		p.line(line, raw)
	}
	p.finish()
	if p.truncated {
		p.diag(line+1, nil, "file exceeds 500 KiB; everything from this line on is ignored")
	}
	return p.f, p.diags
}

type parser struct {
	f         *File
	diags     []Diagnostic
	truncated bool

	cur      *Group // group being read, nil before the first header line
	curLine  int    // line of cur's first header line
	curRules bool   // cur has seen a rule line, so the next header starts a new group
	curDelay bool
}

func (p *parser) diag(line int, raw []byte, reason string) {
	t := string(raw)
	if len(t) > 200 {
		t = t[:200]
	}
	p.diags = append(p.diags, Diagnostic{Line: line, Text: t, Reason: reason})
}

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
)

func keyKind(k string) int {
	switch strings.ToLower(k) {
	case "user-agent", "useragent", "user agent":
		return kUserAgent
	case "user-agent-purpose":
		return kPurpose
	case "allow":
		return kAllow
	case "disallow", "disalow", "dissallow", "dissalow", "diaslow", "diasllow", "disallaw":
		return kDisallow
	case "sitemap", "site-map":
		return kSitemap
	case "crawl-delay", "crawldelay":
		return kCrawlDelay
	case "host":
		return kHost
	}
	return kUnknown
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
	colon := bytes.IndexByte(s, ':')
	if colon < 0 {
		p.diag(n, raw, `no ":" after the key`)
		return
	}
	key := string(bytes.TrimSpace(s[:colon]))
	valb := bytes.TrimSpace(s[colon+1:])
	kind := keyKind(key)
	if kind != kAllow && kind != kDisallow && !utf8.Valid(valb) {
		p.diag(n, raw, "value is not valid UTF-8")
		return
	}
	val := string(valb)
	switch kind {
	case kUserAgent, kPurpose:
		p.header(n, raw, kind, val)
	case kAllow, kDisallow:
		p.rule(n, raw, kind, valb)
	case kSitemap:
		if msg := checkSitemap(val); msg != "" || strings.HasPrefix(val, "/") {
			if msg == "" {
				msg = "a sitemap in a file must be an absolute URL"
			}
			p.diag(n, raw, "sitemap skipped: "+msg)
			return
		}
		p.f.Sitemaps = append(p.f.Sitemaps, val)
	case kCrawlDelay:
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
	case kHost:
		p.record(n, raw, Record{Key: key, Value: val}, true)
	default:
		if rp := reservedPrefix(key); rp != "" {
			p.diag(n, raw, "key skipped: parsers disagree on it (Google's parser reads it as "+rp+")")
			return
		}
		p.record(n, raw, Record{Key: key, Value: val}, p.cur == nil)
	}
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

func (p *parser) header(n int, raw []byte, kind int, val string) {
	if p.cur == nil || p.curRules {
		p.finish()
		p.cur = &Group{}
		p.curLine = n
		p.curRules = false
		p.curDelay = false
	}
	if kind == kUserAgent {
		switch {
		case val == "*" || strings.HasPrefix(val, "* ") || strings.HasPrefix(val, "*\t"):
			// Google reads "* anything" as the global agent too.
			p.cur.UserAgents = append(p.cur.UserAgents, "*")
		case val == PurposeSentinel:
			// Render's guard line: matches no crawler, drop silently.
		default:
			i := 0
			for i < len(val) && isTokenByte(val[i]) {
				i++
			}
			if i == 0 {
				p.diag(n, raw, "user-agent is not a product token (A-Z, a-z, \"_\", \"-\" or \"*\"); the line still starts a group")
				return
			}
			if i < len(val) {
				p.diag(n, raw, "user-agent value cut to its product token "+strconv.Quote(val[:i]))
			}
			p.cur.UserAgents = append(p.cur.UserAgents, val[:i])
		}
		return
	}
	if !validPurposeToken(val) {
		p.diag(n, raw, "user-agent-purpose is not a purpose token (A-Z, a-z, 0-9, \"_\", \"-\"); the line still starts a group")
		return
	}
	p.cur.Purposes = append(p.cur.Purposes, val)
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
	// Bridge non-UTF-8 bytes the way crawlers see them: percent-encoded.
	path := encodePattern(string(val))
	if fixed := fixPattern(path); fixed != path {
		p.diag(n, raw, "pattern rewritten as "+strconv.Quote(fixed)+" (literal space, \"$\" or \"%\" percent-encoded)")
		path = fixed
	}
	if path[0] != '/' && path[0] != '*' {
		path = "/" + path
		p.diag(n, raw, `pattern does not start with "/" or "*"; read as `+strconv.Quote(path))
	}
	if msg := checkPattern(path); msg != "" {
		p.diag(n, raw, "rule skipped: "+msg)
		return
	}
	t := Allow
	if kind == kDisallow {
		t = Disallow
	}
	p.cur.Rules = append(p.cur.Rules, Rule{Type: t, Path: path})
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
		p.f.Groups = append(p.f.Groups, *p.cur)
	}
	p.cur = nil
}

// fixPattern percent-encodes what a file may hold literally but a pattern of
// ours may not: whitespace, a "$" before the end (Google matches it
// literally) and a "%" that starts no escape.
func fixPattern(p string) string {
	var b []byte
	for i := 0; i < len(p); i++ {
		c := p[i]
		bad := c == ' ' || c == '\t' || (c == '$' && i != len(p)-1) ||
			(c == '%' && (i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2])))
		if bad && b == nil {
			b = append(make([]byte, 0, len(p)+8), p[:i]...)
		}
		if bad {
			b = append(b, '%', upperHex[c>>4], upperHex[c&15])
		} else if b != nil {
			b = append(b, c)
		}
	}
	if b == nil {
		return p
	}
	return string(b)
}
