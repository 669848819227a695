package robotsgen

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/internal/httplex"
	"github.com/sitepolicy/caddy-robots/internal/syntax"
)

// Validate reports every problem of f, joined with errors.Join, each naming
// the place (e.g. groups[2].user_agents[0]) and saying what is allowed. A nil
// result means Render will succeed given a valid origin, unless the origin
// prefixed to path sitemaps pushes the file over MaxSize.
func (f *File) Validate() error {
	var v validation
	f.validateFileLines(&v)
	for gi := range f.Groups {
		f.validateNames(gi, &v)
		f.validateGroupLines(gi, &v)
	}
	if len(v.errs) == 0 {
		f.validatePresetsAdd(&v)
	}
	if len(v.errs) == 0 {
		// Only a valid file can be sized; path sitemaps count without origin
		// here and Render checks the real size again.
		var c counter
		f.Expand(false).renderTo(&c, "", nil)
		if c > MaxSize {
			v.errs = append(v.errs, sizeError(int(c)))
		}
	}
	return errors.Join(v.errs...)
}

// validation collects Validate's errors.
type validation struct{ errs []error }

// add adds the error of value at the place format and args name. Places are formatted only
// on error: Validate runs on every Render.
func (v *validation) add(value, msg, format string, args ...any) {
	v.errs = append(v.errs, configerr.New(fmt.Sprintf(format, args...), value, msg))
}

// validateFileLines checks the file-level lines: comments, sitemaps, licenses, records.
func (f *File) validateFileLines(v *validation) {
	for i, c := range f.Comments {
		if msg := checkText(c); msg != "" {
			v.add(c, msg, "comments[%d]", i)
		} else if msg := checkLineLen(len("# "), c); msg != "" {
			v.add(c, "a comment "+msg, "comments[%d]", i)
		}
	}
	for i, s := range f.Sitemaps {
		if msg := checkSitemap(s); msg != "" {
			v.add(s, msg, "sitemaps[%d]", i)
		}
	}
	for i, s := range f.Licenses {
		if msg := checkLicense(s); msg != "" {
			v.add(s, msg, "licenses[%d]", i)
		}
	}
	for i, r := range f.Records {
		checkRecord(r, true, func(field, value, msg string) {
			v.add(value, msg, "records[%d].%s", i, field)
		})
	}
}

// validateNames checks whom group gi addresses: its user agents, purposes and presets.
func (f *File) validateNames(gi int, v *validation) {
	g := &f.Groups[gi]
	if len(g.UserAgents) == 0 && len(g.Purposes) == 0 && len(g.Presets) == 0 {
		v.errs = append(v.errs, configerr.New(configerr.Index("groups", gi), "", "a group needs at least one user agent or purpose (or a preset), or crawlers cannot tell whom it addresses"))
	}
	checkPresets(f, gi, func(e *configerr.Error) { v.errs = append(v.errs, e) })
	for i, ua := range g.UserAgents {
		if !validProductToken(ua) {
			problem, suggestion := crawlers.NotToken(ua)
			v.errs = append(v.errs, &configerr.Error{Path: configerr.Index(configerr.Index("groups", gi)+".user_agents", i), Value: ua, Problem: problem, Suggestion: suggestion})
		} else if msg := checkAgentNotCategory(ua); msg != "" {
			v.add(ua, msg, "groups[%d].user_agents[%d]", gi, i)
		} else if strings.EqualFold(ua, PurposeSentinel) {
			v.add(ua, "this product token is reserved: Render uses it to guard the purpose-only groups", "groups[%d].user_agents[%d]", gi, i)
		} else if msg := checkLineLen(len(uaKey), ua); msg != "" {
			v.add(ua, "a product token "+msg, "groups[%d].user_agents[%d]", gi, i)
		}
	}
	for i, p := range g.Purposes {
		if !validPurposeToken(p) {
			v.add(p, `a purpose token may contain only A-Z, a-z, 0-9, "_" and "-"`, "groups[%d].purposes[%d]", gi, i)
		} else if msg := checkPurposeNotCrawler(p); msg != "" {
			v.add(p, msg, "groups[%d].purposes[%d]", gi, i)
		} else if msg := checkLineLen(len(purposeKey), p); msg != "" {
			v.add(p, "a purpose token "+msg, "groups[%d].purposes[%d]", gi, i)
		}
	}
}

// validateGroupLines checks the lines of group gi after its names: rules, preference rules,
// crawl delay, records.
func (f *File) validateGroupLines(gi int, v *validation) {
	g := &f.Groups[gi]
	for i, r := range g.Rules {
		if r.Type != Allow && r.Type != Disallow {
			v.errs = append(v.errs, &configerr.Error{Path: configerr.Index(configerr.Index("groups", gi)+".rules", i) + ".type", Value: string(r.Type), Problem: `a rule type is "allow" or "disallow"`,
				Suggestion: configerr.Closest(strings.ToLower(string(r.Type)), []string{string(Allow), string(Disallow)})})
		}
		if msg := checkPattern(r.Path); msg != "" {
			v.add(r.Path, msg, "groups[%d].rules[%d].path", gi, i)
		}
	}
	v.errs = validateUsage(g, gi, v.errs)
	if d := g.CrawlDelay; math.IsNaN(d) || math.IsInf(d, 0) || d < 0 {
		v.add(strconv.FormatFloat(d, 'g', -1, 64), CrawlDelayProblem, "groups[%d].crawl_delay", gi)
	}
	for i, r := range g.Records {
		checkRecord(r, false, func(field, value, msg string) {
			v.add(value, msg, "groups[%d].records[%d].%s", gi, i, field)
		})
	}
}

