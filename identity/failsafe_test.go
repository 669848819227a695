package identity_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"

	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/identity/dnstest"
)

// raceEnabled is set when the tests are built with the race detector (race_test.go): the
// property tests then run fewer cases.
var raceEnabled bool

// clock is a settable clock for the Lists and the ReverseDNS of a test.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// googlebotDNS is a DNS server on loopback where 66.249.66.1 is Googlebot's (its PTR name
// resolves back to it), and a ReverseDNS asking it with a short timeout and a settable clock.
func googlebotDNS(t *testing.T) (*dnstest.Server, *identity.ReverseDNS, *clock, netip.Addr) {
	t.Helper()
	srv := dnstest.NewServer(t)
	a := netip.MustParseAddr("66.249.66.1")
	srv.SetPTR(a, "crawl-66-249-66-1.googlebot.com")
	srv.SetAddrs("crawl-66-249-66-1.googlebot.com", a)
	srv.SetDelay(3 * time.Second)
	c := newClock()
	d := identity.NewReverseDNS(identity.DNSOptions{Resolver: srv.Resolver(), Timeout: time.Second, Now: c.Now, Retry: 5 * time.Second, MaxRetry: time.Minute})
	return srv, d, c, a
}

// settled is the server's count of queries once no query has come for 100ms (the last ones a
// resolver sent may still be on their way when its lookup returns).
func settled(srv *dnstest.Server) int64 {
	n := srv.Queries()
	for {
		time.Sleep(100 * time.Millisecond)
		m := srv.Queries()
		if m == n {
			return n
		}
		n = m
	}
}

// eventuallyVerified looks a up until it is verified, advancing the clock past the backoff
// between tries (a lookup a loaded machine makes time out is a temporary failure too).
func eventuallyVerified(t *testing.T, d *identity.ReverseDNS, c *clock, a netip.Addr, masks []string) {
	t.Helper()
	for range 5 {
		d.Verify(a, masks)
		d.Wait()
		if d.Verify(a, masks) == identity.DNSVerified {
			return
		}
		c.Add(time.Minute)
	}
	t.Errorf("%s not verified once the resolver answers", a)
}

// onType applies fault to the queries of one type, answering the others.
func onType(typ dnsmessage.Type, fault dnstest.Fault) func(dnstest.Query) dnstest.Fault {
	return func(q dnstest.Query) dnstest.Fault {
		if q.Type == typ {
			return fault
		}
		return dnstest.Answer
	}
}

// TestReverseDNSTemporaryIsNoVerdict: a real Googlebot address whose PTR or forward lookup
// meets a timeout, SERVFAIL, REFUSED, a truncated answer or a slow one is pending, never
// failed; it is not looked up again before the backoff, however many requests come; and it
// is verified once the resolver answers. A truncated UDP answer that TCP completes, and a
// slow answer within the timeout, verify at once.
func TestReverseDNSTemporaryIsNoVerdict(t *testing.T) {
	for _, typ := range []dnsmessage.Type{dnsmessage.TypePTR, dnsmessage.TypeA} {
		for _, fault := range dnstest.Faults {
			t.Run(typ.String()+"/"+fault.String(), func(t *testing.T) {
				t.Parallel()
				srv, d, c, a := googlebotDNS(t)
				srv.SetFault(onType(typ, fault))
				if got := d.Verify(a, googleMasks); got != identity.DNSPending {
					t.Fatalf("first: %v", got)
				}
				d.Wait()
				got := d.Verify(a, googleMasks)
				if fault == dnstest.TruncateUDP {
					if got == identity.DNSFailed {
						t.Errorf("a truncated UDP answer completed over TCP: %v", got)
					}
					eventuallyVerified(t, d, c, a, googleMasks)
					return
				}
				if got != identity.DNSPending {
					t.Fatalf("after the lookup: %v, want pending", got)
				}
				if n := d.TemporaryFailures(); n != 1 {
					t.Errorf("%d temporary failures counted, want 1", n)
				}
				// A flood within the backoff asks the resolver nothing more.
				asked := settled(srv)
				for range 100 {
					if got := d.Verify(a, googleMasks); got != identity.DNSPending {
						t.Fatalf("within the backoff: %v", got)
					}
				}
				d.Wait()
				if n := settled(srv); n != asked {
					t.Errorf("%d queries within the backoff", n-asked)
				}
				srv.SetFault(nil)
				c.Add(5 * time.Second)
				eventuallyVerified(t, d, c, a, googleMasks)
			})
		}
	}
}

