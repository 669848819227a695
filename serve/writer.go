package serve

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/sitepolicy/caddy-robots/internal/httplex"
	"github.com/sitepolicy/caddy-robots/mimetype"
	"github.com/sitepolicy/caddy-robots/tagemit"
	"github.com/sitepolicy/caddy-robots/tdmrep"
)

// tagWriter is the response wrapper behind Tag: it sets Robots-Tag (and, when asked,
// X-Robots-Tag) when the response header is written, and streams HTML bodies through the meta
// injector. It keeps the http.ResponseWriter contract: Unwrap and FlushError serve
// http.ResponseController, Hijack serves WebSocket upgrades, and ReadFrom keeps the sendfile
// path for bodies it does not rewrite.
//
// Unlike a wrapper that embeds Caddy's ResponseWriterWrapper, it implements ReadFrom itself:
// file_server copies bodies through ReadFrom, and an embedded ReadFrom would hand the bytes to
// the underlying writer behind the injector's back.
type tagWriter struct {
	rw  http.ResponseWriter
	req *http.Request

	first [maxCachedUnion]*tagger
	all   []*tagger // first[:n] until more than maxCachedUnion taggers apply

	status      int
	wantMeta    bool // some tagger asks for meta elements
	wroteHeader bool // the handler's final WriteHeader happened (to us)
	committed   bool // the underlying writer's WriteHeader happened
	sniff       bool // final status known, Content-Type not yet: buffering body to sniff
	hijacked    bool
	discardBody bool // a HEAD response whose GET would be rewritten

	inj     *tagemit.Injector
	origLen int64 // Content-Length the handler declared, -1 if none
	sink    injectSink
	meta    []byte
	tdm     tdmrep.Declaration // what the TDMRep meta elements state, with meta
	// tdmFile is the served tdmrep.json's rules given by Options.TDMRep (a front end whose file
	// another Core serves); nil: the taggers' own (tagger.tdmFile).
	tdmFile   *tdmLocated
	debugFunc func(*http.Request, string)

	// While sniff is set, the first body bytes wait here until there are sniffLen of them, the
	// handler flushes or returns: the Content-Type net/http would sniff is known only then.
	sniffBuf [sniffLen]byte
	sniffN   int
}

// sniffLen is how many bytes net/http's http.DetectContentType considers (net/http buffers at
// least that many before it sniffs).
const sniffLen = 512

var tagWriterPool = sync.Pool{New: func() any { return new(tagWriter) }}

func getTagWriter(w http.ResponseWriter, r *http.Request) *tagWriter {
	tw := tagWriterPool.Get().(*tagWriter)
	tw.rw, tw.req = w, r
	tw.all = tw.first[:0]
	tw.sink.tw = tw
	tw.origLen = -1
	return tw
}

func (tw *tagWriter) add(t *tagger) {
	for _, have := range tw.all {
		if have == t {
			return
		}
	}
	tw.all = append(tw.all, t)
	tw.wantMeta = tw.wantMeta || t.meta
}

// finish completes the response after the handler returned and recycles tw.
func (tw *tagWriter) finish() {
	if tw.sniff && !tw.hijacked {
		// The handler returned with fewer than sniffLen bytes written: sniff what there is.
		_ = tw.endSniff()
	}
	switch {
	case tw.hijacked:
	case tw.inj != nil:
		_ = tw.inj.Close()
		if !tw.committed {
			tw.commit()
		}
	case !tw.wroteHeader:
		// The handler wrote nothing (or returned an error for an outer handler to answer):
		// leave the status to whoever writes it, but make the headers part of it.
		tw.setHeaders()
	}
	*tw = tagWriter{}
	tagWriterPool.Put(tw)
}

// Header returns the underlying header map.
func (tw *tagWriter) Header() http.Header { return tw.rw.Header() }

// Unwrap returns the underlying ResponseWriter, for http.ResponseController.
func (tw *tagWriter) Unwrap() http.ResponseWriter { return tw.rw }

