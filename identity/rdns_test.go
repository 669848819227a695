package identity_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/identity"
)

// fakeDNS answers PTR and forward lookups from maps (forward by name without the final
// dot), a name missing from them with a definite not-found; gate, if set, holds every lookup
// until it is closed.
type fakeDNS struct {
	ptr     map[string][]string
	forward map[string][]netip.Addr
	gate    chan struct{}
	lookups atomic.Int32
}

func (f *fakeDNS) LookupAddr(ctx context.Context, addr string) ([]string, error) {
	f.lookups.Add(1)
	if f.gate != nil {
		<-f.gate
	}
	if names, ok := f.ptr[addr]; ok {
		return names, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: addr, IsNotFound: true}
}

func (f *fakeDNS) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if !strings.HasSuffix(host, ".") {
		return nil, errors.New("a forward lookup of a name that is not rooted: a search list could turn its failure into a not-found")
	}
	if ips, ok := f.forward[strings.TrimSuffix(host, ".")]; ok {
		return ips, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

var googleMasks = []string{"crawl-***-***-***-***.googlebot.com", "geo-crawl-***-***-***-***.geo.googlebot.com"}

func TestReverseDNSForwardConfirmed(t *testing.T) {
	dns := &fakeDNS{
		ptr: map[string][]string{
			"66.249.66.1":          {"crawl-66-249-66-1.googlebot.com."},
			"203.0.113.5":          {"crawl-66-249-66-1.googlebot.com."}, // claims Google's name; its forward lookup says otherwise
			"198.51.100.7":         {"host.example.net."},
			"2001:4860:4801:10::1": {"crawl-2001-4860-4801-10--1.googlebot.com."},
		},
		forward: map[string][]netip.Addr{
			"crawl-66-249-66-1.googlebot.com": {netip.MustParseAddr("66.249.66.1")},
			"host.example.net":                {netip.MustParseAddr("198.51.100.7")},
		},
	}
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	d := identity.NewReverseDNS(identity.DNSOptions{Resolver: dns, Now: func() time.Time { return now }, Negative: time.Hour, Positive: 24 * time.Hour})
	for _, c := range []struct {
		addr        string
		first, want identity.DNSStatus
	}{
		{"66.249.66.1", identity.DNSPending, identity.DNSVerified},
		{"::ffff:66.249.66.1", identity.DNSVerified, identity.DNSVerified}, // the IPv4 address's answer
		{"203.0.113.5", identity.DNSPending, identity.DNSFailed},
		{"198.51.100.7", identity.DNSPending, identity.DNSFailed},
		{"192.0.2.1", identity.DNSPending, identity.DNSFailed},            // no PTR
		{"2001:4860:4801:10::1", identity.DNSPending, identity.DNSFailed}, // no forward record
	} {
		a := netip.MustParseAddr(c.addr)
		if got := d.Verify(a, googleMasks); got != c.first {
			t.Errorf("%s: first answer %v, want %v (no lookup during a request)", c.addr, got, c.first)
		}
		d.Wait()
		if got := d.Verify(a, googleMasks); got != c.want {
			t.Errorf("%s: %v, want %v", c.addr, got, c.want)
		}
	}
	// Answers expire: negative after an hour, positive after a day.
	n := dns.lookups.Load()
	now = now.Add(2 * time.Hour)
	if d.Verify(netip.MustParseAddr("66.249.66.1"), googleMasks) != identity.DNSVerified || d.Verify(netip.MustParseAddr("192.0.2.1"), googleMasks) != identity.DNSPending {
		t.Error("after two hours the positive answer must hold and the negative one be asked again")
	}
	d.Wait()
	if dns.lookups.Load() != n+1 {
		t.Errorf("%d lookups after expiry, want 1", dns.lookups.Load()-n)
	}
}

// TestReverseDNSBounded: a flood of distinct addresses claiming a crawler starts at most
// MaxInFlight lookups at once, one per address and per IPv6 /64; the rest are counted as
// dropped and stay pending.
func TestReverseDNSBounded(t *testing.T) {
	dns := &fakeDNS{gate: make(chan struct{})}
	d := identity.NewReverseDNS(identity.DNSOptions{Resolver: dns, MaxInFlight: 4})
	var wg sync.WaitGroup
	for i := range 1000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := netip.AddrFrom4([4]byte{198, 51, byte(i >> 8), byte(i)})
			if i%2 == 1 {
				a = netip.MustParseAddr("2001:db8::").Next() // 500 requests from one address
			}
			if got := d.Verify(a, googleMasks); got != identity.DNSPending {
				t.Errorf("%s: %v", a, got)
			}
		}()
	}
	wg.Wait()
	started, dropped, _ := d.Stats()
	if started != 4 || dns.lookups.Load() > 4 {
		t.Errorf("%d lookups started (%d asked) with MaxInFlight 4", started, dns.lookups.Load())
	}
	if dropped < 400 {
		t.Errorf("%d dropped", dropped)
	}
	close(dns.gate)
	d.Wait()
	// One address of a /64 at a time.
	dns2 := &fakeDNS{gate: make(chan struct{})}
	d2 := identity.NewReverseDNS(identity.DNSOptions{Resolver: dns2})
	for i := range 100 {
		a := netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, byte(i + 1)})
		d2.Verify(a, googleMasks)
	}
	d2.Verify(netip.MustParseAddr("2001:db8:0:1::1"), googleMasks) // another /64
	if started, dropped, _ := d2.Stats(); started != 2 || dropped != 99 {
		t.Errorf("one /64: %d started, %d dropped; want 2 and 99", started, dropped)
	}
	close(dns2.gate)
	d2.Wait()
}

