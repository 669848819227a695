package nethttp_test

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/nethttp"
	policypkg "github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

var discard = slog.New(slog.DiscardHandler)

const googlebotUA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"

// googleService verifies Google's crawler from the identity package's copy of Google's
// published list, read as a local file (no network), and nothing else.
func googleService(t *testing.T) *identity.Service {
	t.Helper()
	g, _ := crawlers.BotByID("google-crawler")
	s := identity.NewService(identity.ServiceOptions{
		Lists: identity.ListsOptions{Local: map[string]string{g.Verification.IPRanges[0].URL: "../identity/testdata/googlebot.json"}, Offline: true},
		NoDNS: true,
	})
	s.Start(context.Background())
	t.Cleanup(s.Stop)
	return s
}

// TestImpostorsOverLoopback: a request claiming Googlebot from an address outside Google's
// list is refused with the impostor status; from inside it is served and the handler reads
// its identity; a browser is untouched. The client address comes from ClientAddr (a proxy's
// report), the connection's address being loopback for all of them.
func TestImpostorsOverLoopback(t *testing.T) {
	svc := googleService(t)
	cfg := nethttp.Config{RobotsTxt: &nethttp.RobotsTxtConfig{
		Groups:  []robotsgen.Group{{UserAgents: []string{"GPTBot"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/"}}}},
		Enforce: &nethttp.Enforce{Impostors: &policypkg.Impostors{Status: 451}},
	}}
	m, err := nethttp.New(cfg, nethttp.Options{Logger: discard, Verifier: svc.Verifier, ClientAddr: func(r *http.Request) netip.Addr {
		a, _ := netip.ParseAddr(r.Header.Get("X-Test-Client"))
		return a
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := nethttp.Identity(r)
		w.Header().Set("X-Identity", id.Bot+" "+id.Name+" "+id.Status.String()+" "+id.By)
		if !ok {
			w.Header().Set("X-Identity", "none")
		}
	})))
	defer srv.Close()
	for _, c := range []struct {
		ua, client, path string
		status           int
		identity         string
	}{
		{googlebotUA, "203.0.113.9", "/page", 451, ""},
		{googlebotUA, "203.0.113.9", "/robots.txt", 200, ""},
		{googlebotUA, "66.249.64.5", "/page", 200, "google-crawler Googlebot verified ip-list"},
		{"Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0", "203.0.113.9", "/page", 200, "none"},
		{"Mozilla/5.0 (compatible; Barkrowler/0.9; +https://babbar.eu/crawling-bot/)", "203.0.113.9", "/page", 200, "exensa-crawler Barkrowler unverifiable"},
		// The name the User-Agent carries, not its entry's first (YaDirectFetcher); a crawler
		// only the AI catalogue knows, by its name.
		{"Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)", "203.0.113.9", "/page", 200, "yandex-crawler YandexBot pending"},
		{"Claude-User/1.0", "203.0.113.9", "/page", 200, "Claude-User unverifiable"},
	} {
		req, _ := http.NewRequest("GET", srv.URL+c.path, nil)
		req.Header.Set("User-Agent", c.ua)
		req.Header.Set("X-Test-Client", c.client)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != c.status {
			t.Errorf("%s from %s %s: %d %s, want %d", c.ua, c.client, c.path, res.StatusCode, body, c.status)
		}
		if got := res.Header.Get("X-Identity"); c.identity != "" && got != c.identity {
			t.Errorf("%s from %s: the handler read identity %q, want %q", c.ua, c.client, got, c.identity)
		}
	}
}

// TestImpostorsNeedVerifier: enforce.impostors without a Verifier is a config error, not a
// silent no-op.
func TestImpostorsNeedVerifier(t *testing.T) {
	_, err := nethttp.NewFromJSON([]byte(`{"robots_txt": {"groups": [{"user_agents": ["GPTBot"], "rules": [{"type": "disallow", "path": "/"}]}], "enforce": {"impostors": {}}}}`), nethttp.Options{Logger: discard})
	var ce *configerr.Error
	if !errors.As(err, &ce) || ce.Path != "robots_txt.enforce.impostors" {
		t.Fatalf("error %v, want one at robots_txt.enforce.impostors", err)
	}
}

// TestSignaturesOverLoopback: with Options.Signatures, a request signed by a trusted agent is
// its bot, verified by signature, whatever its User-Agent; a forged signature is refused as an
// impostor even from an address that verifies the User-Agent's claim; an unsigned request is
// identified by its address as before.
func TestSignaturesOverLoopback(t *testing.T) {
	priv := ed25519.NewKeyFromSeed([]byte("caddy-robots nethttp signatures!"))
	key, err := webbotauth.ParseJWK([]byte(fmt.Sprintf(`{"kty":"OKP","crv":"Ed25519","x":%q}`, base64.RawURLEncoding.EncodeToString(priv.Public().(ed25519.PublicKey)))))
	if err != nil {
		t.Fatal(err)
	}
	sigs, err := webbotauth.NewVerifier(webbotauth.Options{Agents: []webbotauth.Agent{{URL: "https://agent.example", Bot: "openai-crawler", Keys: []webbotauth.Key{key}}}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := nethttp.Config{RobotsTxt: &nethttp.RobotsTxtConfig{
		Groups:  []robotsgen.Group{{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/admin/"}}}},
		Enforce: &nethttp.Enforce{Impostors: &policypkg.Impostors{Status: 451}},
	}}
	m, err := nethttp.New(cfg, nethttp.Options{Logger: discard, Verifier: googleService(t).Verifier, Signatures: sigs, ClientAddr: func(r *http.Request) netip.Addr {
		a, _ := netip.ParseAddr(r.Header.Get("X-Test-Client"))
		return a
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _ := nethttp.Identity(r)
		_, _ = io.WriteString(w, id.Bot+" "+id.Status.String()+" "+id.By)
	})))
	defer srv.Close()
	sign := func(ua, client string, tamper bool) *http.Request {
		r, _ := http.NewRequest("GET", srv.URL+"/page", nil)
		r.Header.Set("User-Agent", ua)
		r.Header.Set("X-Test-Client", client)
		now := time.Now().Unix()
		r.Header.Set("Signature-Agent", `sig1="https://agent.example"`)
		r.Header.Set("Signature-Input", fmt.Sprintf(`sig1=("@method" "@authority" "@path" "signature-agent";key="sig1");created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`, now-1, now+300, key.ID))
		r.Header.Set("Signature", "sig1=:AA==:")
		parsed, err := webbotauth.ParseSignatures(r.Header)
		if err != nil {
			t.Fatal(err)
		}
		base, err := parsed[0].Base(r, webbotauth.Target{Scheme: "http", Authority: r.URL.Host})
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(ed25519.Sign(priv, base))+":")
		if tamper {
			r.URL.Path = "/other"
		}
		return r
	}
	plain, _ := http.NewRequest("GET", srv.URL+"/page", nil)
	plain.Header.Set("User-Agent", googlebotUA)
	plain.Header.Set("X-Test-Client", "66.249.64.5")
	for _, c := range []struct {
		name   string
		r      *http.Request
		status int
		body   string
	}{
		{"signed, a browser's header", sign("Mozilla/5.0 Firefox/133.0", "203.0.113.9", false), 200, "openai-crawler verified signature"},
		{"forged, from inside Google's list", sign(googlebotUA, "66.249.64.5", true), 451, ""},
		{"unsigned Googlebot from inside", plain, 200, "google-crawler verified ip-list"},
	} {
		res, err := http.DefaultClient.Do(c.r)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != c.status || !strings.Contains(string(body), c.body) {
			t.Errorf("%s: %d %q, want %d with %q", c.name, res.StatusCode, body, c.status, c.body)
		}
	}
}
