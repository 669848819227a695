package redisstore

import (
	"context"
	"crypto/ed25519"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/identity/dnstest"
	"github.com/sitepolicy/caddy-robots/redisstore/redistest"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// TestFleetNonces: a nonce seen on one instance is a replay on another; the partition's
// bound is the fleet's; with the store down, a replay on the same instance is still refused.
func TestFleetNonces(t *testing.T) {
	srv := redistest.Start(t)
	pub, priv, _ := ed25519.GenerateKey(nil)
	key, err := webbotauth.JWKOf(pub).Ed25519Key()
	if err != nil {
		t.Fatal(err)
	}
	const agentURL = "https://agent.example"
	verifier := func() *webbotauth.Verifier {
		v, err := webbotauth.NewVerifier(webbotauth.Options{
			Agents: []webbotauth.Agent{{URL: agentURL, Bot: "b", Keys: []webbotauth.Key{key}}},
			Nonces: webbotauth.NewNonces(3), Store: newStore(t, srv, Options{KeyPrefix: "nonces:"})})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	a, b := verifier(), verifier()
	signed := map[string]*http.Request{}
	verify := func(v *webbotauth.Verifier, nonce string) webbotauth.Result {
		r := signed[nonce]
		if r == nil {
			r = httptest.NewRequest("GET", "https://shop.example/x", nil)
			if err := webbotauth.Sign(r, webbotauth.SignOptions{Key: priv, Agent: agentURL, Nonce: nonce, Validity: time.Hour}); err != nil {
				t.Fatal(err)
			}
			signed[nonce] = r
		}
		return v.Verify(r, webbotauth.Target{})
	}
	for i, step := range []struct {
		v      *webbotauth.Verifier
		nonce  string
		status webbotauth.Status
		reason string
	}{
		{a, "n1", webbotauth.Verified, ""},
		{b, "n1", webbotauth.Replayed, "nonce seen before"}, // another instance
		{a, "n1", webbotauth.Replayed, "nonce seen before"},
		{b, "n2", webbotauth.Verified, ""},
		{a, "n3", webbotauth.Verified, ""},
		// Three in the fleet's partition of 3, though each instance recorded fewer.
		{b, "n4", webbotauth.Replayed, webbotauth.NonceStoreFull},
	} {
		if res := verify(step.v, step.nonce); res.Status != step.status || (step.reason != "" && res.Reason != step.reason) {
			t.Fatalf("step %d (%s): %v %q, want %v %q", i, step.nonce, res.Status, res.Reason, step.status, step.reason)
		}
	}
	srv.Kill()
	// The store is down: a's own copy decides (it holds n1 and n3, room for one more).
	if res := verify(a, "n1"); res.Status != webbotauth.Replayed {
		t.Fatalf("store down: a replay on the same instance: %v, want replayed", res.Status)
	}
	if res := verify(a, "n5"); res.Status != webbotauth.Verified {
		t.Fatalf("store down: a new nonce: %v %q, want verified", res.Status, res.Reason)
	}
	if res := verify(a, "n5"); res.Status != webbotauth.Replayed {
		t.Fatalf("store down: the new nonce replayed on the same instance: %v, want replayed", res.Status)
	}
	srv.Restart()
	// Back, empty: a's copy still refuses what it saw; b shares again once the backoff is over.
	if res := verify(a, "n5"); res.Status != webbotauth.Replayed {
		t.Fatalf("store back empty: %v, want replayed (a's own copy)", res.Status)
	}
	for try := 0; ; try++ {
		nonce := "n6-" + strconv.Itoa(try) // a fresh nonce each try: a verified one is recorded
		res := verify(b, nonce)
		if res.Status == webbotauth.Replayed {
			t.Fatalf("%s refused before any instance saw it", nonce)
		}
		if res.Status == webbotauth.Verified && verify(a, nonce).Status == webbotauth.Replayed {
			break
		}
		if try == 500 {
			t.Fatal("replay protection is not shared again after the store came back")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFleetReverseDNS: three instances look each address up once for the whole fleet, a
// definite answer only is shared, and with the store down each looks up on its own.
func TestFleetReverseDNS(t *testing.T) {
	srv := redistest.Start(t)
	dns := dnstest.NewServer(t)
	good, none, flaky, later := netip.MustParseAddr("66.249.66.1"), netip.MustParseAddr("66.249.66.2"),
		netip.MustParseAddr("66.249.66.3"), netip.MustParseAddr("66.249.66.4")
	for _, a := range []netip.Addr{good, flaky, later} {
		name := "crawl-66-249-66-" + a.String()[len("66.249.66."):] + ".googlebot.com"
		dns.SetPTR(a, name)
		dns.SetAddrs(name, a)
	}
	dns.SetFault(func(q dnstest.Query) dnstest.Fault {
		if q.Addr == flaky {
			return dnstest.ServFail
		}
		return dnstest.Answer
	})
	masks := []string{"crawl-***-***-***-***.googlebot.com"}
	var fleet []*identity.ReverseDNS
	stores := make([]*Store, 3)
	for i := range stores {
		stores[i] = newStore(t, srv, Options{KeyPrefix: "rdns:"})
		fleet = append(fleet, identity.NewReverseDNS(identity.DNSOptions{Resolver: dns.Resolver(), Store: stores[i], Retry: time.Hour}))
	}
	started := func() (n int64) {
		for _, d := range fleet {
			s, _, _ := d.Stats()
			n += s
		}
		return n
	}
	// Round robin until every instance has the verdict.
	settle := func(addr netip.Addr, want identity.DNSStatus) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); ; {
			done := 0
			for _, d := range fleet {
				if st := d.Verify(addr, masks); st == want {
					done++
				} else if st != identity.DNSPending {
					t.Fatalf("%v: %v, want %v", addr, st, want)
				}
			}
			if done == len(fleet) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%v: not %v on every instance", addr, want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	settle(good, identity.DNSVerified)
	settle(none, identity.DNSFailed)
	if n := started(); n != 2 {
		t.Fatalf("%d lookups for two addresses across three instances, want 2", n)
	}
	// A temporary failure is no verdict: nothing stored, the address stays pending.
	for range 3 {
		for _, d := range fleet {
			if st := d.Verify(flaky, masks); st != identity.DNSPending {
				t.Fatalf("SERVFAIL: %v, want pending", st)
			}
			d.Wait()
		}
	}
	if n, err := stores[0].client.Exists(context.Background(), "rdns:dns:"+flaky.String()).Result(); err != nil || n != 0 {
		t.Fatalf("a temporary failure was stored as a verdict (%d, %v)", n, err)
	}
	srv.Kill()
	before := started()
	settle(later, identity.DNSVerified)
	if n := started() - before; n != 3 {
		t.Fatalf("store down: %d lookups by three instances, want 3 (each its own)", n)
	}
}
