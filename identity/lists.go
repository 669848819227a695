package identity

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/publicsuffix"

	"github.com/sitepolicy/caddy-robots/internal/coarse"
)

// Source is one published address list: where it is and how to read it (the fields of
// crawlers.IPRangeSource).
type Source struct {
	URL      string
	Format   string
	Selector string
}

// ListsOptions configure Lists. The zero value is usable: lists fetched over HTTPS daily,
// nothing kept on disk.
type ListsOptions struct {
	// Client fetches the lists; nil means a client with Timeout. Its CheckRedirect is
	// replaced: redirects stay on HTTPS and within the source's site.
	Client *http.Client
	// Dir, if set, keeps each list's last good document on disk, so that a restart without
	// network still verifies.
	Dir string
	// Local maps a source URL to a file read instead of fetching it (air-gapped hosts). A
	// local file is read when Start is called, and again every Refresh.
	Local map[string]string
	// Offline uses only the sources that Local maps to a file: nothing is fetched, and a bot
	// only the other lists verify stays unverified (Pending).
	Offline bool
	// ReadOnly reads the local files and the lists kept in Dir at Start, and nothing more:
	// nothing is fetched, refreshed in the background or written to Dir. It is for a one-off
	// question about a server's verification (a check), which must neither wait on the network
	// nor change the server's copies.
	ReadOnly bool
	// Refresh is how often a list is fetched again, jittered by up to a tenth either way;
	// 0 means 24h (see MinRefresh). A failed fetch is retried after a tenth of it.
	Refresh time.Duration
	// Timeout bounds one fetch; 0 means 30s.
	Timeout time.Duration
	// MaxSize bounds a document; 0 means 8 MiB.
	MaxSize int64
	// MaxAge is how old a list may grow (since it was last fetched or confirmed unchanged)
	// before it is not trusted any more; 0 means 7 days.
	MaxAge time.Duration
	// Log receives a line per fetch that fails or refuses a list; nil means slog.Default().
	Log *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// MinRefresh is the shortest Refresh a config should accept (the Caddy module refuses less):
// a shorter one has the server fetch the operators' lists, or read the files, almost in a
// loop. Lists itself takes any Refresh, so that tests can refresh quickly.
const MinRefresh = 10 * time.Minute

func (o *ListsOptions) defaults() {
	if o.Refresh <= 0 {
		o.Refresh = 24 * time.Hour
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.MaxSize <= 0 {
		o.MaxSize = 8 << 20
	}
	if o.MaxAge <= 0 {
		o.MaxAge = 7 * 24 * time.Hour
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// ListStatus is the state of one list, for logs and `check`.
type ListStatus struct {
	Source Source
	// Prefixes is the number of prefixes of the list in use; 0 when there is none.
	Prefixes int
	// Size is the size in bytes of its document.
	Size int
	// Fetched is when the list in use was fetched or last confirmed unchanged (zero if none).
	Fetched time.Time
	// Age is how old the list in use is by the Lists' clock (ListsOptions.Now): the time since
	// Fetched; 0 when there is none.
	Age time.Duration
	// Trusted is false when there is no list or it is older than MaxAge.
	Trusted bool
	// LastError is the last fetch's failure, "" after a success.
	LastError string
	// Local is true when the list is read from a local file (ListsOptions.Local) instead of
	// fetched.
	Local bool
	// File is where the list is read from besides the network: the local file, or the copy
	// kept in ListsOptions.Dir (which may not exist yet); "" for neither.
	File string
}

// Lists holds the address lists of several sources, fetched when Start is called and
// refreshed in the background until Stop. Prefixes and Status may be called from any
// goroutine.
type Lists struct {
	opts    ListsOptions
	coarse  bool // opts.Now is the default: Prefixes reads coarse.Now
	client  *http.Client
	sources []Source

	mu    sync.RWMutex
	lists map[string]*list // by URL

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// list is one source's state.
type list struct {
	p       *Prefixes
	doc     cached
	lastErr string
	// inUse is p and doc.Fetched for a request's lookup, read without the lock (set under
	// it, with them): a read lock on every verified request would have the cores contend
	// for the lock's word.
	inUse atomic.Pointer[listInUse]
}

type listInUse struct {
	p       *Prefixes
	fetched time.Time
}

// setInUse publishes li.p and li.doc.Fetched to lookups (l.mu held).
func (li *list) setInUse() { li.inUse.Store(&listInUse{li.p, li.doc.Fetched}) }

// cached is a fetched document as kept on disk.
type cached struct {
	URL          string    `json:"url"`
	ETag         string    `json:"etag,omitempty"`
	LastModified string    `json:"last_modified,omitempty"`
	Fetched      time.Time `json:"fetched"`
	Body         []byte    `json:"body"`
}

// NewLists returns Lists for sources; nothing is fetched or read before Start.
func NewLists(sources []Source, opts ListsOptions) *Lists {
	coarse := opts.Now == nil
	opts.defaults()
	c := &http.Client{Timeout: opts.Timeout}
	if opts.Client != nil {
		cc := *opts.Client
		c = &cc
	}
	c.CheckRedirect = sameSiteRedirect
	l := &Lists{opts: opts, coarse: coarse, client: c, lists: map[string]*list{}, stop: make(chan struct{}), done: make(chan struct{})}
	seen := map[string]bool{}
	for _, s := range sources {
		if _, local := opts.Local[s.URL]; opts.Offline && !local {
			continue
		}
		if !seen[s.URL] {
			seen[s.URL] = true
			l.sources = append(l.sources, s)
			l.lists[s.URL] = &list{}
		}
	}
	return l
}

// sameSiteRedirect follows a redirect only to HTTPS within the site (registrable domain) of
// the first request, and at most 5 times.
func sameSiteRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("more than 5 redirects")
	}
	if req.URL.Scheme != "https" {
		return fmt.Errorf("redirected to %s: only HTTPS is followed", req.URL.Redacted())
	}
	if site(req.URL.Hostname()) != site(via[0].URL.Hostname()) {
		return fmt.Errorf("redirected to %s: only redirects within %s are followed", req.URL.Redacted(), site(via[0].URL.Hostname()))
	}
	return nil
}

func site(host string) string {
	if s, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
		return s
	}
	return host
}

// Start reads the local files (ListsOptions.Local) and the lists kept on disk and returns;
// in the background it then fetches every list that has none on disk younger than Refresh, at once, and each list again every
// Refresh, until Stop or ctx ends (not with ReadOnly). A server starts with what the disk
// holds and does not wait on the network.
func (l *Lists) Start(ctx context.Context) {
	for _, s := range l.sources {
		if _, local := l.opts.Local[s.URL]; local {
			l.fetch(ctx, s) // a file: no network to wait on
		} else {
			l.loadDisk(s)
		}
	}
	if l.opts.ReadOnly {
		close(l.done) // no background refresh for Stop to wait for
		return
	}
	go l.loop(ctx)
}

// Stop ends the background refresh and waits for it.
func (l *Lists) Stop() {
	l.once.Do(func() { close(l.stop) })
	<-l.done
}

func (l *Lists) loop(ctx context.Context) {
	defer close(l.done)
	next := make(map[string]time.Time, len(l.sources))
	now := l.opts.Now()
	l.mu.RLock()
	for _, s := range l.sources {
		next[s.URL] = now // fetched at once, unless the disk holds a recent list
		if li := l.lists[s.URL]; li.p != nil && now.Sub(li.doc.Fetched) < l.opts.Refresh {
			next[s.URL] = li.doc.Fetched.Add(l.opts.Refresh)
		}
	}
	l.mu.RUnlock()
	for {
		soonest := time.Time{}
		for _, t := range next {
			if soonest.IsZero() || t.Before(soonest) {
				soonest = t
			}
		}
		wait := time.Hour
		if !soonest.IsZero() {
			wait = soonest.Sub(l.opts.Now())
		}
		timer := time.NewTimer(max(wait, 0))
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-l.stop:
			timer.Stop()
			return
		case <-timer.C:
		}
		now := l.opts.Now()
		for _, s := range l.sources {
			if !next[s.URL].After(now) {
				l.fetch(ctx, s)
				next[s.URL] = l.opts.Now().Add(l.after(s.URL))
			}
		}
	}
}

// after is the time until a source is fetched again: Refresh jittered, or a tenth of it
// after a failure.
func (l *Lists) after(u string) time.Duration {
	l.mu.RLock()
	failed := l.lists[u].lastErr != ""
	l.mu.RUnlock()
	d := l.opts.Refresh
	if failed {
		d /= 10
	}
	return d - d/10 + rand.N(d/5+1)
}

// Refresh fetches every list now, one after another, keeping the last good list of a source
// whose fetch fails. With ReadOnly it reads the local files again and fetches nothing.
func (l *Lists) Refresh(ctx context.Context) {
	for _, s := range l.sources {
		l.fetch(ctx, s)
	}
}

// Prefixes returns the list of the source at url, if there is one that is trusted (fetched
// or confirmed within MaxAge).
func (l *Lists) Prefixes(url string) (*Prefixes, bool) {
	return l.prefixesOf(l.lists[url]) // the map is not written after NewLists
}

// prefixesOf is Prefixes for a list of l (nil: none).
func (l *Lists) prefixesOf(li *list) (*Prefixes, bool) {
	if li == nil {
		return nil, false
	}
	u := li.inUse.Load()
	if u == nil || u.p == nil || l.now().Sub(u.fetched) > l.opts.MaxAge {
		return nil, false
	}
	return u.p, true
}

// now is the clock a request's lookup reads: ListsOptions.Now when set, else coarse.Now (a list
// is trusted for days; reading the clock would cost as much as the rest of a lookup on some
// machines).
func (l *Lists) now() time.Time {
	if l.coarse {
		return coarse.Now()
	}
	return l.opts.Now()
}

// Status returns the state of every list, in the order of the sources.
func (l *Lists) Status() []ListStatus {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := make([]ListStatus, 0, len(l.sources))
	now := l.opts.Now()
	for _, s := range l.sources {
		li := l.lists[s.URL]
		st := ListStatus{Source: s, Fetched: li.doc.Fetched, LastError: li.lastErr, Size: len(li.doc.Body)}
		if f, ok := l.opts.Local[s.URL]; ok {
			st.Local, st.File = true, f
		} else if l.opts.Dir != "" {
			st.File = l.diskPath(s.URL)
		}
		if li.p != nil {
			st.Prefixes, st.Age = li.p.Len(), now.Sub(li.doc.Fetched)
			st.Trusted = st.Age <= l.opts.MaxAge
		}
		out = append(out, st)
	}
	return out
}

// fetch gets one source's document (conditionally when there is one), and installs it if it
// parses; a failure keeps the list in use and is logged. With ReadOnly only a local file is
// read.
func (l *Lists) fetch(ctx context.Context, s Source) {
	if _, local := l.opts.Local[s.URL]; l.opts.ReadOnly && !local {
		return
	}
	doc, err := l.get(ctx, s)
	var p *Prefixes
	if err == nil && doc.Body != nil {
		if p, err = ParsePrefixes(s.Format, s.Selector, doc.Body); err != nil {
			err = fmt.Errorf("list refused: %w", err)
		}
	}
	l.mu.Lock()
	li := l.lists[s.URL]
	switch {
	case err != nil:
		li.lastErr = err.Error()
	case doc.Body == nil: // not modified
		li.doc.Fetched, li.lastErr = doc.Fetched, ""
		li.setInUse()
	default:
		li.p, li.doc, li.lastErr = p, doc, ""
		li.setInUse()
	}
	keep := li.doc
	l.mu.Unlock()
	if err != nil {
		l.opts.Log.Warn("crawler address list not updated: the last good list is kept", "url", s.URL, "error", err)
		return
	}
	l.saveDisk(keep)
}

// get fetches a source's document; a nil Body means not modified since the one in use.
func (l *Lists) get(ctx context.Context, s Source) (cached, error) {
	now := l.opts.Now()
	if path, ok := l.opts.Local[s.URL]; ok {
		body, err := readCapped(path, l.opts.MaxSize)
		return cached{URL: s.URL, Fetched: now, Body: body}, err
	}
	u, err := url.Parse(s.URL)
	if err != nil {
		return cached{}, err
	}
	if u.Scheme == "http" {
		u.Scheme = "https" // only HTTPS is fetched; every operator of the catalogue serves it
	}
	if u.Scheme != "https" {
		return cached{}, fmt.Errorf("%s: only https URLs are fetched", s.URL)
	}
	ctx, cancel := context.WithTimeout(ctx, l.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return cached{}, err
	}
	l.mu.RLock()
	prev := l.lists[s.URL].doc
	havePrev := l.lists[s.URL].p != nil
	l.mu.RUnlock()
	if havePrev {
		if prev.ETag != "" {
			req.Header.Set("If-None-Match", prev.ETag)
		}
		if prev.LastModified != "" {
			req.Header.Set("If-Modified-Since", prev.LastModified)
		}
	}
	req.Header.Set("User-Agent", "caddy-robots (crawler verification)")
	resp, err := l.client.Do(req)
	if err != nil {
		return cached{}, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified && havePrev:
		return cached{URL: s.URL, Fetched: now}, nil
	case resp.StatusCode != http.StatusOK:
		return cached{}, fmt.Errorf("%s answered %s", u.Redacted(), resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, l.opts.MaxSize+1))
	if err != nil {
		return cached{}, err
	}
	if int64(len(body)) > l.opts.MaxSize {
		return cached{}, fmt.Errorf("%s: the document is larger than %d bytes", u.Redacted(), l.opts.MaxSize)
	}
	return cached{URL: s.URL, ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified"), Fetched: now, Body: body}, nil
}

func readCapped(path string, maxSize int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	body, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err == nil && int64(len(body)) > maxSize {
		err = fmt.Errorf("%s is larger than %d bytes", path, maxSize)
	}
	return body, err
}

// diskPath is where a source's document is kept.
func (l *Lists) diskPath(u string) string {
	h := sha256.Sum256([]byte(u))
	return filepath.Join(l.opts.Dir, "list-"+hex.EncodeToString(h[:12])+".json")
}

func (l *Lists) loadDisk(s Source) {
	if l.opts.Dir == "" {
		return
	}
	data, err := os.ReadFile(l.diskPath(s.URL))
	if err != nil {
		return
	}
	var doc cached
	if err := json.Unmarshal(data, &doc); err != nil || doc.URL != s.URL {
		l.opts.Log.Warn("crawler address list on disk unreadable: ignored", "url", s.URL, "path", l.diskPath(s.URL))
		return
	}
	p, err := ParsePrefixes(s.Format, s.Selector, doc.Body)
	if err != nil {
		l.opts.Log.Warn("crawler address list on disk refused: ignored", "url", s.URL, "error", err)
		return
	}
	l.mu.Lock()
	l.lists[s.URL].p, l.lists[s.URL].doc = p, doc
	l.lists[s.URL].setInUse()
	l.mu.Unlock()
}

func (l *Lists) saveDisk(doc cached) {
	if l.opts.Dir == "" || l.opts.ReadOnly || doc.Body == nil {
		return
	}
	data, err := json.Marshal(doc)
	if err == nil {
		err = os.MkdirAll(l.opts.Dir, 0o755)
	}
	if err == nil {
		tmp := l.diskPath(doc.URL) + ".tmp"
		if err = os.WriteFile(tmp, data, 0o644); err == nil {
			err = os.Rename(tmp, l.diskPath(doc.URL))
		}
	}
	if err != nil {
		l.opts.Log.Warn("crawler address list not kept on disk", "url", doc.URL, "error", strings.TrimSpace(err.Error()))
	}
}

// CheckListFile reads file as the list the bot catalogue names at url (an entry of
// ListsOptions.Local), as Lists reads it, and says why it would be refused: the catalogue
// names no list at url, the file cannot be read or is larger than maxSize (0 for the
// default, 8 MiB), or it is no such list (ParsePrefixes names the entry at fault). A config
// that names a file checks it so when it is loaded: the file is config input, and a mistake
// in it an error of the config, not a warning once the server runs.
func CheckListFile(url, file string, maxSize int64) error {
	i := slices.IndexFunc(Sources(), func(s Source) bool { return s.URL == url })
	if i < 0 {
		return errors.New("the bot catalogue names no list at this URL")
	}
	src := Sources()[i]
	o := ListsOptions{MaxSize: maxSize}
	o.defaults()
	body, err := readCapped(file, o.MaxSize)
	if pe, ok := err.(*os.PathError); ok {
		return fmt.Errorf("cannot read the file: %w", pe.Err) // the caller shows the file
	}
	if err != nil {
		return err
	}
	if _, err := ParsePrefixes(src.Format, src.Selector, body); err != nil {
		return fmt.Errorf("list refused: %w", err)
	}
	return nil
}
