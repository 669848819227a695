package redisstore

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/fleet"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/redisstore/redistest"
)

// newStore returns a Store of srv with a key prefix of the test's own.
func newStore(t testing.TB, srv *redistest.Server, opts Options) *Store {
	t.Helper()
	opts.Address = srv.Addr
	if opts.KeyPrefix == "" {
		opts.KeyPrefix = "test:" + t.Name() + ":"
	}
	if opts.Timeout == 0 {
		opts.Timeout = policy.Duration(2 * time.Second) // generous: a loaded 2-core box
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestStore checks each decision against a real redis-server, several instances (Stores)
// sharing it.
func TestStore(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()

	t.Run("crawl-delay", func(t *testing.T) {
		a, b := newStore(t, srv, Options{}), newStore(t, srv, Options{})
		wait, limited, err := a.TakeDelay(ctx, "u:GPTBot", time.Hour)
		if err != nil || limited || wait != 0 {
			t.Fatalf("first take: %v %v %v", wait, limited, err)
		}
		wait, limited, err = b.TakeDelay(ctx, "u:GPTBot", time.Hour)
		if err != nil || !limited || wait <= 0 || wait > time.Hour {
			t.Fatalf("second take on another instance: %v %v %v", wait, limited, err)
		}
		// Verified and unverified budgets are apart; a shorter delay (the config changed)
		// serves.
		if _, limited, _ := b.TakeDelay(ctx, "v:GPTBot", time.Hour); limited {
			t.Fatal("the verified budget was taken by an unverified request")
		}
		if _, limited, _ := b.TakeDelay(ctx, "u:GPTBot", time.Minute); limited {
			t.Fatal("a budget kept for a longer delay refused a request under a shorter one")
		}
	})

	t.Run("log-limit", func(t *testing.T) {
		a, b := newStore(t, srv, Options{}), newStore(t, srv, Options{})
		ok := 0
		for i := range 25 {
			st := a
			if i%2 == 1 {
				st = b
			}
			n, allowed, err := st.AllowLog(ctx, "v:gptbot", 10, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			if allowed {
				ok++
				if n != 0 {
					t.Fatalf("line %d: suppressed %d in the first interval", i, n)
				}
			}
		}
		if ok != 10 {
			t.Fatalf("the fleet logged %d lines in one interval, want 10", ok)
		}
		// A short interval: the next interval's first line counts the lines left out. The
		// twelve lines must fall in one interval, which a loaded machine may not manage: the
		// interval begins when the server reads the first, after start, so twelve lines
		// written in less than the interval since start are in one; otherwise try again
		// with another key.
		const interval = 200 * time.Millisecond
		key := ""
		for attempt := 0; key == ""; attempt++ {
			if attempt == 10 {
				t.Fatalf("12 lines not written within %v in 10 attempts", interval)
			}
			k, start, logged := fmt.Sprintf("r:bingbot:%d", attempt), time.Now(), 0
			for range 12 {
				if _, allowed, err := a.AllowLog(ctx, k, 10, interval); err != nil {
					t.Fatal(err)
				} else if allowed {
					logged++
				}
			}
			if time.Since(start) < interval {
				if logged != 10 {
					t.Fatalf("12 lines in one interval: %d logged, want 10", logged)
				}
				key = k
			}
		}
		for deadline := time.Now().Add(10 * time.Second); ; {
			n, allowed, err := b.AllowLog(ctx, key, 10, interval)
			if err != nil {
				t.Fatal(err)
			}
			if allowed {
				if n < 2 {
					t.Fatalf("the next interval's first line counts %d left out, want at least 2", n)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no new interval")
			}
			time.Sleep(10 * time.Millisecond)
		}
	})

	t.Run("nonces", func(t *testing.T) {
		a, b := newStore(t, srv, Options{}), newStore(t, srv, Options{})
		until := time.Now().Add(time.Hour)
		h := [16]byte{1}
		if r, err := a.AddNonce(ctx, h, true, until, 3); r != fleet.NonceAdded || err != nil {
			t.Fatalf("add: %v %v", r, err)
		}
		if r, _ := b.AddNonce(ctx, h, true, until, 3); r != fleet.NonceSeen {
			t.Fatalf("replay on another instance: %v, want seen", r)
		}
		if r, _ := b.AddNonce(ctx, h, false, until, 3); r != fleet.NonceAdded {
			t.Fatalf("the untrusted partition is apart: %v", r)
		}
		b.AddNonce(ctx, [16]byte{2}, true, until, 3)
		b.AddNonce(ctx, [16]byte{3}, true, until, 3)
		if r, _ := a.AddNonce(ctx, [16]byte{4}, true, until, 3); r != fleet.NonceFull {
			t.Fatalf("a fourth nonce in a partition of 3: %v, want full", r)
		}
		// Expired nonces make room (the server's clock: a second ago is expired).
		past := time.Now().Add(-2 * time.Second)
		c := newStore(t, srv, Options{KeyPrefix: "expiry:"})
		c.AddNonce(ctx, [16]byte{5}, true, past, 1)
		if r, _ := c.AddNonce(ctx, [16]byte{6}, true, until, 1); r != fleet.NonceAdded {
			t.Fatalf("an expired nonce kept its room: %v", r)
		}
	})

	t.Run("reverse-dns", func(t *testing.T) {
		a, b := newStore(t, srv, Options{}), newStore(t, srv, Options{})
		addr := netip.MustParseAddr("192.0.2.7")
		ans, err := a.DNSVerdict(ctx, addr, time.Minute)
		if err != nil || !ans.Claimed || ans.Found {
			t.Fatalf("first: %+v %v", ans, err)
		}
		if ans, _ := b.DNSVerdict(ctx, addr, time.Minute); ans.Claimed || ans.Found {
			t.Fatalf("another instance while the lookup is claimed: %+v", ans)
		}
		names := []string{"crawl-192-0-2-7.googlebot.com", "x.googlebot.com"}
		if err := a.PutDNSVerdict(ctx, addr, names, time.Hour, 2); err != nil {
			t.Fatal(err)
		}
		ans, _ = b.DNSVerdict(ctx, addr, time.Minute)
		if !ans.Found || !slices.Equal(ans.Names, names) || ans.TTL <= 59*time.Minute || ans.TTL > time.Hour {
			t.Fatalf("verdict: %+v", ans)
		}
		neg := netip.MustParseAddr("2001:db8::1")
		a.DNSVerdict(ctx, neg, time.Minute)
		a.PutDNSVerdict(ctx, neg, nil, time.Hour, 2)
		if ans, _ := b.DNSVerdict(ctx, neg, time.Minute); !ans.Found || ans.Names != nil {
			t.Fatalf("negative verdict: %+v", ans)
		}
		// The fleet keeps at most 2 verdicts here: a third is not stored, and its claim
		// is released so that another instance may look it up.
		third := netip.MustParseAddr("192.0.2.9")
		a.DNSVerdict(ctx, third, time.Minute)
		if err := a.PutDNSVerdict(ctx, third, nil, time.Hour, 2); err != nil {
			t.Fatal(err)
		}
		if ans, _ := b.DNSVerdict(ctx, third, time.Minute); ans.Found || !ans.Claimed {
			t.Fatalf("a verdict beyond the bound: %+v, want none stored and the lookup free to claim", ans)
		}
	})
}

// TestCrawlDelayRace races many goroutines on several clients for one budget: the fleet
// grants it once per delay, never twice.
func TestCrawlDelayRace(t *testing.T) {
	srv := redistest.Start(t)
	stores := []*Store{newStore(t, srv, Options{KeyPrefix: "race:"}), newStore(t, srv, Options{KeyPrefix: "race:"}), newStore(t, srv, Options{KeyPrefix: "race:"})}
	// The same size with the race detector: the module's tests all run with it (test.sh
	// compiles the module once), and 5 rounds of 24 take well under a second.
	rounds, workers := 5, 24
	for round := range rounds {
		var granted atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		key := "u:bot" + string(rune('a'+round))
		for i := range workers {
			wg.Go(func() {
				<-start
				_, limited, err := stores[i%len(stores)].TakeDelay(context.Background(), key, time.Hour)
				if err != nil {
					t.Error(err)
				}
				if !limited {
					granted.Add(1)
				}
			})
		}
		close(start)
		wg.Wait()
		if n := granted.Load(); n != 1 {
			t.Fatalf("round %d: %d of %d racing requests were granted the slot, want 1", round, n, workers)
		}
	}
}

// syncWriter serializes writes to w.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
