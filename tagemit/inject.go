package tagemit

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// InjectState is where an Injector stands in its single decision.
type InjectState int

const (
	// Pending: the injector is still looking for where to put the meta elements and
	// has written nothing to its destination (unless Flush forced it to).
	Pending InjectState = iota
	// Injected: the meta elements were inserted; Inserted tells how many bytes.
	Injected
	// PassedThrough: the body goes through unchanged; Reason tells why.
	PassedThrough
)

// String names the state.
func (s InjectState) String() string {
	switch s {
	case Pending:
		return "Pending"
	case Injected:
		return "Injected"
	case PassedThrough:
		return "PassedThrough"
	}
	return fmt.Sprintf("InjectState(%d)", int(s))
}

// DefaultMaxBuffer is the buffering cap an Injector uses when InjectorOptions.MaxBuffer is 0.
const DefaultMaxBuffer = 64 << 10

// InjectorOptions configures an Injector.
type InjectorOptions struct {
	// MaxBuffer caps how many bytes of the body the injector examines (and so buffers)
	// before it decides. 0 means DefaultMaxBuffer.
	MaxBuffer int

	// Charset is the charset parameter of the response's Content-Type, if any. A label that
	// is not ASCIICompatible makes the injector pass the body through.
	Charset string
}

// PrescanLen is how many bytes at the start of a body are searched for a meta element that
// declares the encoding, as the HTML encoding prescan does.
const PrescanLen = 1024

// Injector is an io.Writer that takes an HTML response body as it is written and
// inserts a Policy's robots meta elements inside the document's head: right after the
// <head> start tag, or, when the document has none, where the HTML parsing algorithm
// implies the head (before the first start tag other than html/head, end tag that
// closes the head, or non-whitespace text, after any BOM, doctype, comments and
// <html>). It tokenizes with golang.org/x/net/html and only trusts tokens it knows are
// complete, so <head> inside comments, scripts, attributes or CDATA does not fool it.
//
// To avoid repeating rules the page already states for a token in its own head meta
// elements, it buffers from the injection point to the end of the head (</head>, or
// the first body-only element or text). If MaxBuffer is reached once the injection
// point is known it inserts the full set (duplicates are harmless; a restriction is
// never dropped); if no injection point is found within MaxBuffer bytes it passes the
// body through unchanged. The page's own meta elements are never removed.
//
// It only edits pages in an ASCII-compatible encoding (see ASCIICompatible), where the bytes
// it reads as markup are markup. It passes the body through unchanged when the body starts
// with a UTF-16 or UTF-32 byte order mark, when two of its first four bytes are NUL (UTF-16 or
// UTF-32 without a byte order mark), when an ESC byte (an ISO-2022 escape sequence) comes
// before the decision, when InjectorOptions.Charset names an encoding that is not
// ASCII-compatible, or when a meta element declares one (charset, or http-equiv Content-Type):
// any meta element the HTML prescan finds in the first 1024 bytes (PrescanLen), and any
// meta element in the head before the decision. To see those first bytes, a decision to
// inject waits until PrescanLen bytes (or MaxBuffer, if smaller) have arrived, the body ends,
// or Flush forces it. An empty body (nothing written) is passed through: there is no page.
//
// Contract: while State() is Pending nothing is written to the destination, except
// what Flush forces out. Before the first other write to the destination State() is
// final and Inserted() exact. After the decision bytes are copied straight through.
// An Injector is not safe for concurrent use.
type Injector struct {
	dst      io.Writer
	policy   Policy
	max      int
	state    InjectState
	reason   string
	inserted int
	err      error // sticky destination error

	buf     []byte // bytes written and not yet emitted; buf[0] is at absolute offset base
	base    int
	total   int // absolute number of bytes accepted so far
	scanPos int // absolute offset where the tokenizer can restart in its data state
	done    int // absolute end of the last processed token
	since   int // bytes accepted since the last scan

	inHead        bool // the injection point is known and the head is being read
	point         int  // absolute injection offset, valid when inHead
	templateDepth int
	xhtml         bool
	page          map[string]ruleSet // rules the page's own head meta elements state
	reader        bytes.Reader

	checked     bool   // the first bytes were checked for a byte order mark and NULs
	prescanPos  int    // absolute offset up to which the encoding prescan has run
	prescanDone bool   // the prescan window has been searched
	ready       bool   // what to insert is decided, pending the prescan window
	pendingMeta []byte // what to insert when ready
}

