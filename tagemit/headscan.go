package tagemit

// The Injector's reading of the page: the encoding checks that keep it from editing a page
// whose bytes are not ASCII-compatible, and the tokenizer pass that finds where the head is
// and which rules the page's own meta elements state. inject.go writes; this file decides.

import (
	"bytes"
	"fmt"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/sitepolicy/caddy-robots/tdmrep"
)

// window is how many bytes the encoding prescan searches.
func (in *Injector) window() int { return min(PrescanLen, in.max) }

func notASCIICompatible(where, label string) string {
	return fmt.Sprintf("%s declares charset %q, which is not ASCII-compatible", where, label)
}

// checkFirstBytes passes the body through when its first bytes show an encoding that is not
// ASCII-compatible: a UTF-16 or UTF-32 byte order mark, or NUL bytes interleaved with others
// as in UTF-16 or UTF-32 text without one. It reports false when it needs more bytes.
func (in *Injector) checkFirstBytes(eof bool) bool {
	b := in.buf[:min(len(in.buf), 4)]
	if len(b) < 4 && !eof {
		return false
	}
	in.checked = true
	switch {
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}), bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		in.passThrough("a UTF-16 or UTF-32 byte order mark: the encoding is not ASCII-compatible")
	case bytes.Count(b, []byte{0}) >= 2 || (len(b) == 2 && bytes.IndexByte(b, 0) >= 0):
		in.passThrough("NUL bytes among the first four: UTF-16 or UTF-32 without a byte order mark, not ASCII-compatible")
	case bytes.HasPrefix(b, utf8BOM):
		// A leading byte order mark is removed by decoding before the HTML tokenizer sees it,
		// and decides the encoding before any meta element.
		in.scanPos, in.done, in.prescanPos = len(utf8BOM), len(utf8BOM), len(utf8BOM)
		in.bom = true
	}
	return true
}

// prescanStep runs the encoding prescan over the bytes that arrived since it last stopped,
// within the prescan window. It passes the body through, and returns false, when a meta
// element declares an encoding that is not ASCII-compatible.
func (in *Injector) prescanStep(eof bool) bool {
	if in.prescanDone {
		return true
	}
	end := min(in.total, in.window())
	atEnd := eof || in.total >= in.window()
	var bad string
	at := in.prescanPos
	n := prescan(in.buf[in.prescanPos-in.base:end-in.base], atEnd, func(label string, end int) bool {
		in.declEnd = max(in.declEnd, at+end)
		if !ASCIICompatible(label) {
			bad = label
			return true
		}
		return false
	})
	in.prescanPos += n
	if bad != "" {
		in.passThrough(notASCIICompatible("a meta element", bad))
		return false
	}
	if atEnd {
		in.prescanDone = true
	}
	return true
}

// rawTextTags are the elements after whose start tag the tokenizer reads raw text; the
// scan cannot restart a fresh tokenizer inside them.
var rawTextTags = map[string]bool{
	"iframe": true, "noembed": true, "noframes": true, "noscript": true, "plaintext": true,
	"script": true, "style": true, "textarea": true, "title": true, "xmp": true,
}

// headTags are the start tags the "in head" insertion mode keeps in the head.
var headTags = map[string]bool{
	"base": true, "basefont": true, "bgsound": true, "link": true, "meta": true, "title": true,
	"noscript": true, "noframes": true, "style": true, "script": true, "template": true,
}

const htmlSpace = " \t\n\f\r"

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// scan tokenizes the buffered bytes from scanPos and processes every token known to be
// complete, possibly deciding. At eof every token is complete.
func (in *Injector) scan(eof bool) {
	in.since = 0
	if !in.scanReady(eof) {
		return
	}
	in.reader.Reset(in.buf[in.scanPos-in.base:])
	z := html.NewTokenizer(&in.reader)
	st := scanState{off: in.scanPos, restart: in.scanPos, lastStart: in.scanPos}
	for in.state == Pending && !in.ready {
		tt := z.Next()
		if tt == html.ErrorToken {
			if eof {
				in.atEOF(st.off, st.lastType, st.lastStart)
			}
			break
		}
		raw := z.Raw()
		start, end := st.off, st.off+len(raw)
		st.off = end
		isTag := tt == html.StartTagToken || tt == html.EndTagToken || tt == html.SelfClosingTagToken
		if !eof && end == in.total && !isTag {
			in.incompleteToken(tt, raw, start, end, st.rawOpen)
			break
		}
		in.token(z, tt, isTag, raw, start, end, &st)
	}
	if in.state == Pending && !in.ready {
		in.scanPos = st.restart
	}
}

