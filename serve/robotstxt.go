package serve

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"

	"github.com/sitepolicy/caddy-robots/configerr"
)

// maxOriginCache bounds how many per-origin renderings are kept. The Host header is chosen by
// the client, so an unbounded cache would be a memory leak an attacker could drive.
const maxOriginCache = 256

// robotsTxt serves one robots.txt file. The body is rendered once, when it is built, or once per
// origin (scheme and host) when the file lists sitemaps by path; requests only copy bytes.
// With merge_file, the file is merged with another one read from disk, and read again when it
// changes (watch). It is safe for concurrent use.
type robotsTxt struct {
	cacheControl []string
	state        atomic.Pointer[rtState]
	watch        *fileWatch // nil without merge_file
	// enforcing is set by NewEnforcer: every new state then gets its enforcement state.
	enforcing atomic.Bool
}

// rtState is what one version of the file serves. It is never modified once stored, except
// for the per-origin cache and enforce.
type rtState struct {
	lastModified []string
	modTime      time.Time

	fixed *robotsBody // nil when the body depends on the request's origin

	file     robotsgen.File // served
	mu       sync.RWMutex
	byOrigin map[originKey]*robotsBody

	// matching is what enforcement decides with and what merge_upstream merges further: the
	// served file with presets and the names never written to robots.txt (robotsgen.Expand,
	// robotsgen.MergeForMatching).
	matching *robotsgen.File
	enforce  atomic.Pointer[enforceState]
}

// originKey identifies an origin without building the "scheme://host" string per request.
type originKey struct {
	https bool
	host  string // lower case
}

func (k originKey) String() string {
	if k.https {
		return "https://" + k.host
	}
	return "http://" + k.host
}

// robotsBody is one rendered body with the header values that depend on it, kept as
// single-element slices so that serving assigns them without allocating.
type robotsBody struct {
	body          []byte
	etag          string
	etagValue     []string
	contentLength []string
	contentType   []string // textPlainUTF8 for robots.txt, rsl.MediaType for a license document
	// file and origin are what a robots.txt body was rendered from (renderedFrom); nil for
	// other bodies.
	file   *robotsgen.File
	origin string
	// text is the body with the line of each group and rule (robotsgen.File.RenderText), made
	// when a violation is first logged with it.
	text atomic.Pointer[robotsgen.Text]
}

// renderedFrom notes that b is file rendered for origin, and returns b.
func (b *robotsBody) renderedFrom(file *robotsgen.File, origin string) *robotsBody {
	b.file, b.origin = file, origin
	return b
}

// readText returns the body with the lines of its groups and rules, made once by rendering
// its file again (it rendered before: the bytes are the same); nil for a body rendered from
// no file.
func (b *robotsBody) readText() *robotsgen.Text {
	if t := b.text.Load(); t != nil {
		return t
	}
	if b.file == nil {
		return nil
	}
	t, err := b.file.RenderText(b.origin)
	if err != nil {
		return nil
	}
	b.text.Store(t)
	return t
}

var (
	textPlainUTF8 = []string{"text/plain; charset=utf-8"}
	allowGetHead  = []string{"GET, HEAD"}
)