// TestReverseDNSDefinite: definite answers still fail an address: no PTR name (NXDOMAIN),
// a name outside the masks, a forward lookup that returns other addresses, none of the
// address's family, or NXDOMAIN; and the answer is kept for the negative TTL.
func TestReverseDNSDefinite(t *testing.T) {
	srv := dnstest.NewServer(t)
	other := netip.MustParseAddr("66.249.66.200")
	cases := map[string]netip.Addr{}
	add := func(name, addr string, ptr []string, forward map[string][]netip.Addr) {
		a := netip.MustParseAddr(addr)
		cases[name] = a
		srv.SetPTR(a, ptr...)
		for n, f := range forward {
			srv.SetAddrs(n, f...)
		}
	}
	add("nxdomain", "203.0.113.1", nil, nil)
	add("outside the masks", "203.0.113.2", []string{"crawl-203-0-113-2.example.net"}, map[string][]netip.Addr{"crawl-203-0-113-2.example.net": {netip.MustParseAddr("203.0.113.2")}})
	add("forward elsewhere", "203.0.113.3", []string{"crawl-66-249-66-200.googlebot.com"}, map[string][]netip.Addr{"crawl-66-249-66-200.googlebot.com": {other}})
	add("forward nxdomain", "203.0.113.4", []string{"crawl-203-0-113-4.googlebot.com"}, nil)
	add("forward other family", "203.0.113.5", []string{"crawl-203-0-113-5.googlebot.com"}, map[string][]netip.Addr{"crawl-203-0-113-5.googlebot.com": {netip.MustParseAddr("2001:db8::5")}})
	add("ipv6 nxdomain", "2001:db8::1", nil, nil)
	c := newClock()
	d := identity.NewReverseDNS(identity.DNSOptions{Resolver: srv.Resolver(), Timeout: 5 * time.Second, Now: c.Now, Negative: time.Hour})
	for name, a := range cases {
		d.Verify(a, googleMasks)
		d.Wait()
		if got := d.Verify(a, googleMasks); got != identity.DNSFailed {
			t.Errorf("%s (%s): %v, want failed", name, a, got)
		}
	}
	if n := d.TemporaryFailures(); n != 0 {
		t.Errorf("%d temporary failures for definite answers", n)
	}
	asked := settled(srv)
	c.Add(59 * time.Minute)
	for _, a := range cases {
		d.Verify(a, googleMasks)
	}
	d.Wait()
	if settled(srv) != asked {
		t.Error("a definite answer asked again within the negative TTL")
	}
}

// TestReverseDNSPartial: of two PTR names, one confirmed outside the masks and Google's whose
// forward lookup fails temporarily, the answer is pending, not failed; a confirmed name that
// matches verifies even while the other's lookup fails.
func TestReverseDNSPartial(t *testing.T) {
	srv, d, c, a := googlebotDNS(t)
	srv.SetPTR(a, "host.example.net", "crawl-66-249-66-1.googlebot.com")
	srv.SetAddrs("host.example.net", a)
	srv.SetFault(func(q dnstest.Query) dnstest.Fault {
		if q.Name == "crawl-66-249-66-1.googlebot.com." {
			return dnstest.ServFail
		}
		return dnstest.Answer
	})
	d.Verify(a, googleMasks)
	d.Wait()
	if got := d.Verify(a, googleMasks); got != identity.DNSPending {
		t.Fatalf("Google's name unconfirmed for now: %v, want pending", got)
	}
	if got := d.Verify(a, []string{"@.example.net"}); got != identity.DNSVerified {
		t.Errorf("the confirmed name's own mask: %v, want verified", got)
	}
	srv.SetFault(nil)
	c.Add(5 * time.Second)
	eventuallyVerified(t, d, c, a, googleMasks)
}