// scanState is what scan keeps between tokens.
type scanState struct {
	off       int  // where the next token starts
	restart   int  // where a later scan can start a fresh tokenizer
	rawOpen   bool // inside a raw-text element
	lastType  html.TokenType
	lastStart int
}

// scanReady runs what comes before tokenizing: the first bytes' check and the encoding
// prescan; it reports whether to tokenize, having emitted when the decision is already made.
func (in *Injector) scanReady(eof bool) bool {
	if in.total == 0 && !eof {
		return false
	}
	if !in.checked && (!in.checkFirstBytes(eof) || in.state != Pending) {
		return false
	}
	if !in.prescanStep(eof) {
		return false
	}
	if in.ready {
		if in.prescanDone {
			in.emit()
		}
		return false
	}
	return true
}

// incompleteToken handles text, a comment or a doctype running into the end of what we have:
// not complete. Text that already has a character that is neither whitespace nor the start
// of a character reference or tag decides anyway: that is where head content goes (before
// head) or where the head ends (in head).
func (in *Injector) incompleteToken(tt html.TokenType, raw []byte, start, end int, rawOpen bool) {
	if tt != html.TextToken || end <= in.done || rawOpen {
		return
	}
	if k, ok := firstNonSpace(raw); ok && raw[k] != '&' && raw[k] != '<' {
		if !in.inHead {
			in.point, in.inHead = start+k, true
		}
		in.decide(false)
	}
}

// token processes one complete token [start, end) and tracks raw-text elements and where a
// fresh tokenizer may restart.
func (in *Injector) token(z *html.Tokenizer, tt html.TokenType, isTag bool, raw []byte, start, end int, st *scanState) {
	var name string
	if isTag {
		n, _ := z.TagName()
		// Known tag names come from x/net's static atom table: no allocation per tag.
		if a := atom.Lookup(n); a != 0 {
			name = a.String()
		} else {
			name = string(n)
		}
	}
	// The text of a raw-text element (script, style, title, ...) is neither head
	// content to look at nor text that ends the head.
	if end > in.done && !(st.rawOpen && tt == html.TextToken) {
		in.process(z, tt, name, raw, start, end)
	}
	in.done = max(in.done, end)
	st.lastType, st.lastStart = tt, start
	switch {
	case (tt == html.StartTagToken || tt == html.SelfClosingTagToken) && rawTextTags[name]:
		st.rawOpen = true
	case st.rawOpen && tt == html.EndTagToken:
		st.rawOpen = false
		st.restart = end
	case !st.rawOpen:
		st.restart = end
	}
	if in.inHead && in.state == Pending && !in.ready && in.templateDepth == 0 && !st.rawOpen && end >= in.point {
		in.noteHeadBoundary(end)
	}
}

// noteHeadBoundary records end, the end of a token read in the head with the decision still
// open, as a place head content may go: the first such place at or after the end of the
// encoding declarations the prescan has found (declEnd) is where emit inserts when the
// injection point lies before them.
func (in *Injector) noteHeadBoundary(end int) {
	if end >= in.declEnd && (in.afterDecl < in.declEnd || end < in.afterDecl) {
		in.afterDecl = end
	}
}

// keepDeclaration moves the injection point after the page's encoding declarations when
// inserting before them could push one out of the prescan window. It does so whenever the
// prescan may decide the encoding: a charset in Content-Type decides first only if the
// client knows its label (it falls back to the prescan otherwise), so only a byte order mark
// or XML (whose parser reads the XML declaration) makes the declarations moot. It reports
// false, passing the body through, when no place in the head after them is known.
func (in *Injector) keepDeclaration() bool {
	if in.bom || in.xml || in.declEnd <= in.point {
		return true
	}
	if in.afterDecl >= in.declEnd && in.afterDecl <= in.total {
		in.point = in.afterDecl
		return true
	}
	in.passThrough("the page declares its encoding in a meta element within the first 1024 bytes, after the injection point, and no place in the head follows it: inserting could push the declaration out of the prescan window")
	return false
}

