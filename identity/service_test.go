package identity_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
)

// TestSourcesOncePerURL: every list the catalogue names is in Sources once, with the format
// and selector every bot naming it gives (a URL shared with another reading would lose one).
func TestSourcesOncePerURL(t *testing.T) {
	byURL := map[string]identity.Source{}
	for _, s := range identity.Sources() {
		if _, dup := byURL[s.URL]; dup {
			t.Errorf("%s listed twice", s.URL)
		}
		byURL[s.URL] = s
	}
	for _, b := range crawlers.Bots() {
		for _, r := range b.Verification.IPRanges {
			s, ok := byURL[r.URL]
			if !ok {
				t.Errorf("%s: list %s missing from Sources", b.ID, r.URL)
			} else if s.Format != r.Format || s.Selector != r.Selector {
				t.Errorf("%s: list %s read as %s %s here, %s %s for another bot", b.ID, r.URL, r.Format, r.Selector, s.Format, s.Selector)
			}
		}
	}
	if len(byURL) == 0 {
		t.Fatal("no sources")
	}
}

// TestServiceLifecycle: nothing is read before Start; Start reads the local files once;
// Stop is safe without Start and twice; a stopped Service still identifies with what it had.
func TestServiceLifecycle(t *testing.T) {
	g, _ := crawlers.BotByID("google-crawler")
	newService := func() *identity.Service {
		return identity.NewService(identity.ServiceOptions{
			Lists: identity.ListsOptions{Local: map[string]string{g.Verification.IPRanges[0].URL: "testdata/googlebot.json"}, Log: quiet, Offline: true},
			NoDNS: true,
		})
	}
	inside := netip.MustParseAddr("66.249.64.5")
	outside := netip.MustParseAddr("203.0.113.9")

	never := newService()
	if got := never.Identify(googlebotUA, inside); got.Status != identity.Pending {
		t.Errorf("before Start: %+v, want pending", got)
	}
	never.Stop() // must not wait for a refresh that never started
	never.Stop()

	s := newService()
	if !s.Start(context.Background()) || s.Start(context.Background()) {
		t.Error("Start should report true once, then false")
	}
	if got := s.Identify(googlebotUA, inside); got.Status != identity.Verified || got.By != "ip-list" {
		t.Errorf("inside the list: %+v", got)
	}
	if got := s.Identify(googlebotUA, outside); got.Status != identity.Impostor {
		t.Errorf("outside the list, no DNS: %+v", got)
	}
	for _, a := range []netip.Addr{inside, outside, {}} {
		if v, i := s.VerifyName("google-crawler", "Googlebot", a), s.Identify(googlebotUA, a); v != i {
			t.Errorf("Verify(google-crawler, %s) = %+v, Identify %+v", a, v, i)
		}
	}
	// An address the server does not know proves nothing: never an impostor.
	if got := s.Identify(googlebotUA, netip.Addr{}); got.Status != identity.Pending {
		t.Errorf("no client address: %+v, want pending", got)
	}
	// Offline: only the local file's source is used, read at Start.
	if st := s.Lists(); len(st) != 1 || st[0].Source.URL != g.Verification.IPRanges[0].URL || !st[0].Trusted || st[0].Prefixes == 0 {
		t.Errorf("Lists() = %+v, want Google's list alone, in use", st)
	}
	s.Stop()
	s.Stop()
	s.Start(context.Background()) // a stopped Service is not restarted
	if got := s.Identify(googlebotUA, inside); got.Status != identity.Verified {
		t.Errorf("after Stop: %+v", got)
	}
	if st, dr, hits := s.DNSStats(); st+dr+hits != 0 {
		t.Errorf("DNS off, but counters moved: %d %d %d", st, dr, hits)
	}
}

// TestImpostorNeedsEveryList: a bot whose operator publishes several lists (Pingdom: IPv4 and
// IPv6) is an impostor only when every list is in and none holds the address; with one list
// missing (not fetched yet, a failed fetch, an offline host given one file) it is pending,
// even for an address outside the list that is in.
func TestImpostorNeedsEveryList(t *testing.T) {
	p, _ := crawlers.BotByID("pingdom-crawler")
	var v4, v6 string
	for _, s := range p.Verification.IPRanges {
		if strings.HasSuffix(s.URL, "ipv4") {
			v4 = s.URL
		} else {
			v6 = s.URL
		}
	}
	const ua = "Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)"
	in6, in4, out := netip.MustParseAddr("2a02:6ea0:c305::4041"), netip.MustParseAddr("5.172.196.188"), netip.MustParseAddr("203.0.113.9")
	one := identity.NewService(identity.ServiceOptions{NoDNS: true, Lists: identity.ListsOptions{Offline: true, Log: quiet,
		Local: map[string]string{v4: "testdata/pingdom-probes-ipv4.txt"}}})
	one.Start(context.Background())
	defer one.Stop()
	for a, want := range map[netip.Addr]identity.Status{in6: identity.Pending, out: identity.Pending, in4: identity.Verified} {
		if got := one.Identify(ua, a); got.Status != want {
			t.Errorf("IPv4 list only, %s: %v, want %v", a, got.Status, want)
		}
	}
	both := identity.NewService(identity.ServiceOptions{NoDNS: true, Lists: identity.ListsOptions{Offline: true, Log: quiet,
		Local: map[string]string{v4: "testdata/pingdom-probes-ipv4.txt", v6: "testdata/pingdom-probes-ipv6.txt"}}})
	both.Start(context.Background())
	defer both.Stop()
	for a, want := range map[netip.Addr]identity.Status{in6: identity.Verified, out: identity.Impostor, in4: identity.Verified} {
		if got := both.Identify(ua, a); got.Status != want {
			t.Errorf("both lists, %s: %v, want %v", a, got.Status, want)
		}
	}
}
