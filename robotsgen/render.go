package robotsgen

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/usage"
)

// PurposeSentinel is the product token of the user-agent line that Render
// puts before the purpose-only groups. Parsers that do not know
// User-Agent-Purpose read it as a group start and keep the purpose groups'
// rules to it instead of attaching them to another group. It is a valid RFC
// 9309 product token, so the file stays within the grammar, but no crawler
// uses it, and Validate reserves it so that no config can. Parse drops it.
const PurposeSentinel = "robotsgen-purpose-groups"

// PurposeSentinelComment is the comment Render writes above the PurposeSentinel line, for the
// reader of the served file; Parse drops it with the line.
const PurposeSentinelComment = "Groups for crawlers by purpose (User-Agent-Purpose, draft-illyes-rep-purpose). No crawler is named " + PurposeSentinel + ": that line keeps parsers that do not read User-Agent-Purpose from adding these rules to another group."

// Line prefixes that Render writes; Validate counts them in line lengths.
const (
	uaKey       = "User-agent: "
	purposeKey  = "User-Agent-Purpose: "
	sitemapKey  = "Sitemap: "
	licenseKey  = "License: "
	disallowKey = "Disallow: " // the longer of the two rule keys
)

// Render validates f and returns the robots.txt bytes. origin, such as
// "https://example.com:8443", resolves sitemaps and licenses given as paths; it may be
// empty when NeedsOrigin is false. The same f and origin give the same bytes.
//
// Layout (see the package documentation for why): comment lines; the
// Sitemap lines, the License lines and file-level records; purpose-only groups behind a
// PurposeSentinel user-agent line (with a PurposeSentinelComment line
// above it); then every other group in order. A group
// without rules gets an empty "Disallow:" so that no parser merges it with
// the next one.
func (f *File) Render(origin string) ([]byte, error) {
	out, _, err := f.render(origin, nil)
	return out, err
}

// render is Render, which also returns the file written (presets written out) and, when lines
// is not nil, records there the line of each of its groups and rules.
func (f *File) render(origin string, lines *fileLines) ([]byte, *File, error) {
	if err := f.Validate(); err != nil {
		return nil, nil, err
	}
	if err := f.checkWithOrigin(origin); err != nil {
		return nil, nil, err
	}
	ef := f.Expand(false) // presets written out as user agents
	var buf bytes.Buffer
	buf.Grow(ef.sizeHint(len(origin)))
	ef.renderTo(&buf, strings.TrimSuffix(origin, "/"), lines)
	out := buf.Bytes()
	if len(out) > MaxSize {
		return nil, nil, sizeError(len(out))
	}
	return out, ef, nil
}

// checkWithOrigin checks origin, and the length of every sitemap and license line once
// origin is prefixed to paths (Validate counts them without it).
func (f *File) checkWithOrigin(origin string) error {
	if !f.NeedsOrigin() && origin == "" {
		return nil
	}
	if err := checkOrigin(origin); err != nil {
		return err
	}
	origin = strings.TrimSuffix(origin, "/")
	var errs []error
	for i, s := range f.Sitemaps {
		if strings.HasPrefix(s, "/") {
			if msg := checkLineLen(len(sitemapKey)+len(origin), s); msg != "" {
				errs = append(errs, configerr.New(configerr.Index("sitemaps", i), s, fmt.Sprintf("with the origin %q prefixed, a sitemap %s", origin, msg)))
			}
		}
	}
	for i, s := range f.Licenses {
		if strings.HasPrefix(s, "/") {
			if msg := checkLineLen(len(licenseKey)+len(origin), s); msg != "" {
				errs = append(errs, configerr.New(configerr.Index("licenses", i), s, fmt.Sprintf("with the origin %q prefixed, a license %s", origin, msg)))
			}
		}
	}
	return errors.Join(errs...)
}

// writer is what renderTo writes to: a bytes.Buffer, or a counter when
// Validate only needs the size.
type writer interface {
	WriteString(string) (int, error)
	WriteByte(byte) error
}

// lineWriter counts the lines written through it, for renderTo to record where each group
// and rule goes.
type lineWriter struct {
	w     writer
	lines int // line breaks written
}

func (l *lineWriter) WriteString(s string) (int, error) {
	l.lines += strings.Count(s, "\n")
	return l.w.WriteString(s)
}

func (l *lineWriter) WriteByte(c byte) error {
	if c == '\n' {
		l.lines++
	}
	return l.w.WriteByte(c)
}

