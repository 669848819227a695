package tagemit

import (
	"bytes"
	"strings"
)

// ASCIICompatible reports whether a charset label (from a Content-Type parameter or a meta
// element) names an encoding in which the bytes of "<head>", "<meta ...>" and every other
// ASCII character only ever stand for those characters, so that HTML can be read and edited
// byte-wise as ASCII. It is false for the encodings the WHATWG Encoding Standard does not treat
// as ASCII-compatible, under any of their labels (UTF-16BE, UTF-16LE, ISO-2022-JP, and the
// "replacement" encoding that covers ISO-2022-KR, ISO-2022-CN(-EXT) and HZ-GB-2312), and for
// labels outside that standard that other decoders know and whose bytes are not ASCII: UTF-32,
// UCS-2/UCS-4, UTF-7, any ISO-2022 variant, SCSU, BOCU-1 and EBCDIC code pages. Any other label,
// including one no decoder knows, is taken as ASCII-compatible: a browser that does not know a
// label falls back to an ASCII-compatible default.
//
// Case, surrounding white space and quotes, and the separators "-", "_", ".", ":" and " " are
// ignored, so "UTF_16le", "'utf16'" and "Iso-2022-JP" are recognised.
func ASCIICompatible(label string) bool {
	k := charsetKey(label)
	if k == "" || strings.Contains(k, "utf8") {
		return true // UTF-8 under any label, and UTF-8 variants (unicode-1-1-utf-8, utf-8-sig, ...)
	}
	if incompatibleExact[k] {
		return false
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(k, "x"), "cs")
	for _, p := range incompatiblePrefixes {
		if strings.HasPrefix(k, p) || strings.HasPrefix(rest, p) {
			return false
		}
	}
	if strings.Contains(k, "2022") || strings.Contains(k, "ebcdic") || strings.Contains(k, "10646") {
		return false
	}
	// Code page numbers: IBM/Windows names of UTF-16/32/7, ISO-2022, HZ and EBCDIC.
	for _, p := range []string{"windows", "ccsid", "ibm", "cp"} {
		if num, ok := strings.CutPrefix(rest, p); ok && incompatibleCodePages[strings.TrimLeft(num, "0")] {
			return false
		}
	}
	return true
}

// charsetKey lower-cases a label and removes quotes, white space and separators.
func charsetKey(label string) string {
	var b strings.Builder
	for i := 0; i < len(label); i++ {
		c := label[i]
		switch {
		case 'A' <= c && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c >= 0x80:
			b.WriteByte(c)
		}
	}
	return b.String()
}

var incompatibleExact = map[string]bool{
	"unicode": true, "unicodefffe": true, "unicodefeff": true, "replacement": true, "utf1": true,
	"scsu": true, "bocu1": true, "ucs2": true, "ucs4": true, "ucs": true,
}

var incompatiblePrefixes = []string{
	"utf16", "utf32", "utf7", "ucs2", "ucs4", "unicode", "hz", "iso2022", "utfebcdic", "ebcdic",
}

var incompatibleCodePages = map[string]bool{
	// UTF-16LE/BE, UTF-32LE/BE, UTF-7, ISO-2022-JP/KR/CN, HZ-GB-2312
	"1200": true, "1201": true, "12000": true, "12001": true, "65000": true,
	"50220": true, "50221": true, "50222": true, "50225": true, "50227": true, "50229": true, "52936": true,
	// EBCDIC
	"37": true, "273": true, "277": true, "278": true, "280": true, "284": true, "285": true,
	"290": true, "297": true, "420": true, "423": true, "424": true, "500": true, "833": true,
	"836": true, "838": true, "870": true, "871": true, "875": true, "880": true, "905": true,
	"918": true, "924": true, "930": true, "933": true, "935": true, "937": true, "939": true,
	"1025": true, "1026": true, "1047": true, "1097": true, "1112": true, "1122": true, "1123": true,
	"1140": true, "1141": true, "1142": true, "1143": true, "1144": true, "1145": true, "1146": true,
	"1147": true, "1148": true, "1149": true, "1153": true, "1154": true, "1155": true, "1156": true,
	"1157": true, "1158": true, "1160": true, "1164": true, "1166": true,
	"20273": true, "20277": true, "20278": true, "20280": true, "20284": true, "20285": true,
	"20290": true, "20297": true, "20420": true, "20423": true, "20424": true, "20833": true,
	"20838": true, "20871": true, "20880": true, "20905": true, "20924": true, "21025": true, "21027": true,
}

