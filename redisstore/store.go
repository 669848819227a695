// Package redisstore is a fleet.Store on Redis (or Valkey, or any server speaking its
// protocol with Lua scripts): the instances of a fleet that name the same server and key
// prefix share their crawl-delay budgets, violation and refusal log limits, Web Bot Auth
// nonces and reverse-DNS verdicts (docs/fleet.md).
//
// Each decision is one round trip: a Lua script run with EVALSHA (EVAL once after the
// server forgot it), atomic on the server, timed by the server's clock (its TIME, and its key
// expiry), so that the instances' clocks do not matter. Each call is bounded by
// Options.Timeout; after a failure the store is not asked for Options.Backoff, so that an
// outage costs one timeout per Backoff, not one per request.
//
// It is a module of its own, github.com/sitepolicy/caddy-robots/redisstore, so that a
// program that does not use it does not download the Redis client.
package redisstore

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"github.com/sitepolicy/caddy-robots/fleet"
)

// Store is a fleet.Store on a Redis server. It is safe for concurrent use; Close it when it
// is no longer used.
type Store struct {
	client  *redis.Client
	prefix  string
	timeout time.Duration
	backoff time.Duration
	log     *slog.Logger
	stats   fleet.Stats

	base time.Time // the monotonic clock's origin for retryAt
	// retryAt is when the store is asked again after a failure (nanoseconds since base); 0
	// when the last call succeeded.
	retryAt atomic.Int64
	// down is set from a failure until a call succeeds again (for the log lines).
	down atomic.Bool

	logMu   sync.Mutex
	lastLog time.Time
	muted   int // failures not logged since lastLog
}

var _ fleet.Store = (*Store)(nil)

