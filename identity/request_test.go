package identity_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
)

// TestIdentifierNames: for every crawler name of the catalogue, a request whose User-Agent
// carries it is identified as the Verifier verifies the name from the client's address (one
// of the bot's own fixed addresses where the catalogue lists some, so that Verified is
// reached as well as its failures), with the index in crawlers.BotNames of the name the
// catalogue reads (a name two entries carry is the first's) the address
// is asked once, of ClientAddr or else read from RemoteAddr ("host:port" or bare). A browser
// is not identified, and its address is never asked.
func TestIdentifierNames(t *testing.T) {
	v := identity.NewVerifier(nil, nil)
	asked := 0
	var addr netip.Addr
	withAddr := &identity.Identifier{Verifier: v, ClientAddr: func(*http.Request) netip.Addr { asked++; return addr }}
	remote := &identity.Identifier{Verifier: v}
	verified := 0
	for _, bn := range crawlers.BotNames() {
		addr = netip.MustParseAddr("192.0.2.1")
		if b, ok := crawlers.BotByID(bn.ID); ok && len(b.Verification.IPs) > 0 {
			if p, err := netip.ParsePrefix(b.Verification.IPs[0]); err == nil {
				addr = p.Addr()
			} else if a, err := netip.ParseAddr(b.Verification.IPs[0]); err == nil {
				addr = a
			}
		}
		ua := "Mozilla/5.0 (compatible; " + bn.Name + "/1.0; +https://example.com/bot)"
		bot, name, index, named := crawlers.IdentifyBotNameIndex([]string{ua})
		if !named {
			t.Fatalf("%s (%s): the catalogue reads no name", bn.Name, bn.ID)
		}
		if bn := crawlers.BotNames()[index]; bn.ID != bot || bn.Name != name {
			t.Fatalf("index %d is %s (%s), not %s (%s)", index, bn.Name, bn.ID, name, bot)
		}
		want := v.VerifyName(bot, name, addr)
		verified += map[bool]int{true: 1}[want.Status == identity.Verified]
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("User-Agent", ua)
		asked = 0
		if got, gotName, ok := withAddr.Identify(r); !ok || got != want || gotName != index || asked != 1 {
			t.Fatalf("%s: %+v, name %d, ok %v, address asked %d times; want %+v, %d", bn.Name, got, gotName, ok, asked, want, index)
		}
		for _, ra := range []string{netip.AddrPortFrom(addr, 4321).String(), addr.String()} {
			r.RemoteAddr = ra
			if id, _, _ := remote.Identify(r); id != want {
				t.Fatalf("%s from RemoteAddr %s: %+v, want %+v", bn.Name, ra, id, want)
			}
		}
	}
	if verified == 0 {
		t.Error("no name verified: the addresses were not the bots'")
	}
	browser := httptest.NewRequest("GET", "/", nil)
	browser.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0")
	asked = 0
	if id, name, ok := withAddr.Identify(browser); ok || id != (identity.Identity{}) || name != -1 || asked != 0 {
		t.Errorf("a browser: %+v, name %d, ok %v, address asked %d times", id, name, ok, asked)
	}
	if _, _, ok := (&identity.Identifier{}).Identify(browser); ok {
		t.Error("the zero Identifier identified a request")
	}
}