// TestReverseDNSBackoff: the retries after temporary failures in a row wait Retry, then
// twice as long each time, up to MaxRetry; a definite answer ends the backoff.
func TestReverseDNSBackoff(t *testing.T) {
	srv, d, c, a := googlebotDNS(t)
	srv.SetFault(func(dnstest.Query) dnstest.Fault { return dnstest.ServFail })
	lookups := func() int64 { st, _, _ := d.Stats(); return st }
	for i, wait := range []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second, time.Minute, time.Minute} {
		d.Verify(a, googleMasks)
		d.Wait()
		n := lookups()
		c.Add(wait - time.Millisecond)
		d.Verify(a, googleMasks)
		d.Wait()
		if lookups() != n {
			t.Fatalf("failure %d: retried before %v", i+1, wait)
		}
		c.Add(time.Millisecond)
		if got := d.Verify(a, googleMasks); got != identity.DNSPending {
			t.Fatalf("failure %d: %v", i+1, got)
		}
		d.Wait()
		if lookups() != n+1 {
			t.Fatalf("failure %d: not retried after %v", i+1, wait)
		}
	}
	if n := d.TemporaryFailures(); n != 7 {
		t.Errorf("%d temporary failures, want 7", n)
	}
}

// flakyResolver fails every lookup with err.
type flakyResolver struct{ err error }

func (f flakyResolver) LookupAddr(context.Context, string) ([]string, error) { return nil, f.err }
func (f flakyResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return nil, f.err
}

// TestReverseDNSErrorKinds: only a DNS error saying not found is a definite answer; a
// timeout, a temporary error, a context deadline or any other error leaves the address
// pending; the temporary answers are bounded by MaxEntries like the others.
func TestReverseDNSErrorKinds(t *testing.T) {
	for _, c := range []struct {
		err  error
		want identity.DNSStatus
	}{
		{&net.DNSError{Err: "no such host", IsNotFound: true}, identity.DNSFailed},
		{&net.DNSError{Err: "i/o timeout", IsTimeout: true}, identity.DNSPending},
		{&net.DNSError{Err: "server misbehaving", IsTemporary: true}, identity.DNSPending},
		{&net.DNSError{Err: "server misbehaving"}, identity.DNSPending},
		{context.DeadlineExceeded, identity.DNSPending},
		{&net.OpError{Op: "dial", Err: errors.New("connection refused")}, identity.DNSPending},
		{errors.New("no such host"), identity.DNSPending}, // not a DNS error: not proven
	} {
		d := identity.NewReverseDNS(identity.DNSOptions{Resolver: flakyResolver{c.err}, MaxEntries: 10})
		for i := range 50 {
			d.Verify(netip.AddrFrom4([4]byte{192, 0, 2, byte(i)}), googleMasks)
			d.Wait()
		}
		answered := 0
		for i := range 50 {
			a := netip.AddrFrom4([4]byte{192, 0, 2, byte(i)})
			got := d.Verify(a, googleMasks)
			if got == identity.DNSVerified || got == identity.DNSFailed && c.want != identity.DNSFailed {
				t.Errorf("%v: %s %v", c.err, a, got)
			}
			if got == c.want {
				answered++
			}
		}
		d.Wait()
		if c.want == identity.DNSFailed && (answered == 0 || answered > 10) {
			t.Errorf("%v: %d answers kept with MaxEntries 10", c.err, answered)
		}
	}
}