// validatePresetsAdd refuses a group whose presets, written out, leave it addressing no one.
func (f *File) validatePresetsAdd(v *validation) {
	ef := f.Expand(false)
	for gi := range ef.Groups {
		if g := &ef.Groups[gi]; len(f.Groups[gi].Presets) > 0 && len(g.UserAgents) == 0 && len(g.Purposes) == 0 {
			v.errs = append(v.errs, configerr.New(configerr.Index("groups", gi)+".presets", "", "the presets add no crawler: each one is named in another group, which overrides the preset for it, or left out by except"))
		}
	}
}

// CrawlDelayProblem is what every front end says about a crawl delay that is not a finite
// number of seconds >= 0.
const CrawlDelayProblem = "a crawl delay is a finite number of seconds >= 0, e.g. 10 or 0.5 (0 = none)"

func sizeError(n int) error {
	return configerr.New("", "", fmt.Sprintf("the rendered robots.txt is %d bytes, over %d bytes (500 KiB); crawlers may ignore everything past that", n, MaxSize))
}

// counter counts the bytes render would write.
type counter int

func (c *counter) WriteString(s string) (int, error) { *c += counter(len(s)); return len(s), nil }
func (c *counter) WriteByte(byte) error              { *c++; return nil }

// NeedsOrigin reports whether any sitemap or license is a path, so that the server must
// render the file per request scheme and host.
func (f *File) NeedsOrigin() bool {
	for _, s := range f.Sitemaps {
		if strings.HasPrefix(s, "/") {
			return true
		}
	}
	for _, s := range f.Licenses {
		if strings.HasPrefix(s, "/") {
			return true
		}
	}
	return false
}

// validProductToken implements RFC 9309 section 2.2.1, with "*" for every crawler, and
// accepts digits too (crawlers.IsToken: AI2Bot), which Warnings flags.
func validProductToken(s string) bool { return s == "*" || crawlers.IsToken(s) }

// validPurposeToken accepts the product-token charset plus digits, because
// the draft's own registered-value examples ("EXAMPLE-PURPOSE-1") use them.
func validPurposeToken(s string) bool { return crawlers.IsToken(s) }

// checkText checks free text (comments): valid UTF-8, nothing that ends a line.
func checkText(s string) string { return syntax.TextProblem(s) }

// checkLineLen checks that a value fits on one rendered line after a prefix
// of keyLen bytes (the key and ": "). Google's parser reads only the first
// maxLineLen bytes of a line and drops the rest, so a longer line would be
// read as a different value.
func checkLineLen(keyLen int, value string) string {
	if keyLen+len(value) > maxLineLen {
		return fmt.Sprintf("makes its line %d bytes long with the key, over the %d bytes at which Google's parser truncates lines", keyLen+len(value), maxLineLen)
	}
	return ""
}

// checkValue checks a record or sitemap value: like checkText, plus no "#"
// (it starts a comment) and no surrounding whitespace (parsers trim it).
func checkValue(s string) string {
	if msg := checkText(s); msg != "" {
		return msg
	}
	if strings.Contains(s, "#") {
		return `must not contain "#", which starts a comment in robots.txt`
	}
	if strings.TrimSpace(s) != s {
		return "must not start or end with whitespace, which parsers strip"
	}
	return ""
}

func checkSitemap(s string) string { return checkURLOrPath("sitemap", sitemapKey, s) }

// checkLicense checks an RSL License URL as a sitemap: RSL 1.0 asks for an absolute URL in
// robots.txt, which a path becomes once Render resolves it against the request's origin. The
// same URL goes into Link fields and HTML attributes (a route's license), so characters that
// RFC 3986 leaves out of URIs, some of which end a Link target or an attribute, are refused.
func checkLicense(s string) string {
	if msg := checkURLOrPath("license", licenseKey, s); msg != "" {
		return msg
	}
	return syntax.URIExcluded("a license URL", s)
}

// checkURLOrPath checks the value of a line keyed key that names what: an absolute http(s)
// URL, or a path the server resolves against the request's scheme and host.
func checkURLOrPath(what, key, s string) string {
	if msg := checkValue(s); msg != "" {
		return msg
	}
	// Without the origin that Render prefixes to a path; Render checks the
	// final line again.
	if msg := checkLineLen(len(key), s); msg != "" {
		return "a " + what + " " + msg
	}
	bad := "a " + what + " is an absolute http(s) URL, or a path starting with \"/\" that the server resolves against the request's scheme and host"
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return bad + "; spaces and non-ASCII must be percent-encoded"
		}
	}
	if strings.HasPrefix(s, "//") {
		return bad + ` ("//" would name another host)`
	}
	if strings.HasPrefix(s, "/") {
		if _, err := url.ParseRequestURI(s); err != nil {
			return bad
		}
		return ""
	}
	if _, ok := httplex.AbsoluteURL(s); !ok {
		return bad
	}
	return ""
}

