package serve

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"sync"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/metrics"
)

// The counts of what platforms take and give back (metrics.Counters.CrawledHTML and
// Referred): an HTML page (metrics.HTMLPage) served to a platform's crawler, or to a browser
// whose Referer names one of the platform's hosts (crawlers.RefererPlatform). Which
// responses are HTML pages is known only once the handler has written its status: the
// request is served through a countWriter, which counts then. Requests that count for no
// platform (most browsers: those without a Referer cost a header lookup) are not wrapped.
//
// The Referer is a claim, like User-Agent: it is read here and nowhere else, and what is
// served never depends on it.

// seen is what observation (checkObserved) found of a request.
type seen struct {
	crawler metrics.Crawler
	status  identity.Status // metrics.Unchecked without verification
	// named: the User-Agent names a crawler of the catalogues or of the served file (or the
	// identity names a bot): the request is a crawler's, never a browser's visit.
	named bool
}

// platformCount is what a request counts for if its response is an HTML page.
type platformCount struct {
	platform int             // index in crawlers.Platforms
	crawl    bool            // a crawl by the platform's crawler; else a referred visit
	status   identity.Status // the crawler's identity status, for a crawl
}

// platformVisit says what r counts for: a crawl when observation found a crawler of a
// platform (an impostor is no platform's crawler), a referred visit when the request is a
// browser's (no crawler named, no bot identity) with one Referer naming a platform's host.
// Only GET requests count (metrics.HTMLPage).
func (e *enforcer) platformVisit(r *http.Request, id identity.Identity, sn seen) (platformCount, bool) {
	if e.observe == nil || e.observe.counters == nil || r.Method != http.MethodGet {
		return platformCount{}, false
	}
	if sn.named {
		if sn.status == identity.Impostor {
			return platformCount{}, false
		}
		p, ok := sn.crawler.Platform()
		return platformCount{platform: p, crawl: true, status: sn.status}, ok
	}
	if e.identified && id.Status != identity.None {
		return platformCount{}, false // a signed agent, or a bot the User-Agent does not name
	}
	refs := r.Header["Referer"]
	if len(refs) != 1 {
		return platformCount{}, false // none; or several, which name no one page
	}
	_, p, ok := crawlers.RefererPlatform(refs[0])
	return platformCount{platform: p}, ok
}

// countWriter counts its request for a platform when the final status is written, from the
// status and the Content-Type the header holds then (the handler's; with robots_tag's meta
// elements, the type it sniffed). A handler that leaves Content-Type to net/http is read as
// net/http sniffs it, from the first bytes written. It passes everything else through and
// keeps the http.ResponseWriter contract as tagWriter does (Unwrap, FlushError, Hijack,
// ReadFrom).
type countWriter struct {
	rw       http.ResponseWriter
	req      *http.Request
	counters *metrics.Counters
	pc       platformCount
	done     bool // counted (or never to be)
	// pending is a final status written without a Content-Type: net/http sniffs the type
	// from the first bytes written, and so does the count.
	pending int
}

var countWriterPool = sync.Pool{New: func() any { return new(countWriter) }}

func getCountWriter(w http.ResponseWriter, r *http.Request, c *metrics.Counters, pc platformCount) *countWriter {
	cw := countWriterPool.Get().(*countWriter)
	*cw = countWriter{rw: w, req: r, counters: c, pc: pc}
	return cw
}

func (cw *countWriter) release() {
	*cw = countWriter{}
	countWriterPool.Put(cw)
}

// count counts the response once, given its final status and the Content-Type values.
func (cw *countWriter) count(status int, contentType []string) {
	cw.done = true
	if !metrics.HTMLPage(cw.req.Method, status, contentType) {
		return
	}
	if cw.pc.crawl {
		cw.counters.CrawledHTML(cw.pc.platform, cw.pc.status)
	} else {
		cw.counters.Referred(cw.pc.platform)
	}
}

// Header returns the underlying header map.
func (cw *countWriter) Header() http.Header { return cw.rw.Header() }

// Unwrap returns the underlying ResponseWriter, for http.ResponseController.
func (cw *countWriter) Unwrap() http.ResponseWriter { return cw.rw }

// WriteHeader counts on the first final status, or, without a Content-Type, at the first
// bytes written (pending).
func (cw *countWriter) WriteHeader(status int) {
	if !cw.done && cw.pending == 0 && (status < 100 || status > 199 || status == http.StatusSwitchingProtocols) {
		if cw.sniffs() {
			cw.pending = status
		} else {
			cw.count(status, cw.rw.Header()["Content-Type"])
		}
	}
	cw.rw.WriteHeader(status)
}

// sniffs reports whether net/http would sniff the response's type: it has none and is not
// encoded.
func (cw *countWriter) sniffs() bool {
	h := cw.rw.Header()
	_, typed := h["Content-Type"]
	return !typed && h.Get("Content-Encoding") == ""
}

// sniffedHTML is the Content-Type net/http sets on a body it sniffs as HTML.
var sniffedHTML = []string{"text/html; charset=utf-8"}

// Write counts a response at its first bytes, with its status (200 if none was written) and
// its type, sniffed from those bytes (up to 512, as net/http does) when it has none.
func (cw *countWriter) Write(p []byte) (int, error) {
	if !cw.done {
		status := http.StatusOK
		if cw.pending != 0 {
			status = cw.pending
		}
		ct := cw.rw.Header()["Content-Type"]
		if len(p) > 0 && cw.sniffs() && http.DetectContentType(p[:min(len(p), sniffLen)]) == sniffedHTML[0] {
			ct = sniffedHTML
		}
		cw.count(status, ct)
	}
	return cw.rw.Write(p)
}

// ReadFrom keeps the underlying writer's ReadFrom (sendfile); a body copied this way without
// a Content-Type is not sniffed here (file servers set one).
func (cw *countWriter) ReadFrom(src io.Reader) (int64, error) {
	if !cw.done {
		cw.count(max(cw.pending, http.StatusOK), cw.rw.Header()["Content-Type"])
	}
	if rf, ok := cw.rw.(io.ReaderFrom); ok {
		return rf.ReadFrom(src)
	}
	return io.Copy(writerOnly{cw.rw}, src)
}

// FlushError sends what was written so far; a flush before the status writes 200.
func (cw *countWriter) FlushError() error {
	if !cw.done {
		cw.count(max(cw.pending, http.StatusOK), cw.rw.Header()["Content-Type"])
	}
	return http.NewResponseController(cw.rw).Flush()
}

// Flush implements http.Flusher for callers that assert it directly.
func (cw *countWriter) Flush() { _ = cw.FlushError() }

// Hijack hands the connection over; nothing is counted after.
func (cw *countWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	cw.done = true
	return http.NewResponseController(cw.rw).Hijack()
}

// Interface guards.
var (
	_ http.ResponseWriter = (*countWriter)(nil)
	_ http.Flusher        = (*countWriter)(nil)
	_ http.Hijacker       = (*countWriter)(nil)
	_ io.ReaderFrom       = (*countWriter)(nil)
)
