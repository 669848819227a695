package redisstore_test

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/fleet"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/identity/dnstest"
	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/redisstore"
	"github.com/sitepolicy/caddy-robots/redisstore/redistest"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

const (
	googlebotUA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	ccbotUA     = "CCBot/2.0 (https://commoncrawl.org/faq/)"
	agentURL    = "https://agent.example"
)

// fleetConfig is the site of every instance: CCBot's group has a crawl delay of one second,
// enforced.
const fleetConfig = `{"robots_txt": {"groups": [{"user_agents": ["CCBot"], "crawl_delay": 1, "rules": [{"type": "allow", "path": "/"}]}], "enforce": {"crawl_delay": true}}}`

// fleetInstance is one nethttp server of a fleet, with the store client, verification and
// Web Bot Auth verifier of its own that a process of its own would have.
type fleetInstance struct {
	url   string
	store *redisstore.Store
}

// startNetHTTPFleet starts n loopback servers of the nethttp middleware on fleetConfig, each
// with its own client of the Redis server at addr (prefix), or none (share false: each its
// own state). Reverse DNS asks dns; Web Bot Auth trusts agentURL with pub, replay protection
// on. The client address is the X-Test-Client header (a proxy's report). The handler
// answers with the request's identity: "status|by".
func startNetHTTPFleet(t *testing.T, n int, share bool, addr, prefix string, dns *dnstest.Server, pub ed25519.PublicKey) []fleetInstance {
	t.Helper()
	key, err := webbotauth.ParseJWK([]byte(fmt.Sprintf(`{"kty":"OKP","crv":"Ed25519","x":%q}`, base64.RawURLEncoding.EncodeToString(pub))))
	if err != nil {
		t.Fatal(err)
	}
	discard := slog.New(slog.DiscardHandler)
	out := make([]fleetInstance, n)
	for i := range out {
		var store fleet.Store
		if share {
			s, err := redisstore.New(redisstore.Options{Address: addr, KeyPrefix: prefix, Timeout: policy.Duration(2 * time.Second)})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			out[i].store, store = s, s
		}
		svc := identity.NewService(identity.ServiceOptions{NoLists: true,
			DNS: identity.DNSOptions{Resolver: dns.Resolver(), Wait: 5 * time.Second, Store: store}})
		svc.Start(context.Background())
		t.Cleanup(svc.Stop)
		sigs, err := webbotauth.NewVerifier(webbotauth.Options{
			Agents: []webbotauth.Agent{{URL: agentURL, Bot: "openai-crawler", Keys: []webbotauth.Key{key}}},
			Nonces: webbotauth.NewNonces(0), Store: store})
		if err != nil {
			t.Fatal(err)
		}
		m, err := nethttp.NewFromJSON([]byte(fleetConfig), nethttp.Options{Logger: discard, Store: store, Verifier: svc.Verifier, Signatures: sigs,
			ClientAddr: func(r *http.Request) netip.Addr {
				a, _ := netip.ParseAddr(r.Header.Get("X-Test-Client"))
				return a
			}})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id, _ := nethttp.Identity(r)
			io.WriteString(w, id.Status.String()+"|"+id.By)
		})))
		t.Cleanup(srv.Close)
		out[i].url = srv.URL
	}
	return out
}

// TestFleetProofNethttp is the fleet of docs/fleet.md with the net/http front end: three loopback
// servers, each with its own client of one real redis-server, as three processes would be:
//   - one crawler driven round-robin across the three at ten times its crawl delay is served
//     no more than one instance would serve it;
//   - a Web Bot Auth signature accepted by one instance is a replay on the others (a fresh
//     nonce verifies there: the refusal is the replay's);
//   - each address is looked up in reverse DNS once for the whole fleet (a DNS server on
//     loopback counts the PTR queries).
//
// The same fleet without the store (share false) fails each part: see
// TestFleetProofNethttpWithoutStore.
func TestFleetProofNethttp(t *testing.T) {
	t.Parallel()
	for _, err := range checkFleet(t, true) {
		t.Error(err)
	}
}

// TestFleetProofNethttpWithoutStore: the same fleet with per-process state breaks each of the
// three properties TestFleetProofNethttp checks, so that the checks are shown to catch a fleet
// that does not share.
func TestFleetProofNethttpWithoutStore(t *testing.T) {
	t.Parallel()
	errs := checkFleet(t, false)
	for _, part := range []string{"crawl-delay", "replay", "reverse-dns"} {
		found := false
		for _, err := range errs {
			found = found || strings.HasPrefix(err, part+":")
		}
		if !found {
			t.Errorf("without the store, the %s check passed: it cannot tell a fleet that shares", part)
		}
	}
}

