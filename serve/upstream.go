package serve

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/mimetype"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// Merging the declared file with the robots.txt a site already has: a file read at load and
// again when it changes (MergeOptions.File, mergefile.go), and the backend's own /robots.txt
// fetched at serve time (MergeOptions.Upstream, served by Upstream). Both use
// robotsgen.MergeForMatching: what is served is its file without the names never written to
// robots.txt, and enforcement decides with the whole of it.

// upstreamRetry is how long a good merge is served after a failed revalidation before the
// next attempt (at most max_age), so that a failing backend is not asked on every request.
const upstreamRetry = 10 * time.Second

// readMerge checks the merge options and returns the contents of merge_file (nil without
// one), so that a file that cannot be read is refused when the config loads. Errors name the
// fields "merge_file" and "merge_upstream_timeout".
func readMerge(o policy.Merge) ([]byte, error) {
	var errs []error
	if d := time.Duration(o.MergeUpstreamTimeout); d < 0 || d > policy.MaxUpstreamTimeout {
		errs = append(errs, configerr.New("merge_upstream_timeout", d.String(), fmt.Sprintf("a fetch timeout is more than 0 and at most %s; leave it out for the default of %s", policy.MaxUpstreamTimeout, policy.DefaultUpstreamTimeout)))
	} else if d != 0 && !o.MergeUpstream {
		errs = append(errs, configerr.New("merge_upstream_timeout", d.String(), "a fetch timeout needs merge_upstream"))
	}
	var data []byte
	if o.MergeFile != "" {
		var err error
		data, err = readMergeFile(o.MergeFile)
		if err != nil {
			errs = append(errs, configerr.New("merge_file", o.MergeFile, err.Error()))
		}
	}
	return data, errors.Join(errs...)
}

// readMergeFile reads at most one byte more than robotsgen.MaxSize (Parse keeps the whole lines
// within it), so a huge file or a device does not fill memory.
func readMergeFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the robots.txt to merge: %w", unwrapPath(err))
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, errors.New("cannot read the robots.txt to merge: it is a directory")
	}
	data, err := io.ReadAll(io.LimitReader(f, robotsgen.MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read the robots.txt to merge: %w", unwrapPath(err))
	}
	return data, nil
}

// unwrapPath drops the path from an *os.PathError: the config error shows it already.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// newMergingRobotsTxt is newRobotsTxt for a config that may merge other files: it validates
// the declared file, maxAge and the options together (every problem is reported, by field
// path), merges File into the declared file, and returns the responder of the result, which
// reads File again when it changes (see RobotsTxt.ServeHTTP). With Upstream it also returns
// the Upstream that merges the backend's robots.txt into that result at serve time; otherwise
// the Upstream is nil. warn (may be nil) is told the lines of File that Parse skipped or
// changed, with their line numbers, the combinations Merge could not encode exactly, and
// what happens when File changes.
func newMergingRobotsTxt(declared robotsgen.File, maxAge time.Duration, o policy.Merge, log requestLog, fetchFor func(*http.Request, Handler) Fetch) (*robotsTxt, *upstream, error) {
	rt, err := newRobotsTxt(declared, maxAge)
	var info os.FileInfo
	if o.MergeFile != "" {
		info, _ = os.Stat(o.MergeFile) // before reading: a change after it is seen by the next check
	}
	data, oerr := readMerge(o)
	if err != nil || oerr != nil {
		return nil, nil, errors.Join(err, oerr)
	}
	warn := log.File
	if warn == nil {
		warn = func(string) {}
	}
	if o.MergeFile != "" {
		w := &fileWatch{path: o.MergeFile, declared: declared, warn: warn, info: info}
		st, err := w.merge(data)
		if err != nil {
			return nil, nil, configerr.New("merge_file", o.MergeFile, "the declared file merged with this one is not a valid robots.txt: "+err.Error())
		}
		rt.state.Store(st)
		rt.watch = w
	}
	if !o.MergeUpstream {
		return rt, nil, nil
	}
	timeout := time.Duration(o.MergeUpstreamTimeout)
	if timeout == 0 {
		timeout = policy.DefaultUpstreamTimeout
	}
	if maxAge == 0 {
		maxAge = policy.DefaultRobotsTxtMaxAge
	}
	return rt, &upstream{
		rt:       rt,
		maxAge:   maxAge,
		timeout:  timeout,
		log:      log,
		fetchFor: fetchFor,
		hosts:    make(map[originKey]*hostEntry),
	}, nil
}