// NewInjector returns an Injector that writes the body, with p's meta elements
// inserted, to dst. An empty policy passes everything through.
func NewInjector(dst io.Writer, p Policy, opts InjectorOptions) *Injector {
	max := opts.MaxBuffer
	if max <= 0 {
		max = DefaultMaxBuffer
	}
	in := &Injector{dst: dst, policy: p, max: max}
	if p.IsEmpty() {
		in.state, in.reason = PassedThrough, "empty policy"
	} else if opts.Charset != "" && !ASCIICompatible(opts.Charset) {
		in.state, in.reason = PassedThrough, notASCIICompatible("Content-Type", opts.Charset)
	}
	return in
}

// State reports whether the injector is still deciding, has injected, or passes through.
func (in *Injector) State() InjectState { return in.state }

// Inserted returns the number of bytes added to the stream: 0 unless State() is Injected.
func (in *Injector) Inserted() int { return in.inserted }

// Reason tells why the body passed through unchanged (for debug logs); "" otherwise.
func (in *Injector) Reason() string { return in.reason }

// Write accepts the next bytes of the body.
func (in *Injector) Write(b []byte) (int, error) {
	if in.err != nil {
		return 0, in.err
	}
	if in.state != Pending {
		n, err := in.dst.Write(b)
		if err != nil {
			in.err = err
		}
		return n, err
	}
	consumed := 0
	for consumed < len(b) && in.state == Pending {
		take := min(in.max-in.total, len(b)-consumed)
		chunk := b[consumed : consumed+take : consumed+take]
		// With nothing buffered, scan the caller's bytes in place: when the decision is
		// reached within them (the usual case) they are never copied. They are copied
		// below if the injector must keep them.
		aliased := in.buf == nil
		if aliased {
			in.buf = chunk
		} else {
			in.buf = append(in.buf, chunk...)
		}
		in.total += take
		in.since += take
		consumed += take
		if bytes.IndexByte(chunk, 0x1B) >= 0 {
			in.passThrough("an ESC byte (ISO-2022 escape sequence) before the head was read: the encoding is not ASCII-compatible")
			break
		}
		full := in.total >= in.max
		if full || in.since*4 >= in.total-in.scanPos || (in.ready && in.total >= in.window()) {
			in.scan(false)
		}
		if in.state == Pending && full && !in.ready {
			if in.inHead {
				in.decide(true)
			} else {
				in.passThrough(fmt.Sprintf("no head injection point within the first %d bytes", in.max))
			}
		}
		if aliased && in.state == Pending {
			in.buf = append(make([]byte, 0, min(max(2*len(chunk), 1024), in.max)), chunk...)
		}
	}
	if in.err != nil {
		return 0, in.err
	}
	if consumed < len(b) {
		n, err := in.dst.Write(b[consumed:])
		if err != nil {
			in.err = err
			return consumed + n, err
		}
	}
	return len(b), nil
}

// Flush makes everything written so far that can be emitted reach dst now: if the
// injection point is already known it forces the decision (deduplicating against the
// page meta elements seen so far) and emits everything; otherwise it emits the complete
// tokens that lie before the injection point and stays Pending.
func (in *Injector) Flush() error {
	if in.err != nil || in.state != Pending {
		return in.err
	}
	// Rescanning can only find something new if a token may have ended ('>') since the
	// last scan; with the amortisation bound, byte-wise flushing of a long unfinished
	// token does not rescan it on every call (the cap bounds the rest).
	tail := in.total - in.scanPos
	if in.since > 0 && (tail <= 4096 || in.since*4 >= tail || bytes.IndexByte(in.buf[len(in.buf)-in.since:], '>') >= 0) {
		in.scan(false)
	}
	if in.state != Pending {
		return in.err
	}
	if in.ready || in.inHead {
		// Forced: decide with the declarations seen so far (a browser waiting for the
		// prescan window gives up on a stalled stream too).
		if !in.prescanStep(false) {
			return in.err
		}
		in.prescanDone = true
		if in.ready {
			in.emit()
		} else {
			in.decide(false)
		}
		return in.err
	}
	upTo := min(in.done, in.scanPos)
	if !in.prescanDone {
		upTo = min(upTo, in.prescanPos)
	}
	if upTo > in.base {
		in.write(in.buf[:upTo-in.base])
		n := copy(in.buf, in.buf[upTo-in.base:])
		in.buf = in.buf[:n]
		in.base = upTo
	}
	return in.err
}

