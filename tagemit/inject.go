package tagemit

import (
	"bytes"
	"fmt"
	"io"

	"github.com/sitepolicy/caddy-robots/tdmrep"
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

	// XML says the body is parsed by an XML parser (application/xhtml+xml), where markup
	// that is not well-formed breaks the whole page. The meta elements are then written as
	// empty elements ("/>"), and the body passes through unchanged unless they go inside a
	// root element named html: when the root is another element or an XHTML one with a
	// prefix, when a CDATA section or a DOCTYPE with an internal subset (which the HTML
	// tokenizer reads differently) comes before the decision, or when the XML declaration
	// names an encoding that is not ASCIICompatible.
	XML bool

	// Licenses are RSL license links inserted after the meta elements, under the same
	// conditions; one the page's head already has (rel "license", the same href) is not
	// added again.
	Licenses Licenses
	// Host is the request's host (with its port, as in the Host header): a page's own
	// license link to the absolute http(s) URL of a path license on this host is that
	// license, not added again (rsl.SameTarget).
	Host string
	// TDM is a TDMRep declaration to insert as its <meta> elements
	// (tdmrep.Declaration.MetaElements) after the robots ones. Against the page's own
	// tdm-reservation and tdm-policy elements in the head it is deduplicated: nothing is
	// inserted where the page states a reservation at least as restrictive (the same, or 1
	// where TDM is 0), and the policy element only where the page has none (a page with its
	// own tdm-policy element never gets a second one). A page that
	// states 0 where TDM is 1 gets the 1 inserted before its own element, which is never
	// removed.
	TDM tdmrep.Declaration
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
// Inserting there must not push the page's encoding declaration (a meta element the prescan
// finds in the first PrescanLen bytes) out of that window: when one lies after the injection
// point, the elements go after it, at the first token boundary in the head that follows it,
// or the body passes through when the head has none (unless a UTF-8 byte order mark or XML
// decides the encoding).
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
	xhtml         bool               // write the meta elements in XML syntax
	xml           bool               // InjectorOptions.XML
	htmlOpen      bool               // the html start tag was read (XML: the root element is open)
	page          map[string]ruleSet // rules the page's own head meta elements state
	tdm           tdmrep.Declaration // InjectorOptions.TDM
	pageTDM       tdmrep.Declaration // the page's own head: its first readable tdm-reservation
	pagePolicy    bool               // the page has a tdm-policy element
	reader        bytes.Reader

	checked     bool   // the first bytes were checked for a byte order mark and NULs
	prescanPos  int    // absolute offset up to which the encoding prescan has run
	prescanDone bool   // the prescan window has been searched
	ready       bool   // what to insert is decided, pending the prescan window
	pendingMeta []byte // what to insert when ready
	bom         bool   // a UTF-8 byte order mark decides the encoding
	declEnd     int    // absolute end of the last encoding declaration the prescan found; 0: none
	afterDecl   int    // the first head token end at or after declEnd (noteHeadBoundary)

	licenses     Licenses // InjectorOptions.Licenses
	host         string   // InjectorOptions.Host
	pageLicenses []bool   // which of them the page's head states; nil: none
	pendingLinks []byte   // the link elements to insert when ready
}

// NewInjector returns an Injector that writes the body, with p's meta elements (and the
// license links of opts) inserted, to dst. An empty policy without license links passes
// everything through.
func NewInjector(dst io.Writer, p Policy, opts InjectorOptions) *Injector {
	max := opts.MaxBuffer
	if max <= 0 {
		max = DefaultMaxBuffer
	}
	in := &Injector{dst: dst, policy: p, max: max, xml: opts.XML, xhtml: opts.XML, licenses: opts.Licenses, host: opts.Host, tdm: opts.TDM}
	if p.IsEmpty() && opts.Licenses.IsEmpty() && opts.TDM.IsEmpty() {
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
	in.ready, in.pendingMeta, in.pendingLinks = false, nil, nil
	in.write(in.buf)
	in.buf = nil
}

// decide fixes the meta elements to insert at the known injection point and emits the buffer
// (once the prescan window has been searched). Unless full, rules the page already states for
// the same token are left out.
func (in *Injector) decide(full bool) {
	if in.xml && !in.htmlOpen {
		// Anywhere else the elements would be a second root, or inside an element that
		// is not XHTML's html: either breaks or misplaces them in an XML document.
		in.passThrough("an XML document whose head would not be inside a root element <html>")
		return
	}
	meta := in.policy.MetaElements()
	if !full && len(in.page) > 0 {
		m := in.policy.toMap()
		for tok, rs := range m {
			m[tok] = rs.minus(in.page[tok])
		}
		meta = build(m).MetaElements()
	}
	tdm := in.tdm
	if !full {
		tdm = in.tdmMinusPage()
	}
	if t := tdm.MetaElements(); len(t) > 0 {
		meta = append(meta[:len(meta):len(meta)], t...)
	}
	links := in.licenseElements(full)
	if len(meta) == 0 && len(links) == 0 {
		in.passThrough("the page's head already states every rule of the policy")
		return
	}
	if in.xhtml {
		meta = bytes.ReplaceAll(meta, []byte(`">`), []byte(`" />`))
	}
	in.pendingMeta, in.pendingLinks, in.ready = meta, links, true
	if in.prescanDone {
		in.emit()
	}
}

// tdmMinusPage is the part of the TDM declaration the page's head does not already state:
// all of it where the page reserves less (or states nothing), only its policy where the page
// states the same reservation without a policy, nothing otherwise; and never the policy where
// the page has a tdm-policy element of its own.
func (in *Injector) tdmMinusPage() tdmrep.Declaration {
	d := in.tdm
	if in.pagePolicy {
		// The page names its policy: a second tdm-policy element would contradict it.
		d.Policy = ""
	}
	switch {
	case d.IsEmpty() || in.pageTDM.Reservation < d.Reservation:
		return d
	case in.pageTDM.Reservation == d.Reservation && !in.pagePolicy:
		return tdmrep.Declaration{Policy: d.Policy}
	}
	return tdmrep.Declaration{}
}

// emit inserts the decided meta elements and writes the buffer; at the injection point, or
// after the page's encoding declarations (keepDeclaration).
func (in *Injector) emit() {
	if !in.keepDeclaration() {
		return
	}
	meta, links := in.pendingMeta, in.pendingLinks
	in.pendingMeta, in.pendingLinks, in.ready = nil, nil, false
	in.state, in.inserted = Injected, len(meta)+len(links)
	at := in.point - in.base
	in.write(in.buf[:at])
	in.write(meta)
	in.write(links)
	in.write(in.buf[at:])
	in.buf = nil
}
