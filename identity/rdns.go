package identity

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sitepolicy/caddy-robots/fleet"
)

// Resolver is what forward-confirmed reverse DNS asks; *net.Resolver is one.
type Resolver interface {
	LookupAddr(ctx context.Context, addr string) ([]string, error)
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// ResolverAt returns Go's resolver asking only the DNS server at server (over UDP, and TCP
// for a truncated answer) instead of the system's: "ip:port", or an IP address alone for
// port 53 ("127.0.0.1", "[::1]:5353", "::1").
func ResolverAt(server string) (*net.Resolver, error) {
	ap, err := netip.ParseAddrPort(server)
	if err != nil {
		a, aerr := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(server, "["), "]"))
		if aerr != nil || a.Zone() != "" {
			return nil, fmt.Errorf("%q: not an IP address and port such as 127.0.0.1:53", server)
		}
		ap = netip.AddrPortFrom(a, 53)
	}
	if ap.Port() == 0 {
		return nil, fmt.Errorf("%q: port 0", server)
	}
	addr := ap.String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}, nil
}

// DNSOptions configure a ReverseDNS. The zero value is usable.
type DNSOptions struct {
	// Resolver answers the lookups; nil means net.DefaultResolver.
	Resolver Resolver
	// Positive and Negative are how long an answer is kept: an address with a confirmed
	// host name (default 24h), one without (default 1h).
	Positive, Negative time.Duration
	// MaxEntries bounds the answers kept (default 100,000); a full cache forgets some.
	MaxEntries int
	// MaxInFlight bounds the lookups in progress at once (default 32). Beyond it, and beyond
	// one lookup per address and per IPv6 /64, a request's lookup is not started (Dropped
	// counts it) and the address stays pending until a later request.
	MaxInFlight int
	// Timeout bounds one lookup, PTR and forward together (default 5s).
	Timeout time.Duration
	// Retry is how long an address whose lookup failed temporarily (a timeout, SERVFAIL, a
	// refused or truncated answer, no network: anything but a definite answer) waits before
	// it is looked up again, doubling with each such failure in a row up to MaxRetry
	// (defaults 5s and 5m). Meanwhile it is pending, never failed: a resolver's hiccup is no
	// verdict.
	Retry, MaxRetry time.Duration
	// Wait, if positive, is how long Verify waits for the answer of a lookup it started or
	// found in progress for the address, instead of answering DNSPending at once: the first
	// request from a crawler's address can then be decided, at the price of that much
	// latency at most (once per address and Positive or Negative). 0 never waits.
	Wait time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Store, if set, shares the verdicts with the fleet (package fleet): an address without
	// an answer here is asked of the store, and only the instance that claims its lookup
	// looks it up, storing a definite answer for Positive or Negative (a temporary failure
	// is never stored); the others answer DNSPending until the verdict is there. A failed
	// store falls back to this process's own lookups (docs/fleet.md).
	Store fleet.Store
}

// DNSStatus is the state of an address's reverse-DNS check.
type DNSStatus uint8

const (
	// DNSPending: no answer yet (a lookup is in progress, or was not started: see Dropped).
	DNSPending DNSStatus = iota
	// DNSVerified: a host name of the address matches a mask, and it resolves back to it.
	DNSVerified
	// DNSFailed: the address has no host name that matches a mask and resolves back to it,
	// by a definite answer: no PTR name (NXDOMAIN, no record), names outside the masks, or
	// forward lookups that do not return the address. A temporary failure is never DNSFailed.
	DNSFailed
)

func (s DNSStatus) String() string {
	return [...]string{"pending", "verified", "failed"}[s]
}

// ReverseDNS verifies addresses by forward-confirmed reverse DNS: the address's PTR names,
// each kept only if its forward lookup returns the address. It never looks up during a
// request: Verify answers from its cache and starts a lookup in the background, bounded and
// deduplicated, so that a flood of distinct addresses claiming a crawler cannot cause
// unbounded DNS traffic.
type ReverseDNS struct {
	opts DNSOptions

	mu       sync.Mutex
	cache    map[netip.Addr]dnsAnswer
	inFlight map[netip.Addr]chan struct{} // by address and by IPv6 /64 (the prefix's address); closed when answered
	running  int

	started, dropped, hits, temporary atomic.Int64
	fromStoreN                        atomic.Int64 // answers the fleet's store gave
	wg                                sync.WaitGroup
}

type dnsAnswer struct {
	names   []string // confirmed host names, lower case, without the final dot
	expires time.Time
	// temporary: the lookup failed temporarily, so names (those confirmed before the
	// failure) prove only what they match; expires is when it may be retried, and failures
	// counts the temporary failures in a row (the backoff doubles with each).
	temporary bool
	failures  uint8
}