// newRobotsTxt validates the file and maxAge (0 = policy.DefaultRobotsTxtMaxAge) and renders the
// body. The error names every problem, by field path ("groups[0]...", "max_age").
func newRobotsTxt(file robotsgen.File, maxAge time.Duration) (*robotsTxt, error) {
	var errs []error
	if d := maxAge; d != 0 && (d < time.Second || d > policy.MaxRobotsTxtMaxAge) {
		errs = append(errs, configerr.New("max_age", d.String(), fmt.Sprintf("max_age must be at least 1s (Cache-Control max-age counts whole seconds) and at most 24h: crawlers should not use a robots.txt cached longer (RFC 9309 §2.4), and a cache in front of the server would hand them one; leave it out for the default of %s", policy.DefaultRobotsTxtMaxAge)))
	}
	if err := file.Validate(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if maxAge == 0 {
		maxAge = policy.DefaultRobotsTxtMaxAge
	}
	st, err := newState(file, file.Expand(true))
	if err != nil {
		return nil, err
	}
	rt := &robotsTxt{cacheControl: []string{"max-age=" + strconv.FormatInt(int64(maxAge/time.Second), 10)}}
	rt.state.Store(st)
	return rt, nil
}

// newState renders file (validated) and keeps matching, the same file as enforcement reads it.
func newState(file robotsgen.File, matching *robotsgen.File) (*rtState, error) {
	now := time.Now().UTC().Truncate(time.Second)
	st := &rtState{lastModified: []string{now.Format(http.TimeFormat)}, modTime: now, file: file, matching: matching}
	if file.NeedsOrigin() {
		// Render once against a placeholder origin so that size and syntax errors are reported
		// now, at config load, and not on the first request.
		if _, err := file.Render("https://example.com"); err != nil {
			return nil, err
		}
		st.byOrigin = make(map[originKey]*robotsBody)
		return st, nil
	}
	body, err := file.Render("")
	if err != nil {
		return nil, err
	}
	st.fixed = newRobotsBody(body).renderedFrom(&st.file, "")
	return st, nil
}

func newRobotsBody(body []byte) *robotsBody {
	sum := sha256.Sum256(body)
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
	return &robotsBody{
		body:          body,
		etag:          etag,
		etagValue:     []string{etag},
		contentLength: []string{strconv.Itoa(len(body))},
		contentType:   textPlainUTF8,
	}
}

func (st *rtState) bodyFor(r *http.Request) (*robotsBody, error) {
	if st.fixed != nil {
		return st.fixed, nil
	}
	if r.Host == "" {
		return nil, errNoHost
	}
	key := originKey{https: r.TLS != nil, host: strings.ToLower(r.Host)}
	st.mu.RLock()
	b := st.byOrigin[key]
	st.mu.RUnlock()
	if b != nil {
		return b, nil
	}
	body, err := st.file.Render(key.String())
	if err != nil {
		return nil, err
	}
	b = newRobotsBody(body).renderedFrom(&st.file, key.String())
	st.mu.Lock()
	if len(st.byOrigin) < maxOriginCache {
		st.byOrigin[key] = b
	}
	st.mu.Unlock()
	return b, nil
}

// Matches reports whether r asks for robots.txt: its path is exactly /robots.txt.
func (rt *robotsTxt) Matches(r *http.Request) bool {
	return r.URL.Path == policy.RobotsTxtPath
}

// StatusError is a response the front end writes its own way (Caddy through handle_errors):
// nothing has been written yet except headers such as Allow.
type StatusError struct {
	Code int
	Msg  string
}

func (e *StatusError) Error() string { return e.Msg }

// ServeHTTP answers a request for robots.txt: GET and HEAD get the file (or 304 Not Modified
// for a matching conditional request). Any other method gets an Allow header and a 405
// StatusError, a request whose Host cannot be used (sitemaps by path) a 400 StatusError,
// for the front end to answer. It does not look at the path; use Matches first.
func (rt *robotsTxt) ServeHTTP(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h["Allow"] = allowGetHead
		return &StatusError{http.StatusMethodNotAllowed, "robots.txt answers GET and HEAD"}
	}
	rt.refresh()
	st := rt.state.Load()
	b, err := st.bodyFor(r)
	if err != nil {
		// Only an unusable Host header gets here: the config itself was checked at load.
		return &StatusError{http.StatusBadRequest, err.Error()}
	}
	return rt.serveBody(w, r, b, st.modTime, st.lastModified)
}

// serveBody writes b, or 304 Not Modified, with the robots.txt headers; modTime and
// lastModified are b's (the merging responder, upstream.go, keeps them per body).
func (rt *robotsTxt) serveBody(w http.ResponseWriter, r *http.Request, b *robotsBody, modTime time.Time, lastModified []string) error {
	h := w.Header()
	h["Cache-Control"] = rt.cacheControl
	h["Etag"] = b.etagValue
	h["Last-Modified"] = lastModified
	if notModified(r, b.etag, modTime) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h["Content-Type"] = b.contentType
	h["Content-Length"] = b.contentLength
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b.body)
	}
	return nil
}

// notModified applies RFC 9110 §13.2.2: If-None-Match (weak comparison) takes precedence over
// If-Modified-Since.
func notModified(r *http.Request, etag string, modTime time.Time) bool {
	if inm := r.Header["If-None-Match"]; len(inm) > 0 {
		for _, line := range inm {
			if etagListMatches(line, etag) {
				return true
			}
		}
		return false
	}
	if ims := r.Header.Get("If-Modified-Since"); ims != "" {
		t, err := http.ParseTime(ims)
		return err == nil && !modTime.After(t)
	}
	return false
}

// etagListMatches reports whether the If-None-Match list contains "*" or an entity tag that
// weakly matches etag (a strong tag of ours).
func etagListMatches(list, etag string) bool {
	for list != "" {
		list = strings.TrimLeft(list, " \t,")
		if list == "" {
			return false
		}
		if list[0] == '*' {
			return true
		}
		list = strings.TrimPrefix(list, "W/")
		if list == "" || list[0] != '"' {
			return false // malformed: never match on garbage
		}
		end := strings.IndexByte(list[1:], '"')
		if end < 0 {
			return false
		}
		if list[:end+2] == etag {
			return true
		}
		list = list[end+2:]
	}
	return false
}

var errNoHost = errors.New("the request has no Host, which the sitemap paths need")