// WriteHeader records the status. Informational statuses pass through. For a final status the
// robots headers are set; an HTML body to be rewritten holds the status back until the
// injector has decided what it inserts, so that Content-Length can stay exact.
func (tw *tagWriter) WriteHeader(status int) {
	if tw.wroteHeader && !tw.committed && !tw.hijacked {
		// A superfluous call while the status is held back: net/http ignores it (and logs
		// it); passed on, it would become the status the client gets.
		return
	}
	if tw.wroteHeader || tw.hijacked {
		tw.rw.WriteHeader(status) // let the underlying writer report the superfluous call
		return
	}
	if status >= 100 && status <= 199 && status != http.StatusSwitchingProtocols {
		tw.rw.WriteHeader(status)
		return
	}
	tw.status = status
	tw.wroteHeader = true
	tw.setHeaders()
	if tw.meta == nil {
		tw.commit()
		return
	}
	h := tw.rw.Header()
	// Without a Content-Type, net/http sniffs one from the body (unless it is encoded): hold
	// the body until the same bytes are known, so the decision to rewrite sees the same type.
	if _, present := h["Content-Type"]; !present && status == http.StatusOK && h.Get("Content-Encoding") == "" {
		tw.sniff = true
		return
	}
	tw.startInjection()
}

// setHeaders writes the union of the taggers' rules, and of any robots header the handler set,
// into the header map, and keeps the meta elements to inject when a tagger asks for them.
func (tw *tagWriter) setHeaders() {
	h := tw.rw.Header()
	var wantXRT bool
	for _, t := range tw.all {
		wantXRT = wantXRT || t.xrt
		if tw.debugFunc == nil {
			tw.debugFunc = t.log.Debug
		}
	}
	out := combined(tw.all)
	if out.contentUsage != nil {
		if own := h["Content-Usage"]; len(own) > 0 {
			// The handler sent its own: the response carries the combination.
			v, err := out.withBackendUsage(own)
			if err != nil {
				tw.debug("Content-Usage from the handler, not all passed on: " + err.Error())
			}
			h["Content-Usage"] = v
		} else {
			h["Content-Usage"] = out.contentUsage
		}
		if len(out.usageDropped) > 0 {
			tw.warn(warnUsageTooLong, fmt.Sprintf("Content-Usage: the routes' preferences together are over %d bytes, which servers and proxies may refuse; left out %s (extension y values first, then n)", tagemit.MaxFieldSize, strings.Join(out.usageDropped, ", ")))
		}
	}
	var lic *licenseLinks
	if !out.lic.isEmpty() {
		lic = out.lic.forRequest(tw.req)
		lic.setLink(h, tw.req.Host)
	}
	tdmOut := &out.tdm
	f := tw.tdmFile
	if f == nil {
		f = tw.all[0].tdmFile
	}
	if f != nil && !out.tdm.decl.IsEmpty() {
		located := f.output(&out.tdm, tw.req)
		tdmOut = &located
	}
	tdm := setTDM(h, tdmOut)
	if tw.wantMeta && !tdm.IsEmpty() {
		tw.tdm = tdm
		tw.meta = tdmMetaWanted
	}
	if out.policy.IsEmpty() {
		// Only Content-Usage, license and TDMRep routes: the robots headers are the
		// handler's business.
		if tw.wantMeta && lic != nil {
			tw.meta = lic.licenses.Elements()
		}
		return
	}
	if ownRT, ownXRT := h["Robots-Tag"], h["X-Robots-Tag"]; len(ownRT) > 0 || len(ownXRT) > 0 {
		// The handler (a backend, an app) sent its own: the response carries the union.
		out = out.withBackend(ownRT, ownXRT)
		tw.debugErrs(out.errs)
	}
	h["Robots-Tag"] = out.robotsTag
	if wantXRT {
		h["X-Robots-Tag"] = out.xRobotsTag
	} // else a backend's legacy header stays as sent; its restrictions are in Robots-Tag too

	if len(out.dropped) > 0 {
		tw.warn(warnFieldTooLong, fmt.Sprintf("Robots-Tag: the union of the routes' and the backend's rules is over %d bytes, which parsers may ignore; left out %s (the routes' members are kept first, then the backend's; on each side \"*\", then noindex, then the other restrictions, limits, and last what only relaxes)", tagemit.MaxFieldSize, listSome(out.dropped)))
	}
	if tw.wantMeta && len(out.meta) > 0 {
		tw.meta = out.meta
	}
}