// extractCharset is the HTML algorithm for extracting a character encoding from a meta
// element's content attribute (also fit for a Content-Type value's parameters): the label
// after the first "charset" that is followed by "=", quoted or up to white space or ";".
func extractCharset(s []byte) (string, bool) {
	pos := 0
	for {
		i := indexFold(s[pos:], "charset")
		if i < 0 {
			return "", false
		}
		pos += i + len("charset")
		j := pos
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		if j >= len(s) || s[j] != '=' {
			continue
		}
		j++
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		if j >= len(s) {
			return "", false
		}
		if q := s[j]; q == '"' || q == '\'' {
			end := bytes.IndexByte(s[j+1:], q)
			if end < 0 {
				return "", false
			}
			return string(s[j+1 : j+1+end]), true
		}
		end := j
		for end < len(s) && !isSpace(s[end]) && s[end] != ';' {
			end++
		}
		return string(s[j:end]), true
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

func indexFold(b []byte, w string) int {
	for i := 0; i+len(w) <= len(b); i++ {
		j := 0
		for j < len(w) && b[i+j]|0x20 == w[j] {
			j++
		}
		if j == len(w) {
			return i
		}
	}
	return -1
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// prescan runs the HTML "prescan a byte stream to determine its encoding" algorithm over b
// and returns every charset label a meta element in b declares, with the offset in b where
// that element ends, through onLabel, until onLabel returns true. It consumes only complete constructs: the returned offset is where it stopped,
// the start of a construct that runs past the end of b (unless eof, when everything is read).
// Unlike a browser, it does not stop at the first declaration: a page that contradicts itself
// is judged by any of its declarations.
func prescan(b []byte, eof bool, onLabel func(label string, end int) bool) int {
	pos := 0
	for pos < len(b) {
		if b[pos] != '<' {
			k := bytes.IndexByte(b[pos:], '<')
			if k < 0 {
				return len(b)
			}
			pos += k
			continue
		}
		rest := b[pos:]
		switch {
		case len(rest) < 4 && !eof && (bytes.HasPrefix([]byte("<!--"), rest) || len(rest) < 2):
			return pos
		case bytes.HasPrefix(rest, []byte("<!--")):
			end := bytes.Index(rest[2:], []byte("-->")) // "<!-->" ends at its own "-->"
			if end < 0 {
				if eof {
					return len(b)
				}
				return pos
			}
			pos += 2 + end + 3
		case len(rest) >= 6 && hasPrefixFold(rest, "<meta") && (isSpace(rest[5]) || rest[5] == '/'):
			n, label, ok := metaCharset(rest[5:], eof)
			if n < 0 {
				return pos
			}
			pos += 5 + n
			if ok && onLabel(label, pos) {
				return pos
			}
		case len(rest) < 6 && !eof && isPrefixFold(rest, "<meta"):
			return pos
		case len(rest) >= 2 && (isASCIILetter(rest[1]) || (rest[1] == '/' && len(rest) >= 3 && isASCIILetter(rest[2]))):
			// A tag: skip its name, then its attributes.
			j := 1
			for j < len(rest) && !isSpace(rest[j]) && rest[j] != '>' {
				j++
			}
			n := skipAttributes(rest[j:], eof)
			if n < 0 {
				return pos
			}
			pos += j + n
		case len(rest) == 2 && rest[1] == '/' && !eof:
			return pos
		case len(rest) >= 2 && (rest[1] == '!' || rest[1] == '/' || rest[1] == '?'):
			end := bytes.IndexByte(rest, '>')
			if end < 0 {
				if eof {
					return len(b)
				}
				return pos
			}
			pos += end + 1
		default:
			pos++
		}
	}
	return pos
}

func hasPrefixFold(b []byte, w string) bool { return len(b) >= len(w) && indexFold(b[:len(w)], w) == 0 }

// isPrefixFold reports whether b (at most len(w) bytes of it) begins w, ignoring ASCII case.
func isPrefixFold(b []byte, w string) bool {
	for i := 0; i < len(b) && i < len(w); i++ {
		if b[i]|0x20 != w[i] && b[i] != w[i] {
			return false
		}
	}
	return true
}

// metaCharset reads the attributes of a meta element (b starts after "<meta") as the prescan
// does and returns how many bytes they took (-1 if they run past the end of b and !eof) and
// the charset label it declares, if any.
func metaCharset(b []byte, eof bool) (int, string, bool) {
	var charset, content string
	var gotPragma, hasCharset, hasContent bool
	seen := map[string]bool{}
	pos := 0
	for {
		name, value, n, ok := getAttribute(b[pos:], eof)
		if n < 0 {
			return -1, "", false
		}
		pos += n
		if !ok {
			break
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		switch name {
		case "http-equiv":
			gotPragma = gotPragma || strings.EqualFold(value, "content-type")
		case "content":
			if !hasCharset {
				if l, found := extractCharset([]byte(value)); found {
					content, hasContent = l, true
				}
			}
		case "charset":
			charset, hasCharset = value, true
		}
	}
	switch {
	case hasCharset:
		return pos, charset, true
	case hasContent && gotPragma:
		return pos, content, true
	}
	return pos, "", false
}

// skipAttributes reads attributes until the end of a tag; -1 if that is past the end of b.
func skipAttributes(b []byte, eof bool) int {
	pos := 0
	for {
		_, _, n, ok := getAttribute(b[pos:], eof)
		if n < 0 {
			return -1
		}
		pos += n
		if !ok {
			return pos
		}
	}
}

// getAttribute is the prescan's "get an attribute": it returns the lower-cased name and the
// value of the next attribute, the bytes consumed, and false when the tag ended (">" consumed)
// instead. n is -1 when the attribute or tag runs past the end of b and !eof.
func getAttribute(b []byte, eof bool) (name, value string, n int, ok bool) {
	incomplete := func() (string, string, int, bool) {
		if eof {
			return "", "", len(b), false
		}
		return "", "", -1, false
	}
	pos := 0
	for pos < len(b) && (isSpace(b[pos]) || b[pos] == '/') {
		pos++
	}
	if pos >= len(b) {
		return incomplete()
	}
	if b[pos] == '>' {
		return "", "", pos + 1, false
	}
	var nb []byte
	for {
		if pos >= len(b) {
			return incomplete()
		}
		c := b[pos]
		if c == '=' && len(nb) > 0 {
			pos++
			break
		}
		if isSpace(c) {
			for pos < len(b) && isSpace(b[pos]) {
				pos++
			}
			if pos >= len(b) {
				return incomplete()
			}
			if b[pos] != '=' {
				return string(nb), "", pos, true
			}
			pos++
			break
		}
		if c == '/' || c == '>' {
			return string(nb), "", pos, true
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		nb = append(nb, c)
		pos++
	}
	for pos < len(b) && isSpace(b[pos]) {
		pos++
	}
	if pos >= len(b) {
		return incomplete()
	}
	if q := b[pos]; q == '"' || q == '\'' {
		end := bytes.IndexByte(b[pos+1:], q)
		if end < 0 {
			return incomplete()
		}
		return string(nb), string(b[pos+1 : pos+1+end]), pos + 2 + end, true
	}
	if b[pos] == '>' {
		return string(nb), "", pos, true
	}
	start := pos
	for pos < len(b) && !isSpace(b[pos]) && b[pos] != '>' {
		pos++
	}
	if pos >= len(b) && !eof {
		return incomplete()
	}
	return string(nb), string(b[start:pos]), pos, true
}
