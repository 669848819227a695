package webbotauth

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sitepolicy/caddy-robots/internal/httplex"
)

// WellKnownPath is the well-known URI of a key directory (the draft, "Well-Known
// 'http-message-signatures-directory' URI").
const WellKnownPath = "/.well-known/http-message-signatures-directory"

// DirectoryMediaType is the media type a directory at the well-known URI must be served with.
const DirectoryMediaType = "application/http-message-signatures-directory+json"

// DirectoryOptions configures a Directory.
type DirectoryOptions struct {
	// TLSConfig is the client TLS configuration (tests give their server's roots); nil is
	// the system's.
	TLSConfig *tls.Config
	// AllowAddr says whether a directory may be fetched from an address; nil allows only
	// public unicast addresses (the draft, "Server-Side Request Forgery": no private,
	// loopback or link-local ranges). It is checked on the address actually dialled, after
	// resolution, so a name that resolves to 127.0.0.1 is refused too. Tests on loopback
	// allow it here.
	AllowAddr func(netip.Addr) bool
	// MinTTL and MaxTTL clamp how long a fetched directory is used, whatever its
	// Cache-Control says; 0 is 5 minutes and 24 hours.
	MinTTL, MaxTTL time.Duration
	// Retry is the least time between two fetches of one directory when a keyid is unknown
	// (key rotation) or the last fetch failed; 0 is one minute (the draft keeps negative
	// caching under five).
	Retry time.Duration
	// Timeout bounds one fetch; 0 is 10 seconds.
	Timeout time.Duration
	// Resolver resolves directory host names; nil is the system's. Tests answer from a
	// loopback DNS server, so that many host names reach one local server. The address
	// check (AllowAddr) applies to whatever it answers.
	Resolver *net.Resolver
	// MaxAgents bounds how many directories of agents that are not trusted are cached; 0 is
	// 1,000. With FetchUntrusted every client can name a new one, so the cache must not grow
	// with them; when it is full, failures older than Retry go first, then any other entry
	// not being fetched. Trusted agents' directories (bounded by the configuration) are
	// always kept.
	MaxAgents int
	// MaxUntrustedBytes bounds the memory the directories of agents that are not trusted take
	// in the cache, each counted as its agent URL, its keys and its last error (entryBytes); 0
	// is 1 MiB. MaxAgents alone would let them take MaxAgents times a directory of MaxKeys keys
	// under a long URL. It is made room for as MaxAgents is; a fetched directory that still
	// does not fit is not kept (the agent is Unreachable until a later fetch fits).
	MaxUntrustedBytes int
	// MaxFetches bounds the fetches in progress at once, over all agents; 0 is 4, less than 2
	// is 2. One of them is kept for trusted agents, so that clients naming agents of their
	// own cannot hold every fetch. A fetch for an agent not trusted opens a connection of its
	// own and closes it when done (no keep-alive): clients naming a new host each time would
	// otherwise leave an idle connection, a file descriptor and two goroutines, per host.
	// So at most MaxFetches - 1 connections serve agents not trusted at any time.
	MaxFetches int
	// Now is the clock of Fetch (a Verifier gives lookups its own); nil is time.Now.
	Now func() time.Time
	// AllowTestKeys keeps the published test keys (TestKeys) a directory serves, which are
	// otherwise dropped; for tests only.
	AllowTestKeys bool
}

// Directory fetches and caches the key directories of agents: the JWK Set at the agent's
// Signature-Agent URL, or at its well-known URI when the URL is the bare origin (the earlier
// drafts' form). HTTPS only, 200 only, no redirects, MaxDirectorySize bytes at most, the media
// type checked, one fetch at a time per agent, each in the background of the request that
// asked. A failed fetch never evicts the keys already cached (the draft, "Discovery
// Failure"); a fetched directory replaces them, so a removed key stops verifying.
type Directory struct {
	client *http.Client // for trusted agents: connections kept alive
	// untrustedClient fetches for agents not trusted: no keep-alive (MaxFetches).
	untrustedClient *http.Client
	o               DirectoryOptions

	mu sync.Mutex
	// life is the context of the fetches started, cancelled (and replaced) by Close.
	life      context.Context
	cancel    context.CancelFunc
	entries   map[string]*dirEntry
	inflight  int // fetches in progress
	untrusted int // entries of agents not trusted
	// untrustedBytes is what the entries of agents not trusted take (entryBytes).
	untrustedBytes int
	// inflightUntrusted is the fetches in progress for agents not trusted.
	inflightUntrusted int
	wg                sync.WaitGroup
}