// NewReverseDNS returns a ReverseDNS.
func NewReverseDNS(opts DNSOptions) *ReverseDNS {
	if opts.Resolver == nil {
		opts.Resolver = net.DefaultResolver
	}
	if opts.Positive <= 0 {
		opts.Positive = 24 * time.Hour
	}
	if opts.Negative <= 0 {
		opts.Negative = time.Hour
	}
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = 100_000
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = 32
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Second
	}
	if opts.Retry <= 0 {
		opts.Retry = 5 * time.Second
	}
	if opts.MaxRetry <= 0 {
		opts.MaxRetry = max(opts.Retry, 5*time.Minute)
	}
	opts.MaxRetry = max(opts.MaxRetry, opts.Retry)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &ReverseDNS{opts: opts, cache: map[netip.Addr]dnsAnswer{}, inFlight: map[netip.Addr]chan struct{}{}}
}

// Verify reports whether addr has a confirmed host name matching one of masks (the bot
// catalogue's host masks: "*" stands for at most one character, "@" for one or more labels,
// "crawl-***-***-***-***.googlebot.com", "@.applebot.apple.com"). Without a cached answer
// it starts a lookup in the background, if the bounds allow, and returns DNSPending.
func (d *ReverseDNS) Verify(addr netip.Addr, masks []string) DNSStatus {
	addr = addr.Unmap()
	d.mu.Lock()
	if st, ok := d.answerLocked(addr, masks); ok {
		d.mu.Unlock()
		return st
	}
	shared := false
	if d.opts.Store != nil && d.inFlight[addr] == nil {
		d.mu.Unlock()
		st, claimed, ok := d.fromStore(addr, masks)
		if ok {
			return st
		}
		shared = claimed
		d.mu.Lock()
	}
	d.start(addr, shared)
	done := d.inFlight[addr]
	d.mu.Unlock()
	if d.opts.Wait <= 0 || done == nil {
		return DNSPending
	}
	t := time.NewTimer(d.opts.Wait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		return DNSPending
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if st, ok := d.answerLocked(addr, masks); ok {
		return st
	}
	return DNSPending
}

// answerLocked is the cached answer for addr, if there is one that has not expired: after a
// temporary failure, DNSPending until the retry is due (unless a name confirmed before the
// failure matches). d.mu is held.
func (d *ReverseDNS) answerLocked(addr netip.Addr, masks []string) (DNSStatus, bool) {
	ans, ok := d.cache[addr]
	if !ok || !d.opts.Now().Before(ans.expires) {
		return DNSPending, false
	}
	d.hits.Add(1)
	for _, n := range ans.names {
		for _, m := range masks {
			if MatchHostMask(m, n) {
				return DNSVerified, true
			}
		}
	}
	if ans.temporary {
		return DNSPending, true
	}
	return DNSFailed, true
}

// Wait blocks until the lookups in progress are done (tests, and callers that choose to wait
// for a first answer).
func (d *ReverseDNS) Wait() { d.wg.Wait() }

// Stats returns how many lookups were started, how many were not started because of the
// bounds, and how many answers came from the cache.
func (d *ReverseDNS) Stats() (started, dropped, cacheHits int64) {
	return d.started.Load(), d.dropped.Load(), d.hits.Load()
}

// TemporaryFailures returns how many lookups failed temporarily (each left its address
// pending and retried after a backoff).
func (d *ReverseDNS) TemporaryFailures() int64 { return d.temporary.Load() }

// start starts a lookup for addr unless one is running for it or its /64, or the
// bound is reached; shared: this instance claimed it in the store, where its definite answer
// goes. d.mu is held.
func (d *ReverseDNS) start(addr netip.Addr, shared bool) {
	keys := []netip.Addr{addr}
	if addr.Is6() {
		keys = append(keys, netip.PrefixFrom(addr, 64).Masked().Addr())
	}
	for _, k := range keys {
		if d.inFlight[k] != nil {
			if k != addr {
				d.dropped.Add(1) // another address of the /64 is being looked up
			}
			return
		}
	}
	if d.running >= d.opts.MaxInFlight {
		d.dropped.Add(1)
		return
	}
	done := make(chan struct{})
	for _, k := range keys {
		d.inFlight[k] = done
	}
	d.running++
	d.started.Add(1)
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		names, temporary := d.lookup(addr)
		if shared && !temporary {
			d.share(addr, names) // before the lock: a round trip
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		for _, k := range keys {
			delete(d.inFlight, k)
		}
		close(done)
		d.running--
		ans := dnsAnswer{names: names}
		switch {
		case temporary:
			// No verdict: retried after a backoff that doubles with each failure in a row,
			// so that a flood of requests does not hammer a resolver in trouble.
			d.temporary.Add(1)
			if prev, ok := d.cache[addr]; ok && prev.temporary {
				ans.failures = min(prev.failures+1, 30)
			}
			ans.temporary = true
			ans.expires = d.opts.Now().Add(d.backoff(ans.failures))
		case len(names) > 0:
			ans.expires = d.opts.Now().Add(d.opts.Positive)
		default:
			ans.expires = d.opts.Now().Add(d.opts.Negative)
		}
		d.putLocked(addr, ans)
	}()
}

// putLocked caches ans for addr, forgetting another answer if the cache is full. d.mu is
// held.
func (d *ReverseDNS) putLocked(addr netip.Addr, ans dnsAnswer) {
	if _, ok := d.cache[addr]; !ok && len(d.cache) >= d.opts.MaxEntries {
		for k := range d.cache { // forget one; map order is arbitrary
			delete(d.cache, k)
			break
		}
	}
	d.cache[addr] = ans
}

// backoff is the wait before the retry after n+1 temporary failures in a row: Retry doubled
// n times, at most MaxRetry.
func (d *ReverseDNS) backoff(n uint8) time.Duration {
	wait := d.opts.Retry
	for ; n > 0 && wait < d.opts.MaxRetry; n-- {
		wait *= 2
	}
	return min(wait, d.opts.MaxRetry)
}

// lookup returns the host names of addr that resolve back to it, and whether the answer is
// temporary: a lookup failed with anything but a definite not-found (a timeout, SERVFAIL, a
// refused or truncated answer, no network), so that a name it could not check might have
// been the operator's. Only a definite answer is a verdict.
func (d *ReverseDNS) lookup(addr netip.Addr) (names []string, temporary bool) {
	ctx, cancel := context.WithTimeout(context.Background(), d.opts.Timeout)
	defer cancel()
	ptrs, err := d.opts.Resolver.LookupAddr(ctx, addr.String())
	if err != nil {
		if notFound(err) {
			return nil, false
		}
		// Go's resolver may return the valid names of an answer with an error about the
		// others: check those, but the answer stays temporary.
		temporary = true
	}
	network := "ip4"
	if addr.Is6() {
		network = "ip6"
	}
	for i, name := range ptrs {
		if i == 8 {
			break // a PTR set this large is not a crawler operator's
		}
		name = strings.ToLower(strings.TrimSuffix(name, "."))
		// Rooted: a resolver's search list must not turn a failure for the name into a
		// not-found for the name with a local suffix.
		ips, err := d.opts.Resolver.LookupNetIP(ctx, network, name+".")
		if err != nil {
			temporary = temporary || !notFound(err)
			continue
		}
		for _, ip := range ips {
			if ip.Unmap() == addr {
				names = append(names, name)
				break
			}
		}
	}
	return names, temporary
}

// notFound reports whether a lookup's error is a definite answer that the name (or the
// address's PTR record) does not exist: NXDOMAIN or no record of the type. Any other error,
// a timeout included, is temporary.
func notFound(err error) bool {
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr) && dnsErr.IsNotFound && !dnsErr.IsTimeout && !dnsErr.IsTemporary
}