// atEOF decides at the end of the body when no token has decided yet.
func (in *Injector) atEOF(off int, lastType html.TokenType, lastStart int) {
	if in.inHead {
		in.decide(false)
		return
	}
	if (lastType == html.CommentToken || lastType == html.DoctypeToken) && off == in.total {
		// A comment or doctype cut by the end of the body swallows anything after it,
		// and moving the head before it would move the comment: leave the body alone.
		probe := append(append([]byte{}, in.buf[lastStart-in.base:]...), "<x>"...)
		z := html.NewTokenizer(bytes.NewReader(probe))
		z.Next()
		if len(z.Raw()) != off-lastStart {
			in.passThrough("the body ends inside an unterminated comment or doctype before any head content")
			return
		}
	}
	// Head content here is where the parser would create the head: before any partial
	// tag the tokenizer drops at end of input.
	in.point, in.inHead = off, true
	in.decide(false)
}

// process handles one complete token.
func (in *Injector) process(z *html.Tokenizer, tt html.TokenType, name string, raw []byte, start, end int) {
	if in.xml && !in.xmlSafe(tt, raw) {
		return
	}
	if !in.inHead {
		switch tt {
		case html.CommentToken:
			if bytes.HasPrefix(raw, []byte("<?xml")) {
				in.xhtml = true
			}
		case html.TextToken:
			if k, ok := firstNonSpace(raw); ok {
				in.point, in.inHead = start+k, true
				in.decide(false)
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			switch {
			case name == "html" && containsFold(raw, "xmlns"):
				in.htmlOpen = in.htmlOpen || tt == html.StartTagToken
				for {
					k, _, more := z.TagAttr()
					if string(k) == "xmlns" {
						in.xhtml = true
					}
					if !more {
						break
					}
				}
			case name == "html":
				in.htmlOpen = in.htmlOpen || tt == html.StartTagToken
			case name == "head":
				in.point, in.inHead = end, true
			case headTags[name]:
				in.point, in.inHead = start, true
				in.processInHead(z, tt, name, raw)
			default:
				in.point, in.inHead = start, true
				in.decide(false)
			}
		case html.EndTagToken:
			switch name {
			case "head", "body", "html", "br":
				in.point, in.inHead = start, true
				in.decide(false)
			}
		}
		return
	}
	in.processInHead(z, tt, name, raw)
}

// xmlSafe checks a token of an XML document (InjectorOptions.XML) read before the decision
// for what the HTML tokenizer reads differently from an XML parser, or an encoding that is
// not ASCII-compatible; it passes the body through and reports false on any.
func (in *Injector) xmlSafe(tt html.TokenType, raw []byte) bool {
	switch {
	case tt == html.CommentToken && bytes.HasPrefix(raw, []byte("<![CDATA[")):
		// The HTML tokenizer ends it at the first ">", an XML parser at "]]>": what
		// follows could be read as markup that is text.
		in.passThrough("a CDATA section before the head was read, in an XML document")
	case tt == html.DoctypeToken && bytes.IndexByte(raw, '[') >= 0:
		in.passThrough("a DOCTYPE with an internal subset, in an XML document")
	case tt == html.CommentToken && bytes.HasPrefix(raw, []byte("<?xml")):
		if label, ok := xmlEncoding(raw); ok && !ASCIICompatible(label) {
			in.passThrough(notASCIICompatible("the XML declaration", label))
		}
	}
	return in.state == Pending
}

// xmlEncoding returns the encoding an XML declaration (`<?xml version="1.0"
// encoding="UTF-16"?>`) names, if it names one.
func xmlEncoding(decl []byte) (string, bool) {
	i := bytes.Index(decl, []byte("encoding"))
	if i < 0 {
		return "", false
	}
	rest := bytes.TrimLeft(decl[i+len("encoding"):], htmlSpace)
	if len(rest) == 0 || rest[0] != '=' {
		return "", false
	}
	rest = bytes.TrimLeft(rest[1:], htmlSpace)
	if len(rest) == 0 || (rest[0] != '"' && rest[0] != '\'') {
		return "", false
	}
	end := bytes.IndexByte(rest[1:], rest[0])
	if end < 0 {
		return "", false
	}
	return string(rest[1 : 1+end]), true
}

// processInHead handles a token while reading the head for the page's own meta elements.
func (in *Injector) processInHead(z *html.Tokenizer, tt html.TokenType, name string, raw []byte) {
	if in.templateDepth > 0 {
		switch {
		case (tt == html.StartTagToken || tt == html.SelfClosingTagToken) && name == "template":
			in.templateDepth++
		case tt == html.EndTagToken && name == "template":
			in.templateDepth--
		}
		return
	}
	switch tt {
	case html.TextToken:
		if len(bytes.Trim(z.Text(), htmlSpace)) != 0 {
			in.decide(false)
		}
	case html.StartTagToken, html.SelfClosingTagToken:
		switch {
		case name == "meta":
			// Only a meta element with name and content attributes can state rules, and
			// only one with a charset (or http-equiv and content) can declare the encoding;
			// skip reading the attributes of the others.
			if containsFold(raw, "charset") || containsFold(raw, "name") && containsFold(raw, "content") {
				in.readMeta(z)
			}
		case name == "template":
			in.templateDepth++
		case name == "link" && !in.licenses.IsEmpty() && containsFold(raw, "license"):
			in.readLink(z)
		case name == "html" || name == "head" || headTags[name]:
		default:
			in.decide(false)
		}
	case html.EndTagToken:
		switch name {
		case "head", "body", "html", "br":
			in.decide(false)
		}
	}
}

// readMeta records the rules of a <meta name=robots|token content=...> in the head, and
// passes the body through if the element declares an encoding that is not ASCII-compatible.
func (in *Injector) readMeta(z *html.Tokenizer) {
	var name, content, charset string
	var hasName, hasContent, hasCharset, pragma bool
	for {
		k, v, more := z.TagAttr()
		switch string(k) {
		case "name":
			if !hasName {
				name, hasName = strings.Trim(string(v), htmlSpace), true
			}
		case "content":
			if !hasContent {
				content, hasContent = string(v), true
			}
		case "charset":
			if !hasCharset {
				charset, hasCharset = string(v), true
			}
		case "http-equiv":
			pragma = pragma || strings.EqualFold(strings.Trim(string(v), htmlSpace), "content-type")
		}
		if !more {
			break
		}
	}
	if pragma && hasContent {
		if l, ok := extractCharset([]byte(content)); ok && !ASCIICompatible(l) {
			in.passThrough(notASCIICompatible("a meta element", l))
			return
		}
	}
	if hasCharset && !ASCIICompatible(charset) {
		in.passThrough(notASCIICompatible("a meta element", charset))
		return
	}
	if !hasName || !hasContent {
		return
	}
	switch {
	case strings.EqualFold(name, "tdm-reservation"):
		if in.pageTDM.Reservation == tdmrep.Unset {
			in.pageTDM.Reservation = tdmrep.ParseReservation(content)
		}
		return
	case strings.EqualFold(name, "tdm-policy"):
		in.pagePolicy = true
		return
	case !validToken(name):
		return
	}
	if in.page == nil {
		in.page = map[string]ruleSet{}
	}
	readLegacyLine(content, canonicalReadToken(name), false, in.page)
}

// firstNonSpace returns the offset in raw text of the first character the parser does
// not skip as inter-element whitespace (character references included), and whether
// there is one.
func firstNonSpace(raw []byte) (int, bool) {
	i := 0
	for i < len(raw) {
		if strings.IndexByte(htmlSpace, raw[i]) >= 0 {
			i++
			continue
		}
		if raw[i] != '&' {
			return i, true
		}
		// Decode a bounded window (a character reference is far shorter than 64 bytes),
		// so a long run of references stays linear.
		w := min(len(raw), i+64)
		rest := html.UnescapeString(string(raw[i:w]))
		if rest == "" || strings.IndexByte(htmlSpace, rest[0]) < 0 {
			return i, true
		}
		// A character reference for whitespace: skip exactly that reference.
		j := i + 1
		for j < w && html.UnescapeString(string(raw[j:w])) != rest[1:] {
			j++
		}
		if j >= w && rest[1:] != "" {
			return i, true
		}
		i = j
	}
	return 0, false
}

// containsFold reports whether b contains the lower-case ASCII word w, ignoring ASCII case.
func containsFold(b []byte, w string) bool {
	for i := 0; i+len(w) <= len(b); i++ {
		j := 0
		for j < len(w) && b[i+j]|0x20 == w[j] {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
}