type dirEntry struct {
	keys     map[string]*Key // nil until a fetch succeeds
	expires  time.Time       // when the keys are stale
	attempt  time.Time       // when the last fetch started
	err      error           // of the last fetch
	fetching chan struct{}   // closed when the fetch in progress ends; nil if none
	trusted  bool            // a Verifier trusts the agent
	bytes    int             // entryBytes when last counted, if not trusted
}

// Memory of a cache entry beyond its strings, for entryBytes: the entry, its channel and its
// map slot; a key's struct and map slot. Measured by TestDirectoryMemory, rounded up.
const (
	dirEntryBytes = 512
	dirKeyBytes   = 160
)

// entryBytes is the memory an entry of agent takes: its fixed part, the agent URL (the map
// key), each key with its thumbprint and public key, and its error's message.
func entryBytes(agent string, e *dirEntry) int {
	n := dirEntryBytes + len(agent)
	for id, k := range e.keys {
		n += dirKeyBytes + len(id) + len(k.Public)
	}
	if e.err != nil {
		n += len(e.err.Error())
	}
	return n
}

// NewDirectory returns a Directory.
func NewDirectory(o DirectoryOptions) *Directory {
	if o.MinTTL == 0 {
		o.MinTTL = 5 * time.Minute
	}
	if o.MaxTTL == 0 {
		o.MaxTTL = 24 * time.Hour
	}
	if o.Retry == 0 {
		o.Retry = time.Minute
	}
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Second
	}
	if o.MaxAgents == 0 {
		o.MaxAgents = 1000
	}
	if o.MaxUntrustedBytes == 0 {
		o.MaxUntrustedBytes = 1 << 20
	}
	if o.MaxFetches == 0 {
		o.MaxFetches = 4
	}
	o.MaxFetches = max(o.MaxFetches, 2)
	if o.Now == nil {
		o.Now = time.Now
	}
	allow := o.AllowAddr
	if allow == nil {
		allow = PublicAddr
	}
	dialer := &net.Dialer{
		Timeout:  o.Timeout,
		Resolver: o.Resolver,
		// Control runs on the resolved address of every connection attempt.
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return err
			}
			if !allow(ap.Addr().Unmap()) {
				return fmt.Errorf("webbotauth: directory address %s refused", ap.Addr())
			}
			return nil
		},
	}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would dial for us, past the address check
		DialContext:           dialer.DialContext,
		TLSClientConfig:       o.TLSConfig,
		TLSHandshakeTimeout:   o.Timeout,
		ResponseHeaderTimeout: o.Timeout,
		MaxIdleConnsPerHost:   1,
		IdleConnTimeout:       time.Minute,
	}
	untrusted := tr.Clone()
	untrusted.DisableKeepAlives = true
	client := func(tr *http.Transport) *http.Client {
		return &http.Client{
			Transport: tr,
			Timeout:   o.Timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse // the draft: never follow
			},
		}
	}
	d := &Directory{client: client(tr), untrustedClient: client(untrusted), o: o, entries: map[string]*dirEntry{}}
	d.life, d.cancel = context.WithCancel(context.Background())
	return d
}