// A Fetch asks the rest of the route (the backend) for its robots.txt: it serves sub, a GET of
// /robots.txt, into w. It runs on a goroutine of its own, possibly after the request that
// started it has ended, and should give up when sub's context is done (the timeout). An error
// is a failed response: a *StatusError gives its status, any other error counts as 502.
type Fetch func(w http.ResponseWriter, sub *http.Request) error

// upstream serves the declared file merged with the backend's own robots.txt (merge_upstream).
// It is safe for concurrent use.
//
// On GET or HEAD of /robots.txt it serves the merge cached for the request's origin (scheme
// and host). The first request for an origin starts one fetch and waits for it; concurrent
// requests wait for the same fetch (single flight). After max_age a request starts one
// revalidating fetch in the background and every request meanwhile is served the cached merge.
// What a fetch gets decides what is served:
//   - 2xx text: the backend's file (at most robotsgen.MaxSize, cut at the last complete line;
//     gzip decoded) merged with the declared file;
//   - 3xx, 4xx other than 429, or HTML at /robots.txt: the backend has no rules (RFC 9309
//     §2.3.1.3), the declared file is served;
//   - 5xx, 429, a timeout, an unreadable encoding: the last good merge (stale-if-error),
//     retried after at most 10 seconds; without one, the failure's status is passed on
//     (crawlers then assume complete disallow, RFC 9309 §2.3.1.4).
type upstream struct {
	rt      *robotsTxt // the declared file's responder (with merge_file's): headers, 405s, its body when there are no rules
	maxAge  time.Duration
	timeout time.Duration
	log     requestLog
	// fetchFor is Options.Upstream: the Fetch asking next for r's robots.txt; nil: next.
	fetchFor func(r *http.Request, next Handler) Fetch

	mu      sync.RWMutex
	hosts   map[originKey]*hostEntry // at most maxOriginCache
	stopped bool                     // Stop was called: no timer is armed any more

	fetches atomic.Int64 // fetches started, for tests
}

// hostEntry is the cache of one origin. flight and timer are guarded by Upstream.mu.
type hostEntry struct {
	state  atomic.Pointer[hostState] // nil until the first fetch ends
	flight chan struct{}             // non-nil while a fetch runs; closed when it ends
	timer  *time.Timer               // marks state expired when its ttl has passed
}

// hostState is what the last fetch of an origin left; it is never modified once stored,
// except for expired.
type hostState struct {
	base         *rtState      // the responder's state it was merged with: a newer one makes it expired
	enforce      *enforceState // what enforcement decides with for the origin; nil: base's
	body         *robotsBody   // nil when the fetch failed and there was no good merge before
	modTime      time.Time
	lastModified []string
	ttl          time.Duration // how long to serve it before revalidating; 0: revalidate now
	fail         *StatusError  // when body is nil: the status to pass on
	// expired is set by the entry's timer once ttl has passed, so that serving a cached
	// merge reads no clock (a clock read costs more than the rest of the lookup on some
	// virtual machines; BenchmarkRobotsTxtMergePair in nethttp).
	expired atomic.Bool
}

// Stop stops the timers that expire cached merges, so that an Upstream left behind by a config
// reload does not keep its merges in memory until their max-age has passed. It may still serve
// requests afterwards; their cached merges then count as expired and are revalidated as ever.
func (u *upstream) Stop() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.stopped = true
	for _, e := range u.hosts {
		if e.timer != nil {
			e.timer.Stop()
			e.timer = nil
		}
		if st := e.state.Load(); st != nil {
			st.expired.Store(true)
		}
	}
}