// checkFleet runs the three checks on a fleet of three, sharing or not, and returns what
// failed, each prefixed by its part.
func checkFleet(t *testing.T, share bool) []string {
	var errs []string
	fail := func(part, format string, args ...any) { errs = append(errs, part+": "+fmt.Sprintf(format, args...)) }
	addr := redistest.Shared(t)
	dns := dnstest.NewServer(t)
	googlebots := []netip.Addr{netip.MustParseAddr("66.249.66.1"), netip.MustParseAddr("66.249.66.2"), netip.MustParseAddr("66.249.66.3")}
	for _, a := range googlebots {
		dns.SetHost(a, "crawl-"+strings.ReplaceAll(a.String(), ".", "-")+".googlebot.com")
	}
	priv := ed25519.NewKeyFromSeed([]byte("caddy-robots nethttp fleet test!"))
	nodes := startNetHTTPFleet(t, 3, share, addr, redistest.Prefix(t), dns, priv.Public().(ed25519.PublicKey))
	get := func(r *http.Request) (int, string) {
		t.Helper()
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	request := func(url, ua, client string) *http.Request {
		r, err := http.NewRequest("GET", url+"/page", nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("User-Agent", ua)
		r.Header.Set("X-Test-Client", client)
		return r
	}

	// Crawl-delay: ten requests per crawl delay (1 s), round-robin, for three seconds. One
	// instance serves at most one per second, the first at once (the budget is timed by the
	// store's clock: the requests' latency is allowed on top).
	const delay, every, n = time.Second, 100 * time.Millisecond, 31
	served := 0
	var first, last time.Time
	tick := time.NewTicker(every)
	for i := range n {
		if i > 0 {
			<-tick.C
		}
		last = time.Now()
		if i == 0 {
			first = last
		}
		status, body := get(request(nodes[i%3].url, ccbotUA, "203.0.113.7"))
		switch status {
		case http.StatusOK:
			served++
		case http.StatusTooManyRequests:
		default:
			t.Fatalf("crawl-delay request %d: %d %q", i, status, body)
		}
	}
	tick.Stop()
	if most := int((last.Sub(first)+200*time.Millisecond)/delay) + 1; served > most || served < 2 {
		fail("crawl-delay", "the fleet served %d of %d requests over %v at one per %v; one instance serves 2 to %d", served, n, last.Sub(first), every, most)
	}

	// Replay: the signature one instance accepted is refused by the others.
	sign := func(url, nonce string) *http.Request {
		r := request(url, "Mozilla/5.0 Firefox/133.0", "203.0.113.9")
		// The authority signed is the load balancer's, the same on every instance.
		r.Host = "fleet.example"
		if err := webbotauth.Sign(r, webbotauth.SignOptions{Key: priv, Agent: agentURL, Nonce: nonce, Validity: 5 * time.Minute}); err != nil {
			t.Fatal(err)
		}
		return r
	}
	for i, node := range nodes {
		if status, body := get(sign(node.url, fmt.Sprintf("fresh-%d", i))); status != 200 || body != "verified|signature" {
			t.Fatalf("instance %d, a fresh nonce: %d %q, want verified|signature", i, status, body)
		}
	}
	r := sign(nodes[0].url, "once")
	if _, body := get(r.Clone(r.Context())); body != "verified|signature" {
		t.Fatalf("instance 0, the nonce's first use: %q", body)
	}
	for i, node := range nodes[1:] {
		again := r.Clone(r.Context())
		again.URL.Host = strings.TrimPrefix(node.url, "http://")
		if _, body := get(again); body == "verified|signature" {
			fail("replay", "the signature instance 0 accepted, replayed on instance %d, is verified again", i+1)
		}
	}

	// Reverse DNS: each address's first request, on each instance in turn, waits for the
	// lookup or for the verdict another instance stores.
	for _, a := range googlebots {
		for i, node := range nodes {
			for deadline := time.Now().Add(20 * time.Second); ; {
				status, body := get(request(node.url, googlebotUA, a.String()))
				if body == "verified|reverse-dns" {
					break
				}
				if status != 200 || body != "pending|" || time.Now().After(deadline) {
					t.Fatalf("%s on instance %d: %d %q, want verified|reverse-dns", a, i, status, body)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
	for _, a := range googlebots {
		if n := dns.PTRQueries(a); n != 1 {
			fail("reverse-dns", "%s: %d PTR queries from the fleet of 3, want 1", a, n)
		}
	}
	return errs
}