// PublicAddr reports whether a is a public unicast address: not private, loopback,
// link-local, multicast or unspecified.
func PublicAddr(a netip.Addr) bool {
	return a.IsValid() && !a.IsPrivate() && !a.IsLoopback() && !a.IsLinkLocalUnicast() &&
		!a.IsLinkLocalMulticast() && !a.IsInterfaceLocalMulticast() && !a.IsMulticast() &&
		!a.IsUnspecified() && !cgnat.Contains(a)
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// DirectoryURL returns the URL a directory is fetched from for a normalized agent URL: the
// well-known URI when the agent is a bare origin ("https://host/", the earlier drafts' String
// form), else the URL itself (the draft resolves the member value directly).
func DirectoryURL(agent string) string {
	if strings.HasSuffix(agent, "/") && strings.Count(agent, "/") == 3 {
		return strings.TrimSuffix(agent, "/") + WellKnownPath
	}
	return agent
}

// lookup returns the key keyID of agent if the cache has it, starting a fetch when the cache
// has no directory, a stale one, or one without that key (rotation) and the last attempt is
// older than Retry. With no key it says why: Pending while a fetch runs, Unreachable after a
// failed one, UnknownKey when the fetched directory does not hold the key.
func (d *Directory) lookup(agent, keyID string, now time.Time, trusted bool) (*Key, Status, string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	e := d.entry(agent, now, trusted)
	if e == nil {
		return nil, Unreachable, "too many agent directories cached"
	}
	retry := now.Sub(e.attempt) >= d.o.Retry
	if e.keys != nil {
		k := e.keys[keyID]
		if e.fetching == nil && (now.After(e.expires) || k == nil && retry) {
			d.start(agent, e, now)
		}
		if k != nil {
			return k, 0, ""
		}
		if e.fetching != nil {
			return nil, Pending, "keyid not in the cached directory; refetching it"
		}
		return nil, UnknownKey, "keyid not in the agent's directory"
	}
	if e.fetching == nil && (e.attempt.IsZero() || retry) {
		d.start(agent, e, now)
	}
	if e.fetching != nil {
		return nil, Pending, "fetching the agent's directory"
	}
	if e.err == nil {
		return nil, Unreachable, "too many directory fetches in progress"
	}
	return nil, Unreachable, fmt.Sprintf("the agent's directory: %v", e.err)
}

// entry returns the cache entry of an agent, made if need be; nil if the cache of agents not
// trusted is full of entries it cannot drop. d.mu is held.
func (d *Directory) entry(agent string, now time.Time, trusted bool) *dirEntry {
	e := d.entries[agent]
	switch {
	case e != nil && trusted && !e.trusted:
		e.trusted = true
		d.untrusted--
		d.untrustedBytes -= e.bytes
	case e != nil:
	case trusted:
		e = &dirEntry{trusted: true}
		d.entries[agent] = e
	default:
		e = &dirEntry{}
		e.bytes = entryBytes(agent, e)
		for d.untrusted >= d.o.MaxAgents || d.untrustedBytes+e.bytes > d.o.MaxUntrustedBytes {
			if !d.evict(now, nil) {
				return nil
			}
		}
		d.entries[agent] = e
		d.untrusted++
		d.untrustedBytes += e.bytes
	}
	return e
}

// recount counts again what the entry of an agent not trusted takes, once a fetch has changed
// it, and makes room for it; if there is none, its keys are dropped. d.mu is held.
func (d *Directory) recount(agent string, e *dirEntry, now time.Time) {
	if e.trusted || d.entries[agent] != e {
		return
	}
	d.untrustedBytes -= e.bytes
	e.bytes = entryBytes(agent, e)
	for d.untrustedBytes+e.bytes > d.o.MaxUntrustedBytes {
		if !d.evict(now, e) {
			break
		}
	}
	if d.untrustedBytes+e.bytes > d.o.MaxUntrustedBytes {
		e.keys, e.err = nil, fmt.Errorf("%w: no room in the cache of agents not trusted (%d bytes)", errDirectory, d.o.MaxUntrustedBytes)
		e.bytes = entryBytes(agent, e)
	}
	d.untrustedBytes += e.bytes
}

// evict drops the untrusted entries that failed longer than Retry ago or, if there are none,
// one other untrusted entry not being fetched, never keep; false if it could drop none. d.mu
// is held.
func (d *Directory) evict(now time.Time, keep *dirEntry) bool {
	n := d.untrusted
	for a, e := range d.entries {
		if !e.trusted && e != keep && e.keys == nil && e.fetching == nil && now.Sub(e.attempt) >= d.o.Retry {
			d.drop(a, e)
		}
	}
	if d.untrusted < n {
		return true
	}
	for a, e := range d.entries {
		if !e.trusted && e != keep && e.fetching == nil {
			d.drop(a, e)
			return true
		}
	}
	return false
}

// drop removes the entry e of an agent not trusted; d.mu is held.
func (d *Directory) drop(agent string, e *dirEntry) {
	delete(d.entries, agent)
	d.untrusted--
	d.untrustedBytes -= e.bytes
}

// start begins a fetch of agent's directory, unless MaxFetches are in progress (MaxFetches - 1
// for an agent not trusted); d.mu is held.
func (d *Directory) start(agent string, e *dirEntry, now time.Time) {
	trusted := e.trusted
	if d.inflight >= d.o.MaxFetches || !trusted && d.inflightUntrusted >= d.o.MaxFetches-1 {
		return
	}
	d.inflight++
	if !trusted {
		d.inflightUntrusted++
	}
	done := make(chan struct{})
	e.fetching, e.attempt = done, now
	life := d.life
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		ctx, cancel := context.WithTimeout(life, d.o.Timeout)
		client := d.client
		if !trusted {
			client = d.untrustedClient
		}
		keys, ttl, err := d.get(ctx, client, agent)
		cancel()
		d.mu.Lock()
		if err == nil {
			e.keys, e.expires = keys, now.Add(ttl)
		}
		e.err, e.fetching = err, nil
		if err != nil && life.Err() != nil {
			// Cut short by Close: says nothing of the agent, so the next lookup fetches again.
			e.attempt = time.Time{}
		}
		d.recount(agent, e, now)
		d.inflight--
		if !trusted {
			d.inflightUntrusted--
		}
		d.mu.Unlock()
		close(done)
	}()
}