// tdmMetaWanted marks a response whose only meta elements are TDMRep's.
var tdmMetaWanted = []byte{}

// listSome joins at most ten names and counts the rest, so that a backend sending thousands
// of members does not make a warning of their size.
func listSome(names []string) string {
	const most = 10
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
}

func (tw *tagWriter) debugErrs(errs []error) {
	if tw.debugFunc == nil {
		return
	}
	for _, err := range errs {
		tw.debugFunc(tw.req, "reading the handler's robots header: "+err.Error())
	}
}

// warn logs msg at warn level through the first tagger that has a Warn hook, once per tagger
// and kind: the condition is the config's, so repeating it per request would only add noise.
func (tw *tagWriter) warn(kind int, msg string) {
	for _, t := range tw.all {
		if t.log.Warn != nil {
			if !t.warned[kind].Swap(true) {
				t.log.Warn(tw.req, msg)
			}
			return
		}
	}
}

func (tw *tagWriter) debug(msg string) {
	if tw.debugFunc != nil {
		tw.debugFunc(tw.req, msg)
	}
}

// startInjection decides whether the body can be rewritten; if so it sets up the injector and
// adjusts the validators, otherwise it writes the header through.
func (tw *tagWriter) startInjection() {
	h := tw.rw.Header()
	reason, opts := uninjectable(tw.status, h)
	if reason == "" && tw.req.Method == http.MethodHead {
		// GET would rewrite this body: HEAD must describe that response, not the original
		// (RFC 9110 §9.3.2), so it gets the same validators and no Content-Length.
		delete(h, "Content-Length")
		weakenETag(h)
		delete(h, "Accept-Ranges")
		// A body written for HEAD is discarded by the server anyway; swallowing it keeps
		// net/http from deriving a Content-Length from the unrewritten bytes.
		tw.discardBody = true
		reason = "HEAD request"
	}
	if tw.status == http.StatusNotModified {
		tw.matchValidatorOf304(h)
	}
	if reason != "" {
		tw.meta = nil
		if reason != notHTML {
			tw.debug("meta elements not added: " + reason)
		}
		if ce, ok := strings.CutPrefix(reason, encodedBody); ok {
			tw.warn(warnEncodedBody, "meta elements not added: an HTML body arrived already encoded (Content-Encoding: "+ce+"), and robots_tag does not rewrite encoded bodies; place robots_tag inside the block that encodes, or encode at site level (net/http: put the compression middleware outside this one; precompressed files never get them)")
		}
		tw.commit()
		return
	}
	if cl := h.Get("Content-Length"); cl != "" {
		if n, err := strconv.ParseInt(cl, 10, 64); err == nil && n >= 0 {
			tw.origLen = n
		}
		delete(h, "Content-Length")
	}
	// The body changes: a strong validator of the original no longer describes it
	// (RFC 9110 §8.8.1), and byte ranges of the original do not address it.
	weakenETag(h)
	delete(h, "Accept-Ranges")
	out := combined(tw.all)
	if !out.lic.isEmpty() {
		opts.Licenses = out.lic.forRequest(tw.req).licenses
	}
	opts.TDM, opts.Host = tw.tdm, tw.req.Host
	tw.inj = tagemit.NewInjector(&tw.sink, out.policy, opts)
}

