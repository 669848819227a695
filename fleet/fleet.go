// Package fleet is the state that the instances of a fleet (several servers behind one load
// balancer) share, so that they behave as one site: the crawl-delay budgets, the rate limit
// of the violation and refusal logs, the nonces of Web Bot Auth signatures, and the verdicts
// of reverse-DNS verification ([docs/fleet.md]).
//
// A nil Store is the default: each of these is kept in the process, as it always was
// (package serve's budgets and log limits, webbotauth.Nonces, identity.ReverseDNS's cache).
// A Store shares them; the module github.com/sitepolicy/caddy-robots/redisstore is one, on
// Redis (or Valkey), kept in a module of its own so that an application that does not use
// it does not download a Redis client.
//
// Every method is one decision, made atomically by the store (no read-modify-write between
// instances), and may fail: the store is down, slow (each call is bounded by the store's
// timeout) or backing off after a failure (ErrUnavailable). The callers then fall back, each
// as docs/fleet.md says: crawl-delay serves the request, the log limits and the nonces use
// the process's own state, reverse DNS looks up in the process. A Store counts those
// failures in its Stats, which package metrics exposes.
//
// [docs/fleet.md]: https://github.com/sitepolicy/caddy-robots/blob/main/docs/fleet.md
package fleet

import (
	"context"
	"errors"
	"net/netip"
	"sync/atomic"
	"time"
)

// Store is the state the instances of a fleet share. Its methods are safe for concurrent use
// and return within the store's timeout.
type Store interface {
	// TakeDelay serves a request from the crawl-delay budget key (a crawler's name, verified
	// and unverified requests apart: serve makes the key) if delay has passed since the last
	// request it served, and then starts delay again; otherwise it reports how long until the
	// next is served. A request is refused only within delay of the last one served: a budget
	// kept for a longer delay (the config changed) serves it.
	TakeDelay(ctx context.Context, key string, delay time.Duration) (wait time.Duration, limited bool, err error)
	// AllowLog reports whether the log line of key (a crawler, or a crawler and a kind of
	// refusal) may be written now: the first burst lines of each interval, counted from the
	// first; then none until the next interval, whose first line is told how many were left
	// out (suppressed).
	AllowLog(ctx context.Context, key string, burst int, interval time.Duration) (suppressed int, ok bool, err error)
	// AddNonce records the hash of a signature's nonce (webbotauth.NonceHash) until the
	// instant until, in the partition of trusted signatures or of the others, each holding at
	// most max unexpired nonces. It returns NonceSeen for a nonce recorded before, NonceFull
	// when the partition has no room (a nonce not recorded is one a replay would pass).
	AddNonce(ctx context.Context, hash [16]byte, trusted bool, until time.Time, max int) (NonceResult, error)
	// DNSVerdict returns the fleet's verdict of reverse DNS for addr, if an instance stored
	// one that has not expired. Without one, it claims addr's lookup for this instance for
	// claim (Claimed: look it up and PutDNSVerdict the answer), unless another instance holds
	// the claim (neither Found nor Claimed: its verdict will be there soon).
	DNSVerdict(ctx context.Context, addr netip.Addr, claim time.Duration) (DNSAnswer, error)
	// PutDNSVerdict stores the verdict of a lookup of addr, a definite answer only (the
	// confirmed host names, none for a definite no), for ttl, and releases the claim. The
	// store keeps at most max unexpired verdicts: beyond, the verdict is not stored (the
	// instance keeps it, and others look the address up themselves).
	PutDNSVerdict(ctx context.Context, addr netip.Addr, names []string, ttl time.Duration, max int) error
	// Stats are the store's counts of the calls that failed or were not tried.
	Stats() *Stats
}

// NonceResult is what AddNonce did with a nonce.
type NonceResult uint8

const (
	// NonceAdded: the nonce is new, and recorded.
	NonceAdded NonceResult = iota
	// NonceSeen: the nonce was recorded before and has not expired: a replay.
	NonceSeen
	// NonceFull: the partition is full of unexpired nonces; the nonce is not recorded.
	NonceFull
)

// DNSAnswer is a Store's answer about an address's reverse DNS.
type DNSAnswer struct {
	// Found: a verdict is stored, Names its confirmed host names (none: a definite no),
	// kept for TTL more.
	Found bool
	Names []string
	TTL   time.Duration
	// Claimed: no verdict is stored, and this instance now holds the address's lookup.
	Claimed bool
}

// ErrUnavailable is the error of a call a Store did not try: it is backing off after a
// failure, so that requests do not each wait the timeout while the store is down.
var ErrUnavailable = errors.New("fleet: the store is unavailable (backing off after a failure)")

// Op is the kind of decision a Store makes, which its Stats count by.
type Op uint8

const (
	OpCrawlDelay Op = iota // TakeDelay
	OpLogLimit             // AllowLog
	OpNonce                // AddNonce
	OpDNS                  // DNSVerdict and PutDNSVerdict
	numOps
)

var opNames = [numOps]string{"crawl_delay", "log_limit", "nonce", "reverse_dns"}

// String is the op's label value: "crawl_delay", "log_limit", "nonce", "reverse_dns".
func (o Op) String() string { return opNames[o] }

// Reason is why a call fell back.
type Reason uint8

const (
	// Failed: the call was made and failed (an error, or the timeout).
	Failed Reason = iota
	// Skipped: the call was not made (ErrUnavailable): the store is backing off.
	Skipped
	numReasons
)

var reasonNames = [numReasons]string{"error", "backoff"}

// String is the reason's label value: "error", "backoff".
func (r Reason) String() string { return reasonNames[r] }

// Stats count a Store's calls that fell back, by operation and reason: each is a decision
// made with the process's own state (or, for crawl-delay, a request served). The zero value
// is ready; it is safe for concurrent use.
type Stats struct {
	fallbacks [numOps][numReasons]atomic.Uint64
}

// Fallback counts one call of op that fell back for reason r.
func (s *Stats) Fallback(op Op, r Reason) { s.fallbacks[op][r].Add(1) }

// Fallbacks returns how many calls of op fell back for reason r.
func (s *Stats) Fallbacks(op Op, r Reason) uint64 { return s.fallbacks[op][r].Load() }

// Each calls f for every operation and reason counted at least once, in a fixed order.
func (s *Stats) Each(f func(op Op, r Reason, n uint64)) {
	for o := range numOps {
		for r := range numReasons {
			if n := s.fallbacks[o][r].Load(); n != 0 {
				f(o, r, n)
			}
		}
	}
}