// Fetches reports how many fetches of the backend's robots.txt have started.
func (u *upstream) Fetches() int64 { return u.fetches.Load() }

// ServeHTTP answers a request for robots.txt (use RobotsTxt.Matches first) with the merged
// file, as RobotsTxt.ServeHTTP does with the declared one. A fetch that starts asks next for
// the backend's file (fetcher).
func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request, next Handler) error {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return u.rt.ServeHTTP(w, r) // the 405
	}
	u.rt.refresh()
	base := u.rt.state.Load()
	key := originKey{https: r.TLS != nil, host: strings.ToLower(r.Host)}
	u.mu.RLock()
	e := u.hosts[key]
	u.mu.RUnlock()
	var st *hostState
	if e != nil {
		st = e.state.Load()
		if st != nil && st.body != nil && !st.expired.Load() && st.base == base {
			return u.rt.serveBody(w, r, st.body, st.modTime, st.lastModified)
		}
	}
	e, flight := u.start(key, r, next)
	if st == nil || st.body == nil {
		// Nothing to serve yet: wait for the fetch (ours or one already running).
		select {
		case <-flight:
		case <-r.Context().Done():
			return &StatusError{http.StatusServiceUnavailable, "the request ended while the backend's robots.txt was fetched"}
		}
		if st = e.state.Load(); st == nil {
			return &StatusError{http.StatusServiceUnavailable, "the backend's robots.txt is not available"}
		}
	}
	if st.body == nil {
		return st.fail
	}
	return u.rt.serveBody(w, r, st.body, st.modTime, st.lastModified)
}

// served returns the last merge served to r's origin, nil before the first or when the
// last fetch failed without a good merge before it.
func (u *upstream) served(r *http.Request) *hostState {
	key := originKey{https: r.TLS != nil, host: strings.ToLower(r.Host)}
	u.mu.RLock()
	e := u.hosts[key]
	u.mu.RUnlock()
	if e == nil {
		return nil
	}
	if st := e.state.Load(); st != nil && st.body != nil {
		return st
	}
	return nil
}

// bodyFor returns the merge last served to r's origin, nil before the first.
func (u *upstream) bodyFor(r *http.Request) *robotsBody {
	if st := u.served(r); st != nil {
		return st.body
	}
	return nil
}

// enforceFor returns what enforcement decides with for r's origin: the merge last served
// there, or nil before the first (then the responder's, which that merge only adds to).
func (u *upstream) enforceFor(r *http.Request) *enforceState {
	if st := u.served(r); st != nil {
		return st.enforce
	}
	return nil
}

// start starts a fetch for key unless one is running, and returns the entry of key and the
// channel closed when the running fetch has stored its state there.
func (u *upstream) start(key originKey, r *http.Request, next Handler) (*hostEntry, chan struct{}) {
	u.mu.Lock()
	defer u.mu.Unlock()
	e := u.hosts[key]
	if e == nil {
		if len(u.hosts) >= maxOriginCache {
			// The Host header is the client's choice: keep the cache bounded by dropping an
			// entry that no fetch is filling.
			for k, old := range u.hosts {
				if old.flight == nil {
					if old.timer != nil {
						old.timer.Stop() // it would keep the dropped state alive until it fires
						old.timer = nil
					}
					delete(u.hosts, k)
					break
				}
			}
		}
		e = &hostEntry{}
		if len(u.hosts) < maxOriginCache {
			u.hosts[key] = e
		}
	}
	if e.flight != nil {
		return e, e.flight
	}
	flight := make(chan struct{})
	e.flight = flight
	u.fetches.Add(1)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), u.timeout)
	sub := subRequest(ctx, r)
	fetch := u.fetcher(r, next)
	go func() {
		defer cancel()
		st := u.fetch(ctx, e.state.Load(), key, sub, fetch)
		u.mu.Lock()
		e.state.Store(st)
		e.flight = nil
		u.expireLater(key, e, st)
		close(flight)
		u.mu.Unlock()
	}()
	return e, flight
}

