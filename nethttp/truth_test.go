package nethttp_test

import (
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/nethttp"
	policypkg "github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// recordHandler keeps the records logged, with their attributes.
type recordHandler struct {
	mu   sync.Mutex
	recs []map[string]string
}

func (h *recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *recordHandler) WithGroup(string) slog.Handler            { return h }
func (h *recordHandler) Handle(_ context.Context, r slog.Record) error {
	m := map[string]string{"msg": r.Message}
	r.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value.String(); return true })
	h.mu.Lock()
	h.recs = append(h.recs, m)
	h.mu.Unlock()
	return nil
}

func (h *recordHandler) last() map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.recs) == 0 {
		return nil
	}
	return h.recs[len(h.recs)-1]
}

// signRequest signs r (to its URL's authority) as agent with priv under keyID.
func signRequest(t *testing.T, r *http.Request, priv ed25519.PrivateKey, keyID, agent string) *http.Request {
	t.Helper()
	now := time.Now().Unix()
	r.Header.Set("Signature-Agent", fmt.Sprintf(`sig1=%q`, agent))
	r.Header.Set("Signature-Input", fmt.Sprintf(`sig1=("@method" "@authority" "@path" "signature-agent";key="sig1");created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`, now-1, now+300, keyID))
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
	return r
}