// renderTo writes f without validating it. With lines, it records there the line of each
// group and rule of f.
func (f *File) renderTo(b writer, origin string, lines *fileLines) {
	var lw *lineWriter
	if lines != nil {
		lw = &lineWriter{w: b}
		b = lw
		lines.groups = make([]int, len(f.Groups))
		lines.rules = make([][]int, len(f.Groups))
	}
	// record notes where group i is about to be written: its header lines, then its rules
	// one per line (writeGroup).
	record := func(i int) {
		if lines == nil {
			return
		}
		g := &f.Groups[i]
		first := lw.lines + 1
		lines.groups[i] = first
		rules := make([]int, len(g.Rules))
		for k := range rules {
			rules[k] = first + len(g.UserAgents) + len(g.Purposes) + k
		}
		lines.rules[i] = rules
	}
	needBlank := f.writeFileLines(b, origin)
	blank := func() {
		if needBlank {
			b.WriteByte('\n')
			needBlank = false
		}
	}
	sentinel := false
	for i := range f.Groups {
		if g := &f.Groups[i]; len(g.UserAgents) == 0 {
			blank()
			if !sentinel {
				b.WriteString("# " + PurposeSentinelComment + "\n")
				b.WriteString("User-agent: " + PurposeSentinel + "\n")
				sentinel = true
			}
			record(i)
			writeGroup(b, g)
			needBlank = true
		}
	}
	for i := range f.Groups {
		if g := &f.Groups[i]; len(g.UserAgents) > 0 {
			blank()
			record(i)
			writeGroup(b, g)
			needBlank = true
		}
	}
}

// writeFileLines writes the comments, then after a blank line the sitemaps, licenses and
// file-level records; it reports whether a blank line is due before the next line.
func (f *File) writeFileLines(b writer, origin string) (needBlank bool) {
	for _, c := range f.Comments {
		if c == "" {
			b.WriteString("#\n")
		} else {
			b.WriteString("# ")
			b.WriteString(c)
			b.WriteByte('\n')
		}
	}
	if len(f.Sitemaps)+len(f.Licenses)+len(f.Records) == 0 {
		return len(f.Comments) > 0
	}
	if len(f.Comments) > 0 {
		b.WriteByte('\n')
	}
	for _, s := range f.Sitemaps {
		b.WriteString(sitemapKey)
		if strings.HasPrefix(s, "/") {
			b.WriteString(origin)
		}
		b.WriteString(s)
		b.WriteByte('\n')
	}
	for i, s := range f.Licenses {
		if licenseWritten(f.Licenses[:i], s, origin) {
			continue
		}
		b.WriteString(licenseKey)
		if strings.HasPrefix(s, "/") {
			b.WriteString(origin)
		}
		b.WriteString(s)
		b.WriteByte('\n')
	}
	for _, r := range f.Records {
		writeRecord(b, r)
	}
	return true
}

func (f *File) sizeHint(origin int) int {
	n := 64 + len(PurposeSentinel) + len(PurposeSentinelComment)
	for _, c := range f.Comments {
		n += len(c) + 3
	}
	for _, s := range f.Sitemaps {
		n += len(s) + 10 + origin
	}
	for _, s := range f.Licenses {
		n += len(s) + 10 + origin
	}
	for _, r := range f.Records {
		n += len(r.Key) + len(r.Value) + 3
	}
	for i := range f.Groups {
		g := &f.Groups[i]
		n += 32
		for _, u := range g.UserAgents {
			n += len(u) + 13
		}
		for _, p := range g.Purposes {
			n += len(p) + 21
		}
		for _, r := range g.Rules {
			n += len(r.Path) + 2*nonASCII(r.Path) + 11
		}
		for _, r := range g.Records {
			n += len(r.Key) + len(r.Value) + 3
		}
		n += usageSizeHint(g)
	}
	return n
}

func writeRecord(b writer, r Record) {
	b.WriteString(r.Key)
	b.WriteString(": ")
	b.WriteString(r.Value)
	b.WriteByte('\n')
}

func writeGroup(b writer, g *Group) {
	for _, u := range g.UserAgents {
		b.WriteString(uaKey)
		b.WriteString(u)
		b.WriteByte('\n')
	}
	for _, p := range g.Purposes {
		b.WriteString(purposeKey)
		b.WriteString(p)
		b.WriteByte('\n')
	}
	if len(g.Rules) == 0 {
		// Allow-all that closes the group (see the package documentation).
		b.WriteString("Disallow:\n")
	}
	for _, r := range g.Rules {
		if r.Type == Allow {
			b.WriteString("Allow: ")
		} else {
			b.WriteString(disallowKey)
		}
		writePattern(b, r.Path)
		b.WriteByte('\n')
	}
	writeUsage(b, g)
	if g.CrawlDelay != 0 {
		b.WriteString("Crawl-delay: ")
		b.WriteString(formatDelay(g.CrawlDelay))
		b.WriteByte('\n')
	}
	for _, r := range g.Records {
		writeRecord(b, r)
	}
}