func weakenETag(h http.Header) {
	if etag := h.Get("Etag"); etag != "" && !strings.HasPrefix(etag, "W/") {
		h.Set("Etag", "W/"+etag)
	}
}

// matchValidatorOf304 gives a 304 the ETag that the 200 it validates carried (RFC 9110
// §15.4.5). A 304 has no body and often no Content-Type, so whether that 200 was rewritten is
// read from the request: a client that validates with W/"x" while the handler's tag is the
// strong "x" holds our rewritten page.
func (tw *tagWriter) matchValidatorOf304(h http.Header) {
	etag := h.Get("Etag")
	if etag == "" || strings.HasPrefix(etag, "W/") {
		return
	}
	for _, inm := range tw.req.Header["If-None-Match"] {
		if strings.Contains(inm, "W/"+etag) {
			h.Set("Etag", "W/"+etag)
			return
		}
	}
}

const (
	notHTML     = "not HTML"
	encodedBody = "the body is encoded: "
)

// uninjectable says why a response's body must be left as it is, or "" if it can be rewritten
// (for a GET; HEAD is decided by the caller), with the options to rewrite it with.
func uninjectable(status int, h http.Header) (string, tagemit.InjectorOptions) {
	switch {
	case status != http.StatusOK:
		return "status " + strconv.Itoa(status), tagemit.InjectorOptions{}
	case h.Get("Content-Range") != "":
		return "partial content", tagemit.InjectorOptions{}
	}
	return unrewritableBody(h)
}

// unrewritableBody says why a body with these headers is never rewritten, or "", with the
// options to rewrite it with.
//
// The Content-Type is read as browsers read it (mimetype.Extract): a value with a parameter
// mime.ParseMediaType refuses ("text/html; charset", a repeated charset, "text/html;;") is
// still a page to them, so it gets its meta elements; of several values the last valid one
// counts. application/xhtml+xml is a page too, which an XML parser reads, so the injector
// is told to keep it well-formed. A charset browsers do not know, or an empty one, is no
// charset to them (they fall back to the page's own declarations), and the injector then
// checks the page's declarations as for a page that names none.
func unrewritableBody(h http.Header) (string, tagemit.InjectorOptions) {
	mt, ok := mimetype.Extract(h["Content-Type"])
	if !ok || !mt.IsHTML() && !mt.IsXHTML() {
		return notHTML, tagemit.InjectorOptions{}
	}
	if ce := h.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return encodedBody + ce, tagemit.InjectorOptions{}
	}
	cs, _ := mt.Param("charset")
	if !tagemit.ASCIICompatible(cs) {
		return "Content-Type charset " + strconv.Quote(cs) + " is not ASCII-compatible", tagemit.InjectorOptions{}
	}
	if httplex.ContainsToken(h["Cache-Control"], "no-transform") {
		return "Cache-Control: no-transform", tagemit.InjectorOptions{}
	}
	return "", tagemit.InjectorOptions{Charset: cs, XML: mt.IsXHTML()}
}

// commit writes the held status to the underlying writer, with the Content-Length of what the
// client will receive when that is known.
func (tw *tagWriter) commit() {
	if tw.committed {
		return
	}
	tw.committed = true
	if tw.inj != nil && tw.origLen >= 0 {
		switch tw.inj.State() {
		case tagemit.Injected:
			tw.rw.Header().Set("Content-Length", strconv.FormatInt(tw.origLen+int64(tw.inj.Inserted()), 10))
		case tagemit.PassedThrough:
			tw.rw.Header().Set("Content-Length", strconv.FormatInt(tw.origLen, 10))
		}
	}
	if tw.inj != nil && tw.inj.State() == tagemit.PassedThrough && tw.inj.Reason() != "" {
		tw.debug("meta elements not added: " + tw.inj.Reason())
	}
	tw.rw.WriteHeader(tw.status)
}