func TestReverseDNSCacheBounded(t *testing.T) {
	dns := &fakeDNS{}
	d := identity.NewReverseDNS(identity.DNSOptions{Resolver: dns, MaxEntries: 10})
	for i := range 50 {
		d.Verify(netip.AddrFrom4([4]byte{192, 0, 2, byte(i)}), googleMasks)
		d.Wait()
	}
	hitsBefore := 0
	for i := range 50 {
		if d.Verify(netip.AddrFrom4([4]byte{192, 0, 2, byte(i)}), googleMasks) != identity.DNSPending {
			hitsBefore++
		}
	}
	d.Wait()
	if hitsBefore > 10 {
		t.Errorf("%d answers kept with MaxEntries 10", hitsBefore)
	}
}

func TestMatchHostMask(t *testing.T) {
	for _, c := range []struct {
		mask, host string
		want       bool
	}{
		{"crawl-***-***-***-***.googlebot.com", "crawl-66-249-66-1.googlebot.com", true},
		{"crawl-***-***-***-***.googlebot.com", "CRAWL-66-249-66-1.GOOGLEBOT.COM.", true},
		{"crawl-***-***-***-***.googlebot.com", "crawl-66-249-66-1.googlebot.com.evil.example", false},
		{"crawl-***-***-***-***.googlebot.com", "crawl-6666-249-66-1.googlebot.com", false},
		{"crawl-***-***-***-***.googlebot.com", "crawl-66.249-66-1.googlebot.com", false},
		{"crawl-***-***-***-***.googlebot.com", "evilcrawl-66-249-66-1.googlebot.com", false},
		{"@.applebot.apple.com", "17-58-101-1.applebot.apple.com", true},
		{"@.applebot.apple.com", "a.b.applebot.apple.com", true},
		{"@.applebot.apple.com", "applebot.apple.com", false},
		{"@.applebot.apple.com", "xapplebot.apple.com", false},
		{"@.applebot.apple.com", "applebot.apple.com.evil.example", false},
		{"@.search.msn.com", "msnbot-157-55-39-1.search.msn.com", true},
		{"out.adyen.com", "out.adyen.com", true},
		{"out.adyen.com", "x.out.adyen.com", false},
	} {
		if got := identity.MatchHostMask(c.mask, c.host); got != c.want {
			t.Errorf("MatchHostMask(%q, %q) = %v", c.mask, c.host, got)
		}
	}
}

func BenchmarkVerifyCached(b *testing.B) {
	dns := &fakeDNS{
		ptr:     map[string][]string{"66.249.66.1": {"crawl-66-249-66-1.googlebot.com."}},
		forward: map[string][]netip.Addr{"crawl-66-249-66-1.googlebot.com": {netip.MustParseAddr("66.249.66.1")}},
	}
	d := identity.NewReverseDNS(identity.DNSOptions{Resolver: dns})
	a := netip.MustParseAddr("66.249.66.1")
	d.Verify(a, googleMasks)
	d.Wait()
	b.ReportAllocs()
	for b.Loop() {
		if d.Verify(a, googleMasks) != identity.DNSVerified {
			b.Fatal("not verified")
		}
	}
}