// formatDelay writes the shortest decimal that parses back to d exactly.
func formatDelay(d float64) string {
	return strconv.FormatFloat(d, 'f', -1, 64)
}

const upperHex = "0123456789ABCDEF"

// writePattern writes encodePattern(p) without building it.
func writePattern(b writer, p string) {
	start := 0
	for i := 0; i < len(p); i++ {
		if c := p[i]; c >= 0x80 {
			b.WriteString(p[start:i])
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
			start = i + 1
		}
	}
	b.WriteString(p[start:])
}

// encodePattern percent-encodes the octets outside ASCII (RFC 9309 section
// 2.2.2) with upper-case hex, as Google's parser does to patterns it reads.
func encodePattern(p string) string {
	n := 0
	for i := 0; i < len(p); i++ {
		if p[i] >= 0x80 {
			n++
		}
	}
	if n == 0 {
		return p
	}
	buf := make([]byte, 0, len(p)+2*n)
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c >= 0x80 {
			buf = append(buf, '%', upperHex[c>>4], upperHex[c&15])
		} else {
			buf = append(buf, c)
		}
	}
	return string(buf)
}

// resolve prefixes origin (without a final "/") to a path.
func resolve(s, origin string) string {
	if strings.HasPrefix(s, "/") {
		return origin + s
	}
	return s
}

// licenseWritten reports whether one of the earlier licenses resolves to the same URL as s
// against origin: a config may name a license by path and a merged file by its absolute URL,
// and RSL gains nothing from the same License line twice. Compared as written after
// resolution (RSL does not define URL equivalence); no allocation.
func licenseWritten(earlier []string, s, origin string) bool {
	for _, e := range earlier {
		if sameResolved(e, s, origin) {
			return true
		}
	}
	return false
}

func sameResolved(a, b, origin string) bool {
	ap, bp := strings.HasPrefix(a, "/"), strings.HasPrefix(b, "/")
	switch {
	case ap == bp:
		return a == b
	case ap:
		return len(b) == len(origin)+len(a) && strings.HasPrefix(b, origin) && strings.HasSuffix(b, a)
	default:
		return len(a) == len(origin)+len(b) && strings.HasPrefix(a, origin) && strings.HasSuffix(a, b)
	}
}

// canonical returns the file that Parse(Render(origin)) yields for a valid f:
// sitemap and license paths resolved against origin (a license resolving to an earlier one dropped), non-ASCII octets in patterns
// percent-encoded with upper-case hex, presets expanded (Expand), purpose-only groups moved (in order)
// before all other groups (in order), and empty slices made nil. It returns Validate's error for an
// invalid f.
func (f *File) canonical(origin string) (*File, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if err := f.checkWithOrigin(origin); err != nil {
		return nil, err
	}
	origin = strings.TrimSuffix(origin, "/")
	f = f.Expand(false)
	c := &File{}
	c.Comments = cloneStrings(f.Comments)
	for _, s := range f.Sitemaps {
		if strings.HasPrefix(s, "/") {
			s = origin + s
		}
		c.Sitemaps = append(c.Sitemaps, s)
	}
	for i, s := range f.Licenses {
		if licenseWritten(f.Licenses[:i], s, origin) {
			continue
		}
		c.Licenses = append(c.Licenses, resolve(s, origin))
	}
	c.Records = cloneRecords(f.Records)
	add := func(g *Group) {
		ng := Group{
			UserAgents: cloneStrings(g.UserAgents),
			Purposes:   cloneStrings(g.Purposes),
			CrawlDelay: g.CrawlDelay,
			Records:    cloneRecords(g.Records),
		}
		ng.ContentUsage = canonicalUsage(usage.ContentUsage, g.ContentUsage)
		ng.ContentSignal = canonicalUsage(usage.ContentSignal, g.ContentSignal)
		for _, r := range g.Rules {
			ng.Rules = append(ng.Rules, Rule{Type: r.Type, Path: encodePattern(r.Path)})
		}
		c.Groups = append(c.Groups, ng)
	}
	for i := range f.Groups {
		if len(f.Groups[i].UserAgents) == 0 {
			add(&f.Groups[i])
		}
	}
	for i := range f.Groups {
		if len(f.Groups[i].UserAgents) > 0 {
			add(&f.Groups[i])
		}
	}
	return c, nil
}

func cloneStrings(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return append([]string(nil), s...)
}

func cloneRecords(r []Record) []Record {
	if len(r) == 0 {
		return nil
	}
	return append([]Record(nil), r...)
}