// Fetch fetches agent's directory now (or waits for the fetch in progress) and returns its
// error: for warming the cache at start and for tests. The agent counts as trusted.
func (d *Directory) Fetch(ctx context.Context, agent string) error {
	agent, err := NormalizeAgent(agent)
	if err != nil {
		return err
	}
	d.mu.Lock()
	e := d.entry(agent, d.o.Now(), true)
	if e.fetching == nil {
		d.start(agent, e, d.o.Now())
	}
	done := e.fetching
	d.mu.Unlock()
	if done == nil {
		return fmt.Errorf("%w: too many directory fetches in progress", errDirectory)
	}
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return e.err
}

// Wait waits for the fetches in progress to end.
func (d *Directory) Wait() { d.wg.Wait() }

// Close cancels the fetches in progress, waits for them to end and closes the idle
// connections, for a front end's cleanup when its configuration is replaced: a reload never
// waits for a directory server that is slow to answer. The cache stays usable; a later fetch
// opens a new connection, and an agent whose fetch was cancelled is fetched again.
func (d *Directory) Close() {
	d.mu.Lock()
	d.cancel()
	d.life, d.cancel = context.WithCancel(context.Background())
	d.mu.Unlock()
	d.wg.Wait()
	d.client.CloseIdleConnections()
	d.untrustedClient.CloseIdleConnections()
}

var errDirectory = errors.New("webbotauth: key directory")

// get fetches and parses one directory, returning its keys and how long to use them.
func (d *Directory) get(ctx context.Context, client *http.Client, agent string) (map[string]*Key, time.Duration, error) {
	u := DirectoryURL(agent)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	if req.URL.Scheme != "https" {
		return nil, 0, fmt.Errorf("%w: %s is not https", errDirectory, u)
	}
	wellKnown := req.URL.Path == WellKnownPath
	req.Header.Set("Accept", DirectoryMediaType+", application/jwk-set+json;q=0.9, application/json;q=0.8")
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("%w: %s: status %d", errDirectory, u, resp.StatusCode)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != DirectoryMediaType && (wellKnown || mt != "application/jwk-set+json" && mt != "application/json") {
		return nil, 0, fmt.Errorf("%w: %s: media type %q", errDirectory, u, mt)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxDirectorySize+1))
	if err != nil {
		return nil, 0, err
	}
	keys, err := ParseJWKS(body)
	if err != nil {
		return nil, 0, err
	}
	m := make(map[string]*Key, len(keys))
	for i := range keys {
		if TestKeys[keys[i].ID] && !d.o.AllowTestKeys {
			continue // the draft: verifiers reject known test keys in directories
		}
		m[keys[i].ID] = &keys[i]
	}
	return m, d.ttl(resp.Header), nil
}

// ttl is how long a response may be used: its Cache-Control max-age (no-store and no-cache
// count as 0), an hour if it says nothing, clamped to [MinTTL, MaxTTL].
func (d *Directory) ttl(h http.Header) time.Duration {
	ttl := time.Hour
	for directive := range httplex.Elements(strings.Join(h.Values("Cache-Control"), ",")) {
		name, val, _ := strings.Cut(directive, "=")
		switch strings.ToLower(name) {
		case "max-age":
			if n, err := strconv.ParseInt(strings.Trim(val, `"`), 10, 64); err == nil && n >= 0 {
				ttl = time.Duration(min(n, 1<<30)) * time.Second
			}
		case "no-store", "no-cache":
			ttl = 0
		}
	}
	return max(d.o.MinTTL, min(ttl, d.o.MaxTTL))
}