// MatchHostMask reports whether host matches a host mask of the bot catalogue,
// case-insensitively: "*" stands for at most one character other than ".", "@" at the start
// for one or more labels; a mask without them is the host name itself.
func MatchHostMask(mask, host string) bool {
	mask, host = strings.ToLower(mask), strings.ToLower(strings.TrimSuffix(host, "."))
	if rest, ok := strings.CutPrefix(mask, "@."); ok {
		i := strings.Index(host, ".")
		for i >= 0 {
			// host[:i] is the labels "@" stands for: one or more, none empty.
			if i > 0 && host[0] != '.' && !strings.Contains(host[:i+1], "..") && matchStars(rest, host[i+1:]) {
				return true
			}
			j := strings.Index(host[i+1:], ".")
			if j < 0 {
				break
			}
			i += 1 + j
		}
		return false
	}
	return matchStars(mask, host)
}

// matchStars matches "*" as at most one character other than "."; a run of k stars takes
// from none to k characters.
func matchStars(mask, s string) bool {
	i := strings.IndexByte(mask, '*')
	if i < 0 {
		return mask == s
	}
	if len(s) < i || mask[:i] != s[:i] {
		return false
	}
	mask, s = mask[i:], s[i:]
	k := 0
	for k < len(mask) && mask[k] == '*' {
		k++
	}
	rest := mask[k:]
	for n := 0; n <= k && n <= len(s); n++ {
		if n > 0 && s[n-1] == '.' {
			break
		}
		if matchStars(rest, s[n:]) {
			return true
		}
	}
	return false
}
