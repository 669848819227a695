package identity_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
)

const googlebotUA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"

// googleVerifier verifies Google's crawler from testdata/googlebot.json (as a local file,
// no network) and host names from a fake resolver.
func googleVerifier(t testing.TB, withList bool) (*identity.Verifier, *identity.ReverseDNS) {
	t.Helper()
	g, _ := crawlers.BotByID("google-crawler")
	local := map[string]string{}
	if withList {
		local[g.Verification.IPRanges[0].URL] = "testdata/googlebot.json"
	}
	// Offline: without the local file, no list (a test never fetches from the real network).
	lists := identity.NewLists(identity.Sources("google-crawler"), identity.ListsOptions{Local: local, Offline: true, Log: quiet})
	lists.Refresh(context.Background())
	dns := identity.NewReverseDNS(identity.DNSOptions{Resolver: &fakeDNS{
		ptr:     map[string][]string{"66.249.90.1": {"crawl-66-249-90-1.googlebot.com."}},
		forward: map[string][]netip.Addr{"crawl-66-249-90-1.googlebot.com": {netip.MustParseAddr("66.249.90.1")}},
	}})
	return identity.NewVerifier(lists, dns), dns
}

func TestIdentify(t *testing.T) {
	v, dns := googleVerifier(t, true)
	for _, c := range []struct {
		ua, addr string
		want     identity.Identity
		later    identity.Status // after the reverse-DNS answer, when different
	}{
		{googlebotUA, "66.249.64.5", identity.Identity{Bot: "google-crawler", Name: "Googlebot", Status: identity.Verified, By: "ip-list"}, 0},
		{googlebotUA, "::ffff:66.249.64.5", identity.Identity{Bot: "google-crawler", Name: "Googlebot", Status: identity.Verified, By: "ip-list"}, 0},
		// Outside the list: reverse DNS decides, pending until it answers.
		{googlebotUA, "66.249.90.1", identity.Identity{Bot: "google-crawler", Name: "Googlebot", Status: identity.Pending}, identity.Verified},
		{googlebotUA, "203.0.113.9", identity.Identity{Bot: "google-crawler", Name: "Googlebot", Status: identity.Pending}, identity.Impostor},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "203.0.113.9", identity.Identity{}, 0},
		// A bot whose operator publishes nothing.
		{"Mozilla/5.0 (compatible; Barkrowler/0.9; +https://babbar.eu/crawling-bot/)", "203.0.113.9", identity.Identity{Bot: "exensa-crawler", Name: "Barkrowler", Status: identity.Unverifiable}, 0},
	} {
		a := netip.MustParseAddr(c.addr)
		if got := v.Identify(c.ua, a); got != c.want {
			t.Errorf("Identify(%q, %s) = %+v, want %+v", c.ua, c.addr, got, c.want)
		}
		if c.later != 0 {
			dns.Wait()
			if got := v.Identify(c.ua, a); got.Status != c.later {
				t.Errorf("Identify(%q, %s) after the DNS answer = %+v, want %v", c.ua, c.addr, got, c.later)
			}
		}
	}
}

// TestIdentifyWithoutList: before any list is in, an address outside the host names is not
// called an impostor until reverse DNS has answered, and a bot verified by the catalogue's
// own addresses is answered at once.
func TestIdentifyWithoutList(t *testing.T) {
	v, dns := googleVerifier(t, false)
	a := netip.MustParseAddr("203.0.113.9")
	if got := v.Identify(googlebotUA, a); got.Status != identity.Pending {
		t.Errorf("no list, DNS not answered: %v", got.Status)
	}
	dns.Wait()
	if got := v.Identify(googlebotUA, a); got.Status != identity.Impostor {
		t.Errorf("no list, DNS failed: %v", got.Status)
	}
	adagio, _ := crawlers.BotByID("adagio-crawler")
	ua := "Mozilla/5.0 (compatible; " + adagio.Names[0] + "/1.0)"
	if got := v.Identify(ua, netip.MustParseAddr(adagio.Verification.IPs[0])); got.Status != identity.Verified || got.By != "ip" {
		t.Errorf("the catalogue's own address: %+v", got)
	}
	if got := v.Identify(ua, a); got.Status != identity.Impostor {
		t.Errorf("another address for a bot with fixed addresses: %+v", got)
	}
}

