// Package mimetype reads a Content-Type the way browsers do: the WHATWG MIME Sniffing
// Standard's "parse a MIME type" (https://mimesniff.spec.whatwg.org/#parse-a-mime-type) and
// the Fetch Standard's "extract a MIME type" for a Content-Type sent on several field lines
// or as a list (https://fetch.spec.whatwg.org/#concept-header-extract-mime-type).
//
// mime.ParseMediaType follows RFC 2045 strictly and refuses a whole value for one bad
// parameter ("text/html; charset", a repeated charset, "text/html;;"), where every browser
// still renders the page as HTML. Deciding whether a response is an HTML page by the strict
// reading leaves pages without what is meant for them; this package gives the browsers'
// answer.
//
// Input is read byte by byte, each byte one code point, which is the isomorphic decoding
// Fetch applies to header values: bytes 0x80-0xFF are allowed in parameter values, never in
// the type, subtype or parameter names.
package mimetype

import (
	"iter"
	"strings"

	"github.com/sitepolicy/caddy-robots/internal/httplex"
)

// MIMEType is a parsed MIME type record: a type and subtype, both ASCII lower case, and the
// parameters that were valid, each name ASCII lower case and present at most once (the first
// valid occurrence wins, as the standard says). The zero value is not a valid type; Parse and
// Extract report failure with their second result.
//
// Parsing does not allocate when the type and subtype are already lower case: the record
// keeps the input's parameter text and reads a parameter when asked.
type MIMEType struct {
	essence string // type "/" subtype, lower case
	slash   int    // index of "/" in essence
	params  string // the input from the first ";" after the subtype, or ""

	// inherited is a charset parameter Extract carried over from an earlier value with the
	// same essence (Fetch, "extract a MIME type", step 6.4.2); it counts only when params
	// has no valid charset.
	inherited    string
	hasInherited bool
}

// Parse runs the WHATWG "parse a MIME type" algorithm on s and reports false on failure:
// a type or subtype that is empty or holds a character outside the HTTP token code points,
// or no "/". HTTP whitespace (space, tab, CR, LF) around the value and before each parameter
// is skipped, and after the subtype and an unquoted parameter value; a parameter without a
// name, without "=", with an empty value, with a name outside the token code points or a
// value outside the quoted-string code points is skipped; a quoted value is read as
// "collect an HTTP quoted string" reads it (a backslash escapes the next character; a
// missing closing quote ends the value at the end of the input; anything after the closing
// quote up to the next ";" is ignored).
func Parse(s string) (MIMEType, bool) {
	s = trimHTTPSpace(s)
	slash := strings.IndexByte(s, '/')
	if slash <= 0 || !httplex.IsToken(s[:slash]) {
		return MIMEType{}, false
	}
	end := strings.IndexByte(s[slash+1:], ';')
	params := ""
	if end < 0 {
		end = len(s)
	} else {
		end += slash + 1
		params = s[end:]
	}
	subtype := strings.TrimRight(s[slash+1:end], httpSpace)
	if subtype == "" || !httplex.IsToken(subtype) {
		return MIMEType{}, false
	}
	essence := s[:slash+1+len(subtype)]
	if hasUpper(essence) {
		essence = strings.ToLower(essence) // token characters are ASCII: ASCII lower case
	}
	return MIMEType{essence: essence, slash: slash, params: params}, true
}

// Essence returns type "/" subtype, e.g. "text/html".
func (m MIMEType) Essence() string { return m.essence }

// Type returns the type, e.g. "text".
func (m MIMEType) Type() string { return m.essence[:m.slash] }

// Subtype returns the subtype, e.g. "html".
func (m MIMEType) Subtype() string {
	if m.essence == "" {
		return ""
	}
	return m.essence[m.slash+1:]
}

// IsHTML reports whether m is the WHATWG "HTML MIME type": essence text/html.
func (m MIMEType) IsHTML() bool { return m.essence == "text/html" }

// IsXHTML reports whether m is application/xhtml+xml: an HTML document that browsers parse
// with their XML parser.
func (m MIMEType) IsXHTML() bool { return m.essence == "application/xhtml+xml" }

// Param returns the value of the parameter name (matched ignoring ASCII case) and whether
// m has it. A quoted value is returned unquoted and unescaped; the value may be empty
// (charset="") and may hold bytes 0x80-0xFF.
func (m MIMEType) Param(name string) (string, bool) {
	rest := m.params
	for rest != "" {
		var p param
		p, rest = nextParam(rest)
		if p.ok && equalFoldASCII(p.name, name) {
			return p.value(), true
		}
	}
	if m.hasInherited && equalFoldASCII(name, "charset") {
		return m.inherited, true
	}
	return "", false
}

// Params returns the parameters of m, in order, each name in lower case with its value.
func (m MIMEType) Params() iter.Seq2[string, string] {
	return func(yield func(name, value string) bool) {
		charset := false
		for rest := m.params; rest != ""; {
			at := len(m.params) - len(rest)
			var p param
			p, rest = nextParam(rest)
			if !p.ok || m.seenBefore(at, p.name) {
				continue
			}
			name := p.name
			if hasUpper(name) {
				name = strings.ToLower(name)
			}
			charset = charset || name == "charset"
			if !yield(name, p.value()) {
				return
			}
		}
		if m.hasInherited && !charset {
			yield("charset", m.inherited)
		}
	}
}