// reservedKeyPrefixes are keys that some parser reads as a line of the
// protocol. Google's parser matches keys by prefix and accepts typos, so
// "Allowance" would be an allow line there.
var reservedKeyPrefixes = []string{
	"user-agent", "useragent", "user agent", "allow", "disallow",
	"dissallow", "dissalow", "disalow", "diaslow", "diasllow", "disallaw",
	"sitemap", "site-map", "crawl-delay", "crawldelay",
}

func checkRecord(r Record, fileLevel bool, add func(field, value, msg string)) {
	if !validRecordKey(r.Key) {
		add("key", r.Key, `a record key may contain only A-Z, a-z and "-"`)
	} else if p := reservedPrefix(r.Key); p != "" {
		add("key", r.Key, fmt.Sprintf("a record key must not be (or start with) the core key %q; use the dedicated field", p))
	} else if strings.EqualFold(r.Key, "license") {
		add("key", r.Key, "License is RSL's directive; put its URL in File.Licenses, which checks it")
	} else if !fileLevel && strings.EqualFold(r.Key, "host") {
		add("key", r.Key, "Host is a file-level record; put it in File.Records")
	} else if vi := usageKind(r.Key); !fileLevel && vi >= 0 {
		add("key", r.Key, "a group's "+usageVocabs[vi].v.String()+" rules go in its "+usageVocabs[vi].field+" field, which checks them")
	}
	if msg := checkValue(r.Value); msg != "" {
		add("value", r.Value, "a record value "+msg)
	} else if msg := checkLineLen(len(r.Key)+len(": "), r.Value); msg != "" {
		field, v := "value", r.Value
		if len(r.Key)+len(": ") >= maxLineLen {
			field, v = "key", r.Key
		}
		add(field, v, "a record "+msg)
	}
}

func validRecordKey(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-') {
			return false
		}
	}
	return true
}

func reservedPrefix(key string) string {
	k := strings.ToLower(key)
	for _, p := range reservedKeyPrefixes {
		if strings.HasPrefix(k, p) {
			return p
		}
	}
	return ""
}

// checkPattern checks a path pattern (RFC 9309 sections 2.2.2 and 2.2.3).
// A "$" before the end is accepted and kept: Google's parser, and RFC 9309
// crawlers, for which "$" is special only at the end, read it as a literal
// "$" (written %24, it would match only a path holding "%24" for Google).
func checkPattern(p string) string {
	if p == "" {
		return `a pattern must not be empty (an empty rule means "allow all", which is the default; leave rules empty instead)`
	}
	if !utf8.ValidString(p) {
		return "a pattern must be valid UTF-8"
	}
	if p[0] != '/' && p[0] != '*' {
		return `a pattern starts with "/" or "*"`
	}
	for i := 0; i < len(p); {
		r, size := rune(p[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(p[i:])
		}
		i += size
		switch {
		case syntax.LineBreaking(r):
			return fmt.Sprintf("a pattern must not contain control characters or line/paragraph separators (found %U)", r)
		case r == ' ' || (r >= utf8.RuneSelf && unicode.IsSpace(r)):
			return fmt.Sprintf("a pattern must not contain whitespace (found %U); percent-encode it, e.g. %%20", r)
		case r == '#':
			return `a pattern must not contain "#" (it starts a comment); write %23`
		case r == '%':
			if i+1 >= len(p) || !isHex(p[i]) || !isHex(p[i+1]) {
				return `"%" must start a percent-escape of two hex digits; write a literal "%" as %25`
			}
		}
	}
	if len(p)+2*nonASCII(p)+len(disallowKey) > maxLineLen {
		return fmt.Sprintf("a pattern longer than %d bytes (non-ASCII octets count 3, as Render percent-encodes them) does not fit on a line: Google's parser truncates lines at %d bytes", maxLineLen-len(disallowKey), maxLineLen)
	}
	return ""
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// checkOrigin validates a request origin "scheme://host[:port]".
func checkOrigin(origin string) error {
	u, ok := httplex.AbsoluteURL(origin)
	if !ok || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil || u.Opaque != "" ||
		strings.ContainsFunc(origin, func(r rune) bool { return r == ' ' || r == '#' || syntax.LineBreaking(r) }) {
		return fmt.Errorf("origin %q: an origin is scheme://host[:port] with scheme http or https (needed to resolve path sitemaps)", origin)
	}
	for i := 0; i < len(origin); i++ {
		if origin[i] < 0x21 || origin[i] >= 0x7f {
			return fmt.Errorf("origin %q: an origin must be printable ASCII", origin)
		}
	}
	return nil
}

func nonASCII(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			n++
		}
	}
	return n
}