// Close marks the end of the body: it decides (injecting at the end of the document
// where the parsing algorithm would put head content there, e.g. for an empty body)
// and emits everything. It does not close dst.
func (in *Injector) Close() error {
	if in.err != nil || in.state != Pending {
		return in.err
	}
	if in.total == 0 {
		in.passThrough("empty body")
		return in.err
	}
	in.scan(true)
	if in.state == Pending {
		if in.inHead {
			in.decide(false)
		} else {
			in.passThrough("no injection point found")
		}
	}
	return in.err
}

func (in *Injector) write(b []byte) {
	if in.err != nil || len(b) == 0 {
		return
	}
	if _, err := in.dst.Write(b); err != nil {
		in.err = err
	}
}

func (in *Injector) passThrough(reason string) {
	in.state, in.reason = PassedThrough, reason
	in.ready, in.pendingMeta = false, nil
	in.write(in.buf)
	in.buf = nil
}

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
		// A leading byte order mark is removed by decoding before the HTML tokenizer sees it.
		in.scanPos, in.done, in.prescanPos = len(utf8BOM), len(utf8BOM), len(utf8BOM)
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
	n := prescan(in.buf[in.prescanPos-in.base:end-in.base], atEnd, func(label string) bool {
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

// decide fixes the meta elements to insert at the known injection point and emits the buffer
// (once the prescan window has been searched). Unless full, rules the page already states for
// the same token are left out.
func (in *Injector) decide(full bool) {
	meta := in.policy.MetaElements()
	if !full && len(in.page) > 0 {
		m := in.policy.toMap()
		for tok, rs := range m {
			m[tok] = rs.minus(in.page[tok])
		}
		meta = build(m).MetaElements()
	}
	if len(meta) == 0 {
		in.passThrough("the page's head already states every rule of the policy")
		return
	}
	if in.xhtml {
		meta = bytes.ReplaceAll(meta, []byte(`">`), []byte(`" />`))
	}
	in.pendingMeta, in.ready = meta, true
	if in.prescanDone {
		in.emit()
	}
}

// emit inserts the decided meta elements and writes the buffer.
func (in *Injector) emit() {
	meta := in.pendingMeta
	in.pendingMeta, in.ready = nil, false
	in.state, in.inserted = Injected, len(meta)
	at := in.point - in.base
	in.write(in.buf[:at])
	in.write(meta)
	in.write(in.buf[at:])
	in.buf = nil
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
	if in.total == 0 && !eof {
		return
	}
	if !in.checked && (!in.checkFirstBytes(eof) || in.state != Pending) {
		return
	}
	if !in.prescanStep(eof) {
		return
	}
	if in.ready {
		if in.prescanDone {
			in.emit()
		}
		return
	}
	in.reader.Reset(in.buf[in.scanPos-in.base:])
	z := html.NewTokenizer(&in.reader)
	off := in.scanPos
	restart, rawOpen := in.scanPos, false
	var lastType html.TokenType
	lastStart := off
	for in.state == Pending && !in.ready {
		tt := z.Next()
		if tt == html.ErrorToken {
			if eof {
				in.atEOF(off, lastType, lastStart)
			}
			break
		}
		raw := z.Raw()
		start, end := off, off+len(raw)
		off = end
		isTag := tt == html.StartTagToken || tt == html.EndTagToken || tt == html.SelfClosingTagToken
		if !eof && end == in.total && !isTag {
			// Text, comment or doctype running into the end of what we have: not complete.
			// Text that already has a character that is neither whitespace nor the start of
			// a character reference or tag decides anyway: that is where head content goes
			// (before head) or where the head ends (in head).
			if tt == html.TextToken && end > in.done && !rawOpen {
				if k, ok := firstNonSpace(raw); ok && raw[k] != '&' && raw[k] != '<' {
					if !in.inHead {
						in.point, in.inHead = start+k, true
					}
					in.decide(false)
				}
			}
			break
		}
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
		if end > in.done && !(rawOpen && tt == html.TextToken) {
			in.process(z, tt, name, raw, start, end)
		}
		in.done = max(in.done, end)
		lastType, lastStart = tt, start
		switch {
		case (tt == html.StartTagToken || tt == html.SelfClosingTagToken) && rawTextTags[name]:
			rawOpen = true
		case rawOpen && tt == html.EndTagToken:
			rawOpen = false
			restart = end
		case !rawOpen:
			restart = end
		}
	}
	if in.state == Pending && !in.ready {
		in.scanPos = restart
	}
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
	if !hasName || !hasContent || !validToken(name) {
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
