// The allocation tests: the race detector changes allocation counts, so they skip under it
// (./test.sh runs them in its pass without -race).

package identity_test

import (
	"net/http/httptest"
	"net/netip"
	"os"
	"testing"

	"github.com/sitepolicy/caddy-robots/identity"
)

func TestContainsDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	body, err := os.ReadFile("testdata/googlebot.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := identity.ParsePrefixes("json", `$.prefixes[*]["ipv6Prefix","ipv4Prefix"]`, body)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"66.249.64.5", "8.8.8.8", "2001:4860:4801:10::1", "::ffff:66.249.64.1"} {
		a := netip.MustParseAddr(s)
		if n := testing.AllocsPerRun(100, func() { p.Contains(a) }); n != 0 {
			t.Errorf("Contains(%s) allocates %v times", s, n)
		}
	}
}

func TestVerifyCachedDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	dns := &fakeDNS{
		ptr:     map[string][]string{"66.249.66.1": {"crawl-66-249-66-1.googlebot.com."}},
		forward: map[string][]netip.Addr{"crawl-66-249-66-1.googlebot.com": {netip.MustParseAddr("66.249.66.1")}},
	}
	d := identity.NewReverseDNS(identity.DNSOptions{Resolver: dns})
	for _, s := range []string{"66.249.66.1", "192.0.2.1"} {
		a := netip.MustParseAddr(s)
		d.Verify(a, googleMasks)
		d.Wait()
		if n := testing.AllocsPerRun(100, func() { d.Verify(a, googleMasks) }); n != 0 {
			t.Errorf("Verify(%s) from the cache allocates %v times", s, n)
		}
	}
}

func TestIdentifyDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	v, _ := googleVerifier(t, true)
	for _, c := range []struct{ ua, addr string }{
		{googlebotUA, "66.249.64.5"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "203.0.113.9"},
	} {
		a := netip.MustParseAddr(c.addr)
		if n := testing.AllocsPerRun(100, func() { v.Identify(c.ua, a) }); n != 0 {
			t.Errorf("Identify(%q, %s) allocates %v times", c.ua, c.addr, n)
		}
	}
}

// TestIdentifierDoesNotAllocate: identifying a browser's request, and a crawler's (its
// address read from RemoteAddr), allocates nothing.
func TestIdentifierDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	f := &identity.Identifier{Verifier: identity.NewVerifier(nil, nil)}
	for _, ua := range []string{"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("User-Agent", ua)
		if n := testing.AllocsPerRun(100, func() { f.Identify(r) }); n != 0 {
			t.Errorf("%s: %v allocations", ua, n)
		}
	}
}