// fetcher is the Fetch asking next for the backend's robots.txt, called while r is handled
// (Options.Upstream copies from r what the sub-request needs).
func (u *upstream) fetcher(r *http.Request, next Handler) Fetch {
	if u.fetchFor != nil {
		return u.fetchFor(r, next)
	}
	if next == nil {
		return func(http.ResponseWriter, *http.Request) error {
			return &StatusError{http.StatusBadGateway, "no handler to ask for robots.txt"}
		}
	}
	return next.ServeHTTP
}

// expireLater arms e's timer to mark st expired after its ttl; u.mu is held. An entry no longer
// in the cache gets no timer: no request finds it again.
func (u *upstream) expireLater(key originKey, e *hostEntry, st *hostState) {
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
	if st.ttl <= 0 || u.stopped {
		st.expired.Store(true)
		return
	}
	if u.hosts[key] != e {
		return
	}
	e.timer = time.AfterFunc(st.ttl, func() { st.expired.Store(true) })
}

// subRequest is the request for the backend: a GET of /robots.txt on r's origin, without a
// body, conditional or range headers (the cache needs the whole file), credentials (the merge
// is served to every client of the origin) or compression (Accept-Encoding: identity, as
// Caddy's templates ask for their includes).
func subRequest(ctx context.Context, r *http.Request) *http.Request {
	sub := r.Clone(ctx)
	sub.Method = http.MethodGet
	sub.Body = http.NoBody
	sub.GetBody = nil
	sub.ContentLength = 0
	sub.TransferEncoding = nil
	sub.Trailer = nil
	sub.Close = false
	sub.URL.Path = policy.RobotsTxtPath
	sub.URL.RawPath = ""
	sub.URL.RawQuery = ""
	sub.URL.Fragment = ""
	sub.RequestURI = policy.RobotsTxtPath
	for _, k := range []string{"If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range",
		"Cookie", "Authorization", "Proxy-Authorization", "Cache-Control", "Pragma"} {
		delete(sub.Header, k)
	}
	sub.Header.Set("Accept-Encoding", "identity")
	return sub
}

// fetch runs one fetch and returns the state it leaves; prev is the state before (nil if
// none). What the backend answers decides (see upstream): a failure, no rules, or its file
// merged.
func (u *upstream) fetch(ctx context.Context, prev *hostState, key originKey, sub *http.Request, fetch Fetch) *hostState {
	rec, status, fail := u.call(ctx, sub, fetch)
	switch {
	case fail != nil:
		return u.failed(prev, sub, key, fail)
	case status == http.StatusTooManyRequests || status >= 500 || status < 200:
		return u.failed(prev, sub, key, &StatusError{status, fmt.Sprintf("the backend answered %d for robots.txt", status)})
	case status >= 300:
		u.warn(sub, fmt.Sprintf("robots.txt of %s: the backend answered %d, which means it has no rules (RFC 9309 §2.3.1.3; redirects are not followed): serving the declared file", key, status))
		return u.noRules(prev, sub)
	}
	body, fail := decodedBody(rec)
	if fail != nil {
		return u.failed(prev, sub, key, fail)
	}
	if looksLikeHTML(rec.header["Content-Type"], body) {
		u.warn(sub, fmt.Sprintf("robots.txt of %s: the backend answered with an HTML page, which means it has no rules: serving the declared file", key))
		return u.noRules(prev, sub)
	}
	if len(body) > robotsgen.MaxSize || rec.full {
		u.warn(sub, fmt.Sprintf("robots.txt of %s: the backend's file is over %d bytes; only its complete lines within the limit are merged (RFC 9309 §2.5)", key, robotsgen.MaxSize))
	}
	return u.merge(prev, key, sub, body)
}