// seenBefore reports whether a valid parameter with this name comes before offset at of
// m.params, so that the one at at is not stored.
func (m MIMEType) seenBefore(at int, name string) bool {
	for rest := m.params[:at]; rest != ""; {
		var q param
		q, rest = nextParam(rest)
		if q.ok && equalFoldASCII(q.name, name) {
			return true
		}
	}
	return false
}

// String serialises m as the standard's "serialize a MIME type" does: the essence, then
// ";name=value" for each parameter, the value quoted (with "\" before each '"' and "\") when
// it is empty or not only token code points. Parse(m.String()) gives m's essence and
// parameters back.
func (m MIMEType) String() string {
	if m.essence == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(m.essence)
	for name, value := range m.Params() {
		b.WriteByte(';')
		b.WriteString(name)
		b.WriteByte('=')
		if value != "" && httplex.IsToken(value) {
			b.WriteString(value)
			continue
		}
		b.WriteByte('"')
		for i := 0; i < len(value); i++ {
			if value[i] == '"' || value[i] == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(value[i])
		}
		b.WriteByte('"')
	}
	return b.String()
}

// Extract runs the Fetch Standard's "extract a MIME type" on the field lines of a
// Content-Type header (http.Header values, in order): the lines are one comma-separated list
// (commas inside quoted strings do not separate), each element is parsed, elements that fail
// or are "*/*" are skipped, and the last valid one is the type. A charset parameter of an
// earlier element carries over to a later one with the same essence that has none, as
// browsers do. It reports false when no element is a valid type (or there are no lines).
func Extract(lines []string) (MIMEType, bool) {
	var input string
	switch len(lines) {
	case 0:
		return MIMEType{}, false
	case 1:
		input = lines[0]
	default:
		input = strings.Join(lines, ", ") // "get" a header: its values joined with ", "
	}
	var (
		mt      MIMEType
		found   bool
		essence string
		charset string
		hasCS   bool
	)
	for rest := input; ; {
		var value string
		value, rest = httplex.NextFetchElement(rest)
		if t, ok := Parse(value); ok && t.essence != "*/*" {
			mt, found = t, true
			if t.essence != essence {
				charset, hasCS = t.Param("charset")
				essence = t.essence
			} else if _, has := t.Param("charset"); !has && hasCS {
				mt.inherited, mt.hasInherited = charset, true
			}
		}
		if rest == "" {
			break
		}
		rest = rest[1:] // the ","
	}
	return mt, found
}

// param is one parameter as "parse a MIME type" reads it.
type param struct {
	ok     bool   // the parameter is valid and stored (unless an earlier one has its name)
	name   string // as written
	raw    string // the unquoted value, or the quoted string with its quotes and escapes
	quoted bool
}

func (p param) value() string {
	if !p.quoted {
		return p.raw
	}
	v, _ := quotedString(p.raw)
	return v
}

// nextParam reads the parameter that s starts with (s begins with ";") and returns it and
// the text from the next ";" on ("" at the end). It follows step 11 of the algorithm.
func nextParam(s string) (param, string) {
	i := 1 // the ";"
	for i < len(s) && isHTTPSpace(s[i]) {
		i++
	}
	start := i
	for i < len(s) && s[i] != ';' && s[i] != '=' {
		i++
	}
	p := param{name: s[start:i]}
	if i < len(s) && s[i] == ';' {
		return param{}, s[i:]
	}
	if i >= len(s) {
		return param{}, ""
	}
	i++ // the "="
	if i >= len(s) {
		return param{}, ""
	}
	if s[i] == '"' {
		_, n := quotedString(s[i:])
		p.raw, p.quoted = s[i:i+n], true
		i += n
		for i < len(s) && s[i] != ';' {
			i++
		}
	} else {
		vstart := i
		for i < len(s) && s[i] != ';' {
			i++
		}
		p.raw = strings.TrimRight(s[vstart:i], httpSpace)
		if p.raw == "" {
			return param{}, s[i:]
		}
	}
	p.ok = p.name != "" && httplex.IsToken(p.name) && isQuotedStringText(p.value())
	return p, s[i:]
}

// quotedString is "collect an HTTP quoted string" on s, which starts with '"': it returns the
// value (the extract-value form) and how many bytes of s the quoted string takes.
func quotedString(s string) (string, int) {
	i := 1
	var b []byte // only when there is an escape
	start := 1
	for {
		for i < len(s) && s[i] != '"' && s[i] != '\\' {
			i++
		}
		if i >= len(s) {
			break
		}
		if s[i] == '\\' {
			b = append(b, s[start:i]...)
			i++
			if i >= len(s) {
				b = append(b, '\\')
				start = i
				break
			}
			b = append(b, s[i])
			i++
			start = i
			continue
		}
		// The closing quote.
		if b == nil {
			return s[1:i], i + 1
		}
		return string(append(b, s[start:i]...)), i + 1
	}
	if b == nil {
		return s[1:], len(s)
	}
	return string(append(b, s[start:]...)), len(s)
}

const httpSpace = " \t\r\n"

func isHTTPSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func trimHTTPSpace(s string) string { return strings.Trim(s, httpSpace) }

// isQuotedStringText reports whether s holds only HTTP quoted-string token code points:
// tab, 0x20-0x7E and 0x80-0xFF.
func isQuotedStringText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '\t' && (c < 0x20 || c == 0x7F) {
			return false
		}
	}
	return true
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// equalFoldASCII compares ignoring ASCII case only (strings.EqualFold would also match
// the Kelvin sign with "k").
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