// FuzzMatchHostMask compares MatchHostMask with the mask written as a regular expression.
func FuzzMatchHostMask(f *testing.F) {
	f.Add("crawl-***-***-***-***.googlebot.com", "crawl-66-249-66-1.googlebot.com")
	f.Add("@.applebot.apple.com", "17-58-101-1.applebot.apple.com")
	f.Add("out.adyen.com", "out.adyen.com")
	f.Add("geo-crawl-***-***-***-***.geo.googlebot.com", "geo-crawl-1-2-3-4.geo.googlebot.com")
	f.Fuzz(func(t *testing.T, mask, host string) {
		if len(mask) > 64 || len(host) > 128 {
			return
		}
		for _, c := range []byte(mask + host) {
			if c == 0 || c >= 0x80 {
				return // host names and masks are ASCII; the expression reads UTF-8
			}
		}
		m, h := strings.ToLower(mask), strings.ToLower(strings.TrimSuffix(host, "."))
		var re strings.Builder
		re.WriteString("^")
		if rest, ok := strings.CutPrefix(m, "@."); ok {
			re.WriteString(`(?:[^.]+\.)+`)
			m = rest
		}
		for _, part := range strings.Split(m, "*") {
			re.WriteString(regexp.QuoteMeta(part))
			re.WriteString(`[^.]?`)
		}
		pattern := strings.TrimSuffix(re.String(), `[^.]?`) + "$"
		want := regexp.MustCompile(pattern).MatchString(h)
		if got := identity.MatchHostMask(mask, host); got != want {
			t.Fatalf("MatchHostMask(%q, %q) = %v, the expression %s says %v", mask, host, got, pattern, want)
		}
	})
}

// TestReverseDNSWait: with Wait, the first Verify of an address waits for the lookup it
// starts (or finds running) and answers with it; a lookup slower than Wait leaves it pending,
// and its answer serves the next call.
func TestReverseDNSWait(t *testing.T) {
	fake := &fakeDNS{
		ptr:     map[string][]string{"66.249.66.1": {"crawl-66-249-66-1.googlebot.com."}, "66.249.66.2": {"crawl-66-249-66-2.googlebot.com."}},
		forward: map[string][]netip.Addr{"crawl-66-249-66-1.googlebot.com": {netip.MustParseAddr("66.249.66.1")}, "crawl-66-249-66-2.googlebot.com": {netip.MustParseAddr("66.249.66.2")}},
	}
	d := identity.NewReverseDNS(identity.DNSOptions{Resolver: fake, Wait: 5 * time.Second})
	if got := d.Verify(netip.MustParseAddr("66.249.66.1"), googleMasks); got != identity.DNSVerified {
		t.Errorf("first request, waiting: %v, want verified", got)
	}
	if got := d.Verify(netip.MustParseAddr("203.0.113.7"), googleMasks); got != identity.DNSFailed {
		t.Errorf("first request from an address without host name, waiting: %v, want failed", got)
	}

	slow := &fakeDNS{ptr: fake.ptr, forward: fake.forward, gate: make(chan struct{})}
	d = identity.NewReverseDNS(identity.DNSOptions{Resolver: slow, Wait: 20 * time.Millisecond})
	a := netip.MustParseAddr("66.249.66.2")
	start := time.Now()
	if got := d.Verify(a, googleMasks); got != identity.DNSPending {
		t.Errorf("lookup slower than Wait: %v, want pending", got)
	}
	if waited := time.Since(start); waited > 2*time.Second {
		t.Errorf("waited %v, beyond Wait", waited)
	}
	close(slow.gate)
	d.Wait()
	if got := d.Verify(a, googleMasks); got != identity.DNSVerified {
		t.Errorf("after the answer: %v, want verified", got)
	}
	if n := slow.lookups.Load(); n != 1 {
		t.Errorf("%d lookups for one address, want 1", n)
	}
}