// call runs fetch for sub within ctx's deadline and returns what it recorded and the status
// it answered (a failed Fetch's: a *StatusError's, else 502); fail is set when the backend
// did not answer in time.
func (u *upstream) call(ctx context.Context, sub *http.Request, fetch Fetch) (*recorder, int, *StatusError) {
	// Not a named result: the goroutine keeps writing into rec after a timeout.
	rec := &recorder{header: http.Header{}}
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("the backend panicked: %v", p)
			}
		}()
		done <- fetch(rec, sub)
	}()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		// The handler ignores its context: leave it writing into a recorder no one reads.
	}
	if ctx.Err() != nil {
		return nil, 0, &StatusError{http.StatusGatewayTimeout, fmt.Sprintf("no robots.txt from the backend within %s", u.timeout)}
	}
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	if err != nil && !rec.full {
		var se *StatusError
		if errors.As(err, &se) {
			status = se.Code
		} else {
			status = http.StatusBadGateway
		}
		if status < 400 {
			status = http.StatusBadGateway
		}
	}
	return rec, status, nil
}

// decodedBody is the body rec holds, gzip decoded (at most robotsgen.MaxSize+1 bytes); an
// encoding that is not read, or does not decode, is a 502.
func decodedBody(rec *recorder) ([]byte, *StatusError) {
	body := rec.body.Bytes()
	switch enc := strings.ToLower(strings.TrimSpace(rec.header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, zerr := gzip.NewReader(bytes.NewReader(body))
		if zerr == nil {
			body, zerr = io.ReadAll(io.LimitReader(zr, robotsgen.MaxSize+1))
		}
		if zerr != nil && !(errors.Is(zerr, io.ErrUnexpectedEOF) && rec.full) {
			return nil, &StatusError{http.StatusBadGateway, fmt.Sprintf("the backend's gzip-encoded robots.txt does not decode: %v", zerr)}
		}
	default:
		return nil, &StatusError{http.StatusBadGateway, fmt.Sprintf("the backend's robots.txt has Content-Encoding %q, which is not read", enc)}
	}
	return body, nil
}

// merge is the state serving the backend's file body merged with the declared one. The
// merge can be larger than the backend's file (its groups are repeated for the tokens only
// the declared file names): the backend's file is cut further until the merge fits.
func (u *upstream) merge(prev *hostState, key originKey, sub *http.Request, body []byte) *hostState {
	limit := robotsgen.MaxSize
	base := u.rt.state.Load()
	for range 8 {
		other, diags := robotsgen.Parse(cutLines(body, limit))
		all, mdiags := robotsgen.MergeForMatching(base.matching, other)
		served := all.Renderable()
		out, rerr := served.Render(key.String())
		if rerr != nil {
			limit = limit * 2 / 3
			continue
		}
		if limit < robotsgen.MaxSize {
			u.warn(sub, fmt.Sprintf("robots.txt of %s: merged with only the first %d bytes of the backend's file, to stay within %d bytes", key, limit, robotsgen.MaxSize))
		}
		st := u.fresh(prev, newRobotsBody(out).renderedFrom(served, key.String()), base)
		if u.rt.enforcing.Load() {
			var last *enforceState
			if prev != nil {
				last = prev.enforce
			}
			st.enforce = newEnforceState(all, last)
		}
		if prev == nil || prev.body == nil || st.body != prev.body {
			for _, d := range diags {
				u.debug(sub, fmt.Sprintf("robots.txt of %s: backend's line %d skipped or changed: %s: %q", key, d.Line, d.Reason, d.Text))
			}
			for _, d := range mdiags {
				u.warn(sub, fmt.Sprintf("robots.txt of %s: merged inexactly, erring towards disallow: %s: %s", key, d.Text, d.Reason))
			}
		}
		return st
	}
	return u.failed(prev, sub, key, &StatusError{http.StatusBadGateway, "the backend's robots.txt cannot be merged within the size limit"})
}

// noRules is the state of a backend without rules: the declared file.
func (u *upstream) noRules(prev *hostState, sub *http.Request) *hostState {
	base := u.rt.state.Load()
	b, err := base.bodyFor(sub)
	if err != nil {
		return &hostState{base: base, fail: &StatusError{http.StatusBadRequest, err.Error()}}
	}
	return u.fresh(prev, b, base)
}

// fresh is the state serving body, merged with base, from now until max_age has passed. The
// previous body (and its Last-Modified) is kept when the bytes are the same, so that
// conditional requests still get 304s; a new body's Last-Modified is later than the previous
// one's.
func (u *upstream) fresh(prev *hostState, body *robotsBody, base *rtState) *hostState {
	now := time.Now()
	st := &hostState{ttl: u.maxAge, base: base}
	if prev != nil && prev.body != nil && bytes.Equal(prev.body.body, body.body) {
		st.body, st.modTime, st.lastModified = prev.body, prev.modTime, prev.lastModified
		return st
	}
	mod := now.UTC().Truncate(time.Second)
	if prev != nil && prev.body != nil && !mod.After(prev.modTime) {
		mod = prev.modTime.Add(time.Second)
	}
	st.body, st.modTime, st.lastModified = body, mod, []string{mod.Format(http.TimeFormat)}
	return st
}

// failed is the state after a failed fetch: the last good merge, retried soon, or the failure.
func (u *upstream) failed(prev *hostState, sub *http.Request, key originKey, fail *StatusError) *hostState {
	base := u.rt.state.Load()
	if prev != nil && prev.body != nil {
		u.warn(sub, fmt.Sprintf("robots.txt of %s: %s; serving the last good merge", key, fail.Msg))
		retry := min(upstreamRetry, u.maxAge)
		// Enforcement keeps deciding with the merge served; base is the current one, so that
		// the merge is retried after retry, not on every request.
		return &hostState{base: base, enforce: prev.enforce, body: prev.body, modTime: prev.modTime, lastModified: prev.lastModified, ttl: retry}
	}
	u.warn(sub, fmt.Sprintf("robots.txt of %s: %s; no merge to serve, answering %d", key, fail.Msg, fail.Code))
	return &hostState{base: base, fail: fail}
}

func (u *upstream) warn(r *http.Request, msg string) {
	if u.log.Warn != nil {
		u.log.Warn(r, msg)
	}
}

func (u *upstream) debug(r *http.Request, msg string) {
	if u.log.Debug != nil {
		u.log.Debug(r, msg)
	}
}

// cutLines returns the complete lines of b within limit bytes (all of b if it fits).
func cutLines(b []byte, limit int) []byte {
	if len(b) <= limit {
		return b
	}
	b = b[:limit]
	if i := bytes.LastIndexAny(b, "\r\n"); i >= 0 {
		return b[:i+1]
	}
	return nil
}

// looksLikeHTML reports whether a response at /robots.txt is an HTML page (a CMS's "not found"
// page served with 200, a single-page app's index): its Content-Type, read as browsers read
// it (mimetype.Extract, so "text/html; charset" and a repeated header count), says so, or its
// first non-blank character opens a tag, which no robots.txt line does.
func looksLikeHTML(contentType []string, body []byte) bool {
	if mt, ok := mimetype.Extract(contentType); ok && (mt.IsHTML() || mt.IsXHTML()) {
		return true
	}
	body = bytes.TrimPrefix(body, []byte("\xEF\xBB\xBF"))
	body = bytes.TrimLeft(body, " \t\r\n\f")
	return len(body) > 0 && body[0] == '<'
}

// errBodyFull stops a backend from sending more than the merge reads.
var errBodyFull = errors.New("robots.txt: the rest of the backend's file is not read")

// recorder keeps the status, header and the first robotsgen.MaxSize+1 bytes of a response.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
	full   bool
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 && code >= 200 {
		r.status = code
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if r.full {
		return 0, errBodyFull
	}
	room := robotsgen.MaxSize + 1 - r.body.Len()
	if len(p) > room {
		r.body.Write(p[:room])
		r.full = true
		return room, errBodyFull
	}
	return r.body.Write(p)
}