// Write writes body bytes, through the injector when the body is being rewritten.
func (tw *tagWriter) Write(p []byte) (int, error) {
	if !tw.wroteHeader {
		tw.WriteHeader(http.StatusOK)
	}
	if tw.sniff {
		if tw.sniffN == 0 && len(p) >= sniffLen {
			tw.sniffFrom(p) // enough to sniff in place
		} else {
			n := copy(tw.sniffBuf[tw.sniffN:], p)
			tw.sniffN += n
			if tw.sniffN < sniffLen {
				return len(p), nil
			}
			if err := tw.endSniff(); err != nil {
				return 0, err
			}
			m, err := tw.writeBody(p[n:])
			return n + m, err
		}
	}
	return tw.writeBody(p)
}

// writeBody writes body bytes once the Content-Type is known.
func (tw *tagWriter) writeBody(p []byte) (int, error) {
	if tw.inj != nil {
		return tw.inj.Write(p)
	}
	if tw.discardBody {
		return len(p), nil
	}
	return tw.rw.Write(p)
}

// sniffFrom sets the Content-Type that net/http would sniff from the first bytes of the body,
// sample, and decides whether the body is rewritten. Like net/http it sets none for an empty
// body.
func (tw *tagWriter) sniffFrom(sample []byte) {
	tw.sniff = false
	if len(sample) > 0 {
		tw.rw.Header()["Content-Type"] = []string{http.DetectContentType(sample)}
	}
	tw.startInjection()
}

// endSniff sniffs the buffered bytes and writes them on.
func (tw *tagWriter) endSniff() error {
	b := tw.sniffBuf[:tw.sniffN]
	tw.sniffFrom(b)
	tw.sniffN = 0
	_, err := tw.writeBody(b)
	return err
}

// ReadFrom copies a body from src. A body that is not rewritten keeps the underlying writer's
// ReadFrom (sendfile); a rewritten one goes through Write and the injector.
func (tw *tagWriter) ReadFrom(src io.Reader) (int64, error) {
	if tw.wroteHeader && !tw.sniff && tw.inj == nil && !tw.discardBody {
		if rf, ok := tw.rw.(io.ReaderFrom); ok {
			return rf.ReadFrom(src)
		}
		return io.Copy(writerOnly{tw.rw}, src)
	}
	return io.Copy(writerOnly{tw}, src)
}

// writerOnly hides ReadFrom, so io.Copy does not call back into it.
type writerOnly struct{ io.Writer }

// FlushError sends everything written so far to the client. A held status is written then,
// without a Content-Length if the injector has not decided yet.
func (tw *tagWriter) FlushError() error {
	if tw.hijacked {
		return http.ErrHijacked
	}
	if !tw.wroteHeader {
		tw.WriteHeader(http.StatusOK)
	}
	if tw.sniff {
		// net/http sniffs what was written before a flush (nothing: no Content-Type).
		if err := tw.endSniff(); err != nil {
			return err
		}
	}
	if tw.inj != nil {
		if err := tw.inj.Flush(); err != nil {
			return err
		}
	}
	tw.commit()
	return http.NewResponseController(tw.rw).Flush()
}

// Flush implements http.Flusher for callers that assert it directly.
func (tw *tagWriter) Flush() { _ = tw.FlushError() }

// Hijack hands the connection over (WebSocket upgrades); the response is then the caller's.
func (tw *tagWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(tw.rw).Hijack()
	if err == nil {
		tw.hijacked = true
	}
	return conn, brw, err
}

// injectSink is where the injector writes: the first byte commits the held status.
type injectSink struct{ tw *tagWriter }

func (s *injectSink) Write(p []byte) (int, error) {
	if !s.tw.committed {
		s.tw.commit()
	}
	return s.tw.rw.Write(p)
}

// Interface guards.
var (
	_ http.ResponseWriter = (*tagWriter)(nil)
	_ http.Flusher        = (*tagWriter)(nil)
	_ http.Hijacker       = (*tagWriter)(nil)
	_ io.ReaderFrom       = (*tagWriter)(nil)
)
