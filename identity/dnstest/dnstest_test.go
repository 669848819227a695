package dnstest_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/identity/dnstest"
)

// TestServerAnswersAndFaults: Go's resolver reads the table's answers, and each fault as the
// error a real resolver in trouble gives: a timeout, a temporary error, never a not-found;
// only a name the table lacks is not found.
func TestServerAnswersAndFaults(t *testing.T) {
	srv := dnstest.NewServer(t)
	srv.SetDelay(3 * time.Second)
	a4, a6 := netip.MustParseAddr("66.249.66.1"), netip.MustParseAddr("2001:4860:4801:10::1")
	srv.SetPTR(a4, "crawl-66-249-66-1.googlebot.com")
	srv.SetPTR(a6, "crawl-2001-4860-4801-10--1.googlebot.com")
	srv.SetAddrs("crawl-66-249-66-1.googlebot.com", a4)
	r := srv.Resolver()
	lookup := func() ([]string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return r.LookupAddr(ctx, a4.String())
	}
	if names, err := lookup(); err != nil || len(names) != 1 || names[0] != "crawl-66-249-66-1.googlebot.com." {
		t.Fatalf("PTR: %v %v", names, err)
	}
	if names, err := r.LookupAddr(context.Background(), a6.String()); err != nil || len(names) != 1 {
		t.Errorf("IPv6 PTR: %v %v", names, err)
	}
	if ips, err := r.LookupNetIP(context.Background(), "ip4", "crawl-66-249-66-1.googlebot.com."); err != nil || len(ips) != 1 || ips[0] != a4 {
		t.Errorf("A: %v %v", ips, err)
	}
	var dnsErr *net.DNSError
	if _, err := r.LookupAddr(context.Background(), "192.0.2.1"); !errors.As(err, &dnsErr) || !dnsErr.IsNotFound {
		t.Errorf("a missing PTR: %v, want not found", err)
	}
	if _, err := r.LookupNetIP(context.Background(), "ip6", "crawl-66-249-66-1.googlebot.com."); !errors.As(err, &dnsErr) || !dnsErr.IsNotFound {
		t.Errorf("no AAAA record: %v, want not found", err)
	}
	for _, f := range dnstest.Faults {
		srv.SetFault(func(dnstest.Query) dnstest.Fault { return f })
		names, err := lookup()
		if f == dnstest.TruncateUDP {
			if err != nil || len(names) != 1 {
				t.Errorf("%v: %v %v, want the answer over TCP", f, names, err)
			}
			continue
		}
		if err == nil || errors.As(err, &dnsErr) && dnsErr.IsNotFound {
			t.Errorf("%v: %v %v, want an error that is not a not-found", f, names, err)
		}
	}
}

func TestReverseNameRoundTrip(t *testing.T) {
	srv := dnstest.NewServer(t)
	seen := make(chan netip.Addr, 1)
	srv.SetFault(func(q dnstest.Query) dnstest.Fault {
		seen <- q.Addr
		return dnstest.Answer
	})
	r := srv.Resolver()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 50 {
		var a netip.Addr
		if i%2 == 0 {
			a = netip.AddrFrom4([4]byte{byte(rng.IntN(256)), byte(rng.IntN(256)), byte(rng.IntN(256)), byte(rng.IntN(256))})
		} else {
			var b [16]byte
			for j := range b {
				b[j] = byte(rng.IntN(256))
			}
			a = netip.AddrFrom16(b)
		}
		if a.IsLoopback() || a.Is4In6() {
			continue
		}
		r.LookupAddr(context.Background(), a.String())
		if got := <-seen; got != a {
			t.Errorf("%s asked as %s (%s)", a, got, dnstest.ReverseName(a))
		}
	}
}