func TestParseStatus(t *testing.T) {
	for st := identity.None; st <= identity.Impostor; st++ {
		if got, ok := identity.ParseStatus(st.String()); !ok || got != st {
			t.Errorf("ParseStatus(%q) = %v, %v", st, got, ok)
		}
	}
	if _, ok := identity.ParseStatus("trusted"); ok {
		t.Error("ParseStatus accepts an unknown name")
	}
}

// BenchmarkIdentify: a browser, and Googlebot verified by Google's list.
func BenchmarkIdentify(b *testing.B) {
	v, _ := googleVerifier(b, true)
	for _, c := range []struct{ name, ua, addr string }{
		{"browser", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "203.0.113.9"},
		{"verified", googlebotUA, "66.249.64.5"},
	} {
		a := netip.MustParseAddr(c.addr)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v.Identify(c.ua, a)
			}
		})
	}
}

// TestIdentifyWait: where Identify answers pending until reverse DNS has answered, IdentifyWait
// waits for the answer, which Identify then gives too.
func TestIdentifyWait(t *testing.T) {
	v, _ := googleVerifier(t, true)
	for _, c := range []struct {
		addr string
		want identity.Identity
	}{
		{"66.249.64.5", identity.Identity{Bot: "google-crawler", Name: "Googlebot", Status: identity.Verified, By: "ip-list"}},
		{"66.249.90.1", identity.Identity{Bot: "google-crawler", Name: "Googlebot", Status: identity.Verified, By: "reverse-dns"}},
		// Both were checked and both failed: Google's list and Google's host names.
		{"203.0.113.9", identity.Identity{Bot: "google-crawler", Name: "Googlebot", Status: identity.Impostor, Failed: identity.CheckIPList | identity.CheckReverseDNS}},
	} {
		a := netip.MustParseAddr(c.addr)
		if got := v.IdentifyWait(googlebotUA, a); got != c.want {
			t.Errorf("IdentifyWait(%s) = %+v, want %+v", c.addr, got, c.want)
		}
		if got := v.Identify(googlebotUA, a); got != c.want {
			t.Errorf("Identify(%s) after IdentifyWait = %+v, want %+v", c.addr, got, c.want)
		}
	}
	// Without an address there is nothing to look up: pending, at once.
	if got := v.IdentifyWait(googlebotUA, netip.Addr{}); got.Status != identity.Pending {
		t.Errorf("no address: %+v", got)
	}
	if !v.ReverseDNS() || identity.NewVerifier(nil, nil).ReverseDNS() {
		t.Error("ReverseDNS does not say whether host names are checked")
	}
}

// TestIdentifyNamesTheCrawler: for every name of either catalogue, a request carrying it is
// identified as that name, verified by its entry (one of Yandex's names is YandexBot, not its
// entry's first name), and a crawler only the AI catalogue knows is Unverifiable under its name.
func TestIdentifyNamesTheCrawler(t *testing.T) {
	v := identity.NewVerifier(nil, nil)
	a := netip.MustParseAddr("203.0.113.9")
	owner := map[string]string{} // folded name -> the entry IdentifyBotName gives it
	for _, bn := range crawlers.BotNames() {
		ua := "Mozilla/5.0 (compatible; " + bn.Name + "/9.9; +https://example.com/bot)"
		id, name, _ := crawlers.IdentifyBotName(ua)
		if k := strings.ToLower(bn.Name); owner[k] == "" {
			owner[k] = id
		}
		if id != bn.ID {
			continue // a name several entries have: the owner's is checked
		}
		got := v.Identify(ua, a)
		want := identity.Identity{Bot: bn.ID, Name: bn.Name, Status: identity.Pending}
		if bn.ID == "" {
			want.Status = identity.Unverifiable
		} else if b, _ := crawlers.BotByID(bn.ID); len(b.Verification.IPs)+len(b.Verification.IPRanges)+len(b.Verification.HostMasks) == 0 {
			want.Status = identity.Unverifiable
		} else if len(b.Verification.IPs) > 0 && len(b.Verification.IPRanges)+len(b.Verification.HostMasks) == 0 {
			want.Status, want.Failed = identity.Impostor, identity.CheckIP // only the catalogue's addresses were checked
		}
		if got != want || name != bn.Name {
			t.Errorf("Identify(%q) = %+v, want %+v", ua, got, want)
		}
	}
	if id := v.Identify("Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)", a); id.Name != "YandexBot" || id.Bot != "yandex-crawler" {
		t.Errorf("YandexBot: %+v", id)
	}
}
