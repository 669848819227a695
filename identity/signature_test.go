package identity_test

import (
	"testing"

	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// TestWithSignature: what each signature verdict makes of the User-Agent's identity.
func TestWithSignature(t *testing.T) {
	byIP := identity.Identity{Bot: "google-crawler", Name: "Googlebot", Status: identity.Verified, By: "ip-list"}
	for _, c := range []struct {
		res     webbotauth.Result
		want    identity.Identity
		decided bool
	}{
		// A signature for another bot than the User-Agent names: no name is the request's.
		{webbotauth.Result{Status: webbotauth.Verified, Bot: "openai-crawler"}, identity.Identity{Bot: "openai-crawler", Status: identity.Verified, By: "signature"}, true},
		{webbotauth.Result{Status: webbotauth.Verified, Bot: "google-crawler"}, identity.Identity{Bot: "google-crawler", Name: "Googlebot", Status: identity.Verified, By: "signature"}, true},
		// A failing signature wins over an address that verified the User-Agent's claim.
		{webbotauth.Result{Status: webbotauth.Impostor, Bot: "openai-crawler"}, identity.Identity{Bot: "openai-crawler", Status: identity.Impostor, By: "signature", Failed: identity.CheckSignature}, true},
		// An agent the config does not trust: the claim refuted is the signature's, not the
		// User-Agent's (which the address verified), so no bot.
		{webbotauth.Result{Status: webbotauth.Impostor}, identity.Identity{Status: identity.Impostor, By: "signature", Failed: identity.CheckSignature}, true},
		{webbotauth.Result{Status: webbotauth.Signed}, identity.Identity{Bot: "google-crawler", Name: "Googlebot", Status: identity.Signed, By: "signature"}, true},
	} {
		got, decided := identity.WithSignature(byIP, c.res)
		if got != c.want || decided != c.decided {
			t.Errorf("%v: %+v %v, want %+v %v", c.res.Status, got, decided, c.want, c.decided)
		}
	}
	for _, st := range []webbotauth.Status{webbotauth.Unsigned, webbotauth.Malformed, webbotauth.Expired, webbotauth.UnknownKey, webbotauth.Pending, webbotauth.Unreachable, webbotauth.Replayed} {
		if got, decided := identity.WithSignature(byIP, webbotauth.Result{Status: st, Bot: "openai-crawler"}); decided || got != byIP {
			t.Errorf("%v proves nothing, but gave %+v %v", st, got, decided)
		}
	}
}
