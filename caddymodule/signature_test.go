package caddymodule

import (
	"crypto/ed25519"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dunglas/httpsfv"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// signedRequest is a GET of path on the test site signed by the agent with priv, as a Web
// Bot Auth agent signs (draft-ietf-webbotauth-httpsig-protocol-01); tamper changes the
// request after signing.
func signedRequest(t *testing.T, priv ed25519.PrivateKey, keyID, path, ua, client string, tamper func(*http.Request)) *http.Request {
	t.Helper()
	r := signedRequestFor(t, priv, keyID, "https://agent.example", "", path, ua, client)
	if tamper != nil {
		tamper(r)
	}
	return r
}

// TestWebBotAuthThroughCaddy: a request signed by a trusted agent (keys from a file) is
// verified as the agent's bot, whatever its User-Agent and address; a forged signature makes
// it an impostor (refused by enforce's impostors) even when its address verifies the
// User-Agent's claim; an unsigned request is identified as before.
func TestWebBotAuthThroughCaddy(t *testing.T) {
	priv := ed25519.NewKeyFromSeed([]byte("caddy-robots web bot auth test!!"))
	key, keyFile := agentKey(t, priv)
	g := strings.Replace(crawlersGlobals(t, t.TempDir()), "reverse_dns off", "reverse_dns off\n\t\tsignature_agent https://agent.example GPTBot "+keyFile, 1)
	caddyTesterWithGlobals(t, g, identitySites)
	const browser = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	for _, c := range []struct {
		name   string
		r      *http.Request
		status int
		body   string
	}{
		{"signed, browser header", signedRequest(t, priv, key.ID, "/page", browser, "203.0.113.9", nil), 200, "openai-crawler|GPTBot|verified|signature|"},
		{"signed, claims Googlebot from outside its list", signedRequest(t, priv, key.ID, "/page", googlebotUA, "203.0.113.9", nil), 200, "openai-crawler|GPTBot|verified|signature|"},
		{"forged: path changed", signedRequest(t, priv, key.ID, "/page", browser, "203.0.113.9", func(r *http.Request) { r.URL.Path = "/other" }), 410, "refused as an impostor: its Web Bot Auth signature, from the agent trusted for GPTBot, does not verify against that agent's key"},
		{"forged, from inside Google's list", signedRequest(t, priv, key.ID, "/page", googlebotUA, "66.249.64.5", func(r *http.Request) { r.URL.Path = "/other" }), 410, ""},
		{"unknown key: no proof", signedRequest(t, ed25519.NewKeyFromSeed(make([]byte, 32)), "unknown-key-id", "/page", googlebotUA, "66.249.64.5", nil), 200, "google-crawler|Googlebot|verified|ip-list|"},
	} {
		res, err := client.Do(c.r)
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

// TestWebBotAuthConfigErrors: a trusted agent's URL, bot and key file are checked at load,
// the problem at the line of its signature_agent (Caddyfile:9).
func TestWebBotAuthConfigErrors(t *testing.T) {
	for _, c := range []struct{ opt, want string }{
		{"signature_agent http://agent.example GPTBot", `signature_agent "http://agent.example": webbotauth: Signature-Agent: "http://agent.example" is not an https URL, at Caddyfile:9`},
		{"signature_agent https://agent.example NoSuchBotAtAll", `signature_agent "NoSuchBotAtAll": not one bot of the catalogue (by ID or name), at Caddyfile:9`},
		{"signature_agent https://agent.example GPTBot /nonexistent/key.jwk", `signature_agent "/nonexistent/key.jwk": open /nonexistent/key.jwk: no such file or directory, at Caddyfile:9`},
		{"signature_agent https://agent.example", "signature_agent takes the agent's https URL"},
		{"signatures_skew soon", `signatures_skew "soon"`},
	} {
		cfg := strings.Replace(globals(), "}\n", "\tcrawlers {\n\t\tlists off\n\t\treverse_dns off\n\t\t"+c.opt+"\n\t}\n}\n", 1) + expand(":@PORT@ {\n\t@s crawler signed\n\trespond @s 1\n}\n")
		status, msg := loadRaw(t, cfg, "text/caddyfile")
		if status == http.StatusOK || !strings.Contains(msg, c.want) {
			t.Errorf("%s: loaded with %d %q, want an error containing %q", c.opt, status, msg, c.want)
		}
	}
}

// TestWebBotAuthDirectoryThroughCaddy: a trusted agent without a key file: its keys come from
// its key directory, served here over local HTTPS in the draft's format, fetched when the
// server starts (before any request); a signed request then verifies; a reload with the same
// config keeps the fetched keys (the next request verifies at once, no second fetch); with
// replay protection, the same signature sent twice is refused the second time.
func TestWebBotAuthDirectoryThroughCaddy(t *testing.T) {
	priv := ed25519.NewKeyFromSeed([]byte("caddy-robots key directory test!"))
	jwk := fmt.Sprintf(`{"kty":"OKP","crv":"Ed25519","x":%q}`, base64.RawURLEncoding.EncodeToString(priv.Public().(ed25519.PublicKey)))
	key, err := webbotauth.ParseJWK([]byte(jwk))
	if err != nil {
		t.Fatal(err)
	}
	var fetches atomic.Int32
	dir := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != webbotauth.WellKnownPath {
			http.NotFound(w, r)
			return
		}
		fetches.Add(1)
		w.Header().Set("Content-Type", webbotauth.DirectoryMediaType)
		w.Header().Set("Cache-Control", "max-age=3600")
		_, _ = io.WriteString(w, `{"keys":[`+jwk+`]}`)
	}))
	defer dir.Close()
	pool := x509.NewCertPool()
	pool.AddCert(dir.Certificate())
	useDirectoryOptions(t, webbotauth.DirectoryOptions{TLSConfig: &tls.Config{RootCAs: pool}, AllowAddr: func(netip.Addr) bool { return true }})
	agent := dir.URL // https://127.0.0.1:port
	g := strings.Replace(crawlersGlobals(t, t.TempDir()), "reverse_dns off", "reverse_dns off\n\t\tsignature_agent "+agent+" GPTBot\n\t\tsignatures_replay_protection", 1)
	tester := caddyTesterWithGlobals(t, g, identitySites)

	sign := func(nonce string) *http.Request {
		r := signedRequestFor(t, priv, key.ID, agent, nonce, "/page", "Mozilla/5.0 Firefox/133.0", "203.0.113.9")
		return r
	}
	get := func(r *http.Request) string {
		res, err := client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return fmt.Sprintf("%d %s", res.StatusCode, body)
	}
	// The directory is fetched when the server starts, before any request.
	for i := 0; fetches.Load() == 0; i++ {
		if i == 200 {
			t.Fatal("the trusted agent's key directory was not fetched at start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	verified := false
	for i := range 100 {
		if got := get(sign(fmt.Sprintf("w%d", i))); strings.Contains(got, "openai-crawler|GPTBot|verified|signature") {
			verified = true
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !verified {
		t.Fatal("the signed request never verified from the fetched directory")
	}
	tester.InitServer(globalsWith(g)+expand(identitySites+"\n:@PORT2@/reloaded {\n\trespond x\n}\n"), "caddyfile")
	if got := get(sign("after-reload")); !strings.Contains(got, "verified|signature") {
		t.Errorf("after a reload with the same config: %q, want verified at once", got)
	}
	if n := fetches.Load(); n != 1 {
		t.Errorf("%d fetches of the directory, want 1", n)
	}
	replayed := sign("same-nonce")
	again := replayed.Clone(replayed.Context())
	if got := get(replayed); !strings.Contains(got, "verified|signature") {
		t.Errorf("a fresh nonce: %q", got)
	}
	if got := get(again); strings.Contains(got, "verified|signature") {
		t.Errorf("the same signature and nonce again was verified: %q", got)
	}
}

// signedRequestFor is a GET of path on the test site signed by agent with priv (and nonce,
// unless it is "").
func signedRequestFor(t *testing.T, priv ed25519.PrivateKey, keyID, agent, nonce, path, ua, client string) *http.Request {
	t.Helper()
	return signAt(t, priv, keyID, agent, nonce, path, ua, client, time.Now().Unix()-1)
}

// signAt is signedRequestFor with the signature created at created (valid 300 s).
func signAt(t *testing.T, priv ed25519.PrivateKey, keyID, agent, nonce, path, ua, client string, created int64) *http.Request {
	t.Helper()
	r, err := http.NewRequest("GET", siteURL(path), nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("User-Agent", ua)
	r.Header.Set("X-Forwarded-For", client)
	r.Header.Set("Signature-Agent", fmt.Sprintf(`sig1=%q`, agent))
	params := fmt.Sprintf(`;created=%d;expires=%d;keyid=%q`, created, created+300, keyID)
	if nonce != "" {
		params += fmt.Sprintf(`;nonce=%q`, nonce)
	}
	r.Header.Set("Signature-Input", `sig1=("@method" "@authority" "@path" "signature-agent";key="sig1")`+params+`;tag="web-bot-auth"`)
	r.Header.Set("Signature", "sig1=:AA==:")
	sigs, err := webbotauth.ParseSignatures(r.Header)
	if err != nil || len(sigs) != 1 {
		t.Fatalf("parsing the test's own signature: %v", err)
	}
	base, err := sigs[0].Base(r, webbotauth.Target{Scheme: "http", Authority: r.URL.Host})
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(ed25519.Sign(priv, base))+":")
	return r
}

// TestAcceptSignatureThroughCaddy: with accept_signature, a refused impostor is told, in an
// Accept-Signature field httpsfv reads, what signature to send.
func TestAcceptSignatureThroughCaddy(t *testing.T) {
	site := strings.Replace(identitySites, "\t\t\timpostors 410\n", "\t\t\timpostors 410\n\t\t\taccept_signature\n", 1)
	caddyTesterWithGlobals(t, crawlersGlobals(t, t.TempDir()), site)
	resp, _ := do(t, "GET", siteURL("/page"), "User-Agent: "+googlebotUA, "X-Forwarded-For: 203.0.113.9")
	if resp.StatusCode != 410 {
		t.Fatalf("impostor: %d", resp.StatusCode)
	}
	v := resp.Header.Get("Accept-Signature")
	d, err := httpsfv.UnmarshalDictionary([]string{v})
	if err != nil || v != webbotauth.AcceptSignature("sig1") {
		t.Fatalf("Accept-Signature %q: %v", v, err)
	}
	if _, ok := d.Get("sig1"); !ok {
		t.Errorf("Accept-Signature %q has no sig1", v)
	}
	resp, _ = do(t, "GET", siteURL("/page"), "User-Agent: Mozilla/5.0 Firefox/133.0", "X-Forwarded-For: 203.0.113.9")
	if resp.StatusCode != 200 || resp.Header.Get("Accept-Signature") != "" {
		t.Errorf("a served request: %d, Accept-Signature %q", resp.StatusCode, resp.Header.Get("Accept-Signature"))
	}
}

// TestWebBotAuthMaxValidity: signatures_max_validity bounds a signature's validity: one valid
// for 300 s is expired under a 1-minute bound (no proof: the User-Agent's identity stands)
// and verified under the default 24 h.
func TestWebBotAuthMaxValidity(t *testing.T) {
	priv := ed25519.NewKeyFromSeed([]byte("caddy-robots max validity test!!"))
	key, keyFile := agentKey(t, priv)
	for _, c := range []struct{ opt, want string }{
		{"signatures_max_validity 1m", "||none||"},
		{"", "openai-crawler|GPTBot|verified|signature|"},
	} {
		g := strings.Replace(crawlersGlobals(t, t.TempDir()), "reverse_dns off", "reverse_dns off\n\t\tsignature_agent https://agent.example GPTBot "+keyFile+"\n\t\t"+c.opt, 1)
		caddyTesterWithGlobals(t, g, identitySites)
		res, err := client.Do(signedRequest(t, priv, key.ID, "/page", "Mozilla/5.0 Firefox/133.0", "203.0.113.9", nil))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if !strings.Contains(string(body), c.want) {
			t.Errorf("%q: %q, want %q", c.opt, body, c.want)
		}
	}
}

// agentKey is priv's public key as a Web Bot Auth agent publishes it (a JWK, named by its
// thumbprint), and a file holding it.
func agentKey(t *testing.T, priv ed25519.PrivateKey) (webbotauth.Key, string) {
	t.Helper()
	jwk := fmt.Sprintf(`{"kty":"OKP","crv":"Ed25519","x":%q}`, base64.RawURLEncoding.EncodeToString(priv.Public().(ed25519.PublicKey)))
	key, err := webbotauth.ParseJWK([]byte(jwk))
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "agent.jwk")
	if err := os.WriteFile(keyFile, []byte(jwk), 0o644); err != nil {
		t.Fatal(err)
	}
	return key, keyFile
}