// TestRefusalsTellTheTruthOverLoopback is caddymodule's TestRefusalsTellTheTruth for the
// net/http front end: the refusal's body, its log record (message, rule, token) and the
// counters say what was checked and failed: the signature of a trusted agent (not an
// address), of an agent the config does not trust (no bot, counted under "other"), Google's
// published addresses, or the file's rule for a verified crawler.
func TestRefusalsTellTheTruthOverLoopback(t *testing.T) {
	trusted := ed25519.NewKeyFromSeed([]byte("nethttp truth: trusted agent key"))
	forger := ed25519.NewKeyFromSeed([]byte("nethttp truth: the forger's key!"))
	other := ed25519.NewKeyFromSeed([]byte("nethttp truth: untrusted agent!!"))
	jwk := func(priv ed25519.PrivateKey) (string, webbotauth.Key) {
		j := fmt.Sprintf(`{"kty":"OKP","crv":"Ed25519","x":%q}`, base64.RawURLEncoding.EncodeToString(priv.Public().(ed25519.PublicKey)))
		k, err := webbotauth.ParseJWK([]byte(j))
		if err != nil {
			t.Fatal(err)
		}
		return j, k
	}
	_, tkey := jwk(trusted)
	ojwk, okey := jwk(other)
	dirSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", webbotauth.DirectoryMediaType)
		_, _ = io.WriteString(w, `{"keys":[`+ojwk+`]}`)
	}))
	defer dirSrv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(dirSrv.Certificate())
	dir := webbotauth.NewDirectory(webbotauth.DirectoryOptions{TLSConfig: &tls.Config{RootCAs: pool}, AllowAddr: func(netip.Addr) bool { return true }})
	defer dir.Close()
	sigs, err := webbotauth.NewVerifier(webbotauth.Options{Agents: []webbotauth.Agent{{URL: "https://agent.example", Bot: "openai-crawler", Keys: []webbotauth.Key{tkey}}}, Directory: dir, FetchUntrusted: true})
	if err != nil {
		t.Fatal(err)
	}
	logs := &recordHandler{}
	counters := metrics.NewCounters()
	cfg := nethttp.Config{RobotsTxt: &nethttp.RobotsTxtConfig{
		Groups:  []robotsgen.Group{{UserAgents: []string{"Googlebot"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/private/"}}}},
		Enforce: &nethttp.Enforce{Impostors: &policypkg.Impostors{Status: 451}},
	}}
	m, err := nethttp.New(cfg, nethttp.Options{Logger: slog.New(logs), Verifier: googleService(t).Verifier, Signatures: sigs, Counters: counters, ClientAddr: func(r *http.Request) netip.Addr {
		a, _ := netip.ParseAddr(r.Header.Get("X-Test-Client"))
		return a
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _ := nethttp.Identity(r)
		_, _ = io.WriteString(w, id.Bot+"|"+id.Status.String()+"|"+id.By)
	})))
	defer srv.Close()
	req := func(path, ua, client string) *http.Request {
		r, _ := http.NewRequest("GET", srv.URL+path, nil)
		r.Header.Set("User-Agent", ua)
		r.Header.Set("X-Test-Client", client)
		return r
	}
	get := func(r *http.Request) (int, string) {
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res.StatusCode, string(b)
	}
	const browser = "Mozilla/5.0 Firefox/133.0"
	// The untrusted agent's directory is fetched at its first signed request.
	for i := 0; ; i++ {
		if _, body := get(signRequest(t, req("/page", browser, "203.0.113.9"), other, okey.ID, dirSrv.URL)); strings.Contains(body, "|signed|") {
			break
		}
		if i == 250 {
			t.Fatal("the untrusted agent's directory never answered")
		}
		time.Sleep(20 * time.Millisecond)
	}
	const (
		forged    = "refused as an impostor: its Web Bot Auth signature, from the agent trusted for GPTBot, does not verify against that agent's key"
		untrusts  = "refused as an impostor: its Web Bot Auth signature, from an agent the config does not trust, does not verify against that agent's key"
		byAddress = "refused as an impostor: its User-Agent names Googlebot, but its address is not in Google's published address lists"
	)
	for _, c := range []struct {
		name             string
		r                *http.Request
		status           int
		msg, rule, token string
		series           string // crawler/status/outcome counted once
	}{
		{"forged signature of a trusted agent, browser header", signRequest(t, req("/page", browser, "203.0.113.9"), forger, tkey.ID, "https://agent.example"),
			451, forged, "impostor: signature", "GPTBot", "openai-crawler/impostor/impostor"},
		{"forged signature of a trusted agent, Googlebot from Google's list", signRequest(t, req("/page", googlebotUA, "66.249.64.5"), forger, tkey.ID, "https://agent.example"),
			451, forged, "impostor: signature", "GPTBot", "openai-crawler/impostor/impostor"},
		{"failing signature of an untrusted agent, browser header", signRequest(t, req("/page", browser, "203.0.113.9"), forger, okey.ID, dirSrv.URL),
			451, untrusts, "impostor: signature", "", "other/impostor/impostor"},
		{"failing signature of an untrusted agent, Googlebot from Google's list", signRequest(t, req("/page", googlebotUA, "66.249.64.5"), forger, okey.ID, dirSrv.URL),
			451, untrusts, "impostor: signature", "", "other/impostor/impostor"},
		{"Googlebot's header from outside Google's list", req("/page", googlebotUA, "203.0.113.9"),
			451, byAddress, "impostor: ip-list", "Googlebot", "google-crawler/impostor/impostor"},
		{"Googlebot verified, disallowed by the file", req("/private/x", googlebotUA, "66.249.64.5"),
			403, "robots.txt disallows this path for Googlebot (Disallow: /private/)", "disallow: /private/", "Googlebot", "google-crawler/verified/enforced"},
	} {
		before := map[string]uint64{}
		counters.EachRequest(func(s metrics.RequestSeries) { before[s.Crawler+"/"+s.Status+"/"+s.Outcome] = s.Count })
		status, body := get(c.r)
		if want := fmt.Sprintf("%d %s: %s\n", c.status, http.StatusText(c.status), c.msg); status != c.status || body != want {
			t.Errorf("%s: %d %q, want %q", c.name, status, body, want)
		}
		if l := logs.last(); l["msg"] != c.msg || l["rule"] != c.rule || l["token"] != c.token {
			t.Errorf("%s: logged %v, want %q, rule %q, token %q", c.name, l, c.msg, c.rule, c.token)
		}
		added := map[string]uint64{}
		counters.EachRequest(func(s metrics.RequestSeries) {
			if n := s.Count - before[s.Crawler+"/"+s.Status+"/"+s.Outcome]; n > 0 {
				added[s.Crawler+"/"+s.Status+"/"+s.Outcome] = n
			}
		})
		if len(added) != 1 || added[c.series] != 1 {
			t.Errorf("%s: counted %v, want %s once", c.name, added, c.series)
		}
	}
}