// New returns a Store of the server opts names. It does not connect: the first decision
// does (and a server that is down is an outage like any other, not an error here). The
// error names the option at fault by its JSON name.
func New(opts Options) (*Store, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	tc, err := o.tlsConfig()
	if err != nil {
		return nil, err
	}
	timeout := time.Duration(o.Timeout)
	network := "tcp"
	if strings.HasPrefix(o.Address, "/") {
		network = "unix"
	}
	c := redis.NewClient(&redis.Options{
		Network: network, Addr: o.Address, Username: o.Username, Password: o.Password, DB: o.DB,
		TLSConfig:   tc,
		DialTimeout: time.Duration(o.DialTimeout),
		// Each decision is bounded by its context (Timeout): no retry may make it longer.
		ReadTimeout: timeout, WriteTimeout: timeout, PoolTimeout: timeout,
		ContextTimeoutEnabled: true,
		MaxRetries:            -1,
		DialerRetries:         1,
		DialerRetryTimeout:    10 * time.Millisecond,
		// Nothing on connect but what logging in needs.
		DisableIdentity:          true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Store{client: c, prefix: o.KeyPrefix, timeout: timeout, backoff: time.Duration(o.Backoff), log: log, base: time.Now()}, nil
}

// Close closes the connections.
func (s *Store) Close() error { return s.client.Close() }

// Stats are the counts of calls that fell back (fleet.Stats).
func (s *Store) Stats() *fleet.Stats { return &s.stats }

// Ping asks the server for PONG within the timeout: for a health check, or to fail early at
// start-up.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	return s.client.Ping(ctx).Err()
}

// The scripts. Each is one atomic decision on the server.
var (
	// takeDelay: KEYS[1] the budget; ARGV[1] the delay in ms. The key exists while a
	// request served holds the budget, and expires (by the server's clock) when the next is
	// due. Returns 0 when served, else the ms to wait.
	takeDelay = redis.NewScript(`
local d = tonumber(ARGV[1])
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', d) then return 0 end
local t = redis.call('PTTL', KEYS[1])
if t <= 0 or t > d then
  redis.call('SET', KEYS[1], '1', 'PX', d)
  return 0
end
return t`)
	// allowLog: KEYS[1] the interval's count, KEYS[2] the lines left out since the last
	// logged; ARGV[1] the burst, ARGV[2] the interval in ms, ARGV[3] how long KEYS[2] is
	// kept. Returns -1 when the line is left out, else how many were left out before it.
	allowLog = redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if n > tonumber(ARGV[1]) then
  redis.call('INCR', KEYS[2])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  return -1
end
local s = redis.call('GETDEL', KEYS[2])
if s then return tonumber(s) end
return 0`)
	// addNonce: KEYS[1] the partition, a sorted set of hashes by the Unix second they are
	// kept until; ARGV[1] the hash, ARGV[2] until, ARGV[3] the partition's bound. Expired
	// entries go first (by the server's TIME); the set itself expires with its last entry.
	// Returns 0 added, 1 seen, 2 full.
	addNonce = redis.NewScript(`
local now = tonumber(redis.call('TIME')[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 2 end
local u = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], u, ARGV[1])
local ttl = u - now + 1
if ttl > 0 and redis.call('TTL', KEYS[1]) < ttl then redis.call('EXPIRE', KEYS[1], ttl) end
return 0`)
	// dnsVerdict: KEYS[1] the verdict, KEYS[2] the lookup's claim; ARGV[1] the claim's ms.
	// Returns {1, names, ttl ms} for a verdict, {2} when this instance claimed the lookup,
	// {0} when another holds the claim.
	dnsVerdict = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then return {1, v, redis.call('PTTL', KEYS[1])} end
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[1]) then return {2} end
return {0}`)
	// putDNS: KEYS[1] the verdict, KEYS[2] the claim, KEYS[3] the index of verdicts, a sorted
	// set of addresses by the Unix ms they expire (the server's TIME); ARGV[1] the address,
	// ARGV[2] the names, ARGV[3] the ms, ARGV[4] the bound. Returns 1 when stored, 0 when the
	// index is full of unexpired verdicts.
	putDNS = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ms = tonumber(ARGV[3])
redis.call('DEL', KEYS[2])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. now)
if not redis.call('ZSCORE', KEYS[3], ARGV[1]) and redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ms)
redis.call('ZADD', KEYS[3], now + ms, ARGV[1])
if redis.call('PTTL', KEYS[3]) < ms then redis.call('PEXPIRE', KEYS[3], ms) end
return 1`)
)

// suppressedTTL is how long the count of log lines left out is kept without a line logged.
const suppressedTTL = 24 * time.Hour

// call runs one decision within the timeout, unless the store is backing off.
func (s *Store) call(ctx context.Context, op fleet.Op, script *redis.Script, keys []string, args ...any) (any, error) {
	if at := s.retryAt.Load(); at != 0 && int64(time.Since(s.base)) < at {
		s.stats.Fallback(op, fleet.Skipped)
		return nil, fleet.ErrUnavailable
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	v, err := script.Run(ctx, s.client, keys, args...).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		s.failed(op, err)
		return nil, err
	}
	if s.retryAt.Load() != 0 {
		s.retryAt.Store(0)
	}
	if s.down.Load() && s.down.CompareAndSwap(true, false) {
		s.log.Info("fleet store: answering again", "address", s.client.Options().Addr)
	}
	return v, nil
}

// failed counts a failed call, starts the backoff and logs, at most once per LogInterval.
func (s *Store) failed(op fleet.Op, err error) {
	s.stats.Fallback(op, fleet.Failed)
	s.retryAt.Store(int64(time.Since(s.base) + s.backoff))
	s.down.Store(true)
	s.logMu.Lock()
	defer s.logMu.Unlock()
	if now := time.Now(); s.lastLog.IsZero() || now.Sub(s.lastLog) >= LogInterval {
		s.log.Warn("fleet store: a call failed; falling back to this instance's state (docs/fleet.md)",
			"operation", op.String(), "error", err.Error(), "address", s.client.Options().Addr,
			"backoff", s.backoff.String(), "failures_not_logged", s.muted)
		s.lastLog, s.muted = now, 0
		return
	}
	s.muted++
}

// TakeDelay implements fleet.Store.
func (s *Store) TakeDelay(ctx context.Context, key string, delay time.Duration) (time.Duration, bool, error) {
	ms := max(1, (delay+time.Millisecond-1)/time.Millisecond)
	v, err := s.call(ctx, fleet.OpCrawlDelay, takeDelay, []string{s.prefix + "delay:" + key}, int64(ms))
	if err != nil {
		return 0, false, err
	}
	wait, _ := v.(int64)
	if wait <= 0 {
		return 0, false, nil
	}
	return time.Duration(wait) * time.Millisecond, true, nil
}

// AllowLog implements fleet.Store.
func (s *Store) AllowLog(ctx context.Context, key string, burst int, interval time.Duration) (int, bool, error) {
	k := s.prefix + "log:{" + key + "}"
	v, err := s.call(ctx, fleet.OpLogLimit, allowLog, []string{k, k + ":suppressed"}, burst, interval.Milliseconds(), suppressedTTL.Milliseconds())
	if err != nil {
		return 0, false, err
	}
	n, _ := v.(int64)
	if n < 0 {
		return 0, false, nil
	}
	return int(n), true, nil
}

// AddNonce implements fleet.Store.
func (s *Store) AddNonce(ctx context.Context, hash [16]byte, trusted bool, until time.Time, maxNonces int) (fleet.NonceResult, error) {
	k := s.prefix + "nonces:untrusted"
	if trusted {
		k = s.prefix + "nonces:trusted"
	}
	v, err := s.call(ctx, fleet.OpNonce, addNonce, []string{k}, string(hash[:]), until.Unix(), maxNonces)
	if err != nil {
		return 0, err
	}
	n, _ := v.(int64)
	return fleet.NonceResult(n), nil
}

// DNSVerdict implements fleet.Store.
func (s *Store) DNSVerdict(ctx context.Context, addr netip.Addr, claim time.Duration) (fleet.DNSAnswer, error) {
	a := addr.Unmap().String()
	v, err := s.call(ctx, fleet.OpDNS, dnsVerdict, []string{s.prefix + "dns:" + a, s.prefix + "dns-lookup:" + a}, max(1, claim.Milliseconds()))
	if err != nil {
		return fleet.DNSAnswer{}, err
	}
	r, _ := v.([]any)
	if len(r) == 0 {
		return fleet.DNSAnswer{}, errors.New("redisstore: unexpected reply to the reverse-DNS script")
	}
	switch r[0] {
	case int64(1):
		if len(r) < 3 {
			return fleet.DNSAnswer{}, errors.New("redisstore: unexpected reply to the reverse-DNS script")
		}
		names, _ := r[1].(string)
		ttl, _ := r[2].(int64)
		ans := fleet.DNSAnswer{Found: true, TTL: time.Duration(max(ttl, 0)) * time.Millisecond}
		if names != "" {
			ans.Names = strings.Fields(names)
		}
		return ans, nil
	case int64(2):
		return fleet.DNSAnswer{Claimed: true}, nil
	}
	return fleet.DNSAnswer{}, nil
}

// PutDNSVerdict implements fleet.Store.
func (s *Store) PutDNSVerdict(ctx context.Context, addr netip.Addr, names []string, ttl time.Duration, maxVerdicts int) error {
	a := addr.Unmap().String()
	_, err := s.call(ctx, fleet.OpDNS, putDNS, []string{s.prefix + "dns:" + a, s.prefix + "dns-lookup:" + a, s.prefix + "dns-index"},
		a, strings.Join(names, " "), max(1, ttl.Milliseconds()), maxVerdicts)
	return err
}
