package caddymodule

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/policycheck"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// TestRobotsCheckSignKey: `caddy robots check --sign-key --sign-agent` signs its request as
// the agent, so that a signature_agent setup is tried without a signer. With a generated key
// pair, the public key in the key file the Caddyfile's signature_agent names: check with the
// private key says verified by signature, as the same config served by Caddy answers a
// request webbotauth.Sign signed with it; with another key it proves nothing (unknown-key),
// and Caddy agrees; --sign-key without --sign-agent is a usage error.
func TestRobotsCheckSignKey(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	_, other, _ := ed25519.GenerateKey(nil)
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pemOf := func(k ed25519.PrivateKey) string {
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	}
	jwk, _ := json.Marshal(webbotauth.JWKOf(pub))
	keyID, _ := webbotauth.JWKOf(pub).Thumbprint()
	keyFile := write("agent.jwk", string(jwk))
	privFile := write("agent.pem", pemOf(priv))
	otherFile := write("other.pem", pemOf(other))
	globals := strings.Replace(crawlersGlobals(t, t.TempDir()), "reverse_dns off", "reverse_dns off\n\t\tsignature_agent https://agent.example GPTBot "+keyFile, 1)
	caddyTesterWithGlobals(t, globals, checkIdentitySite)
	caddyfile := write("Caddyfile", globalsWith(globals)+expand(checkIdentitySite))
	const browser = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	for _, c := range []struct {
		name     string
		key      string
		priv     ed25519.PrivateKey
		sig      string // the signature's status
		identity string // bot|status|by, as Caddy's respond writes it
		text     string
	}{
		{"the agent's key", privFile, priv, "verified", "openai-crawler|verified|signature", "verified by signature (a valid Web Bot Auth signature of https://agent.example/, a trusted agent, with key " + keyID + ")"},
		{"another key", otherFile, other, "unknown-key", "|none|", ": unknown-key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"--config", caddyfile, "--url", siteURL("/page"), "--agent", browser, "--sign-key", c.key, "--sign-agent", "https://agent.example"}
			out, errOut, st := runCheck(t, args...)
			if st != 0 || !strings.Contains(out, c.text) || !strings.Contains(out, `covers:   "@authority" "signature-agent";key="sig1"`) {
				t.Errorf("status %d, output lacks %q:\n%s%s", st, c.text, out, errOut)
			}
			js, errOut, _ := runCheck(t, append(args, "--format", "json")...)
			var rep struct {
				Verification struct {
					Identity  policycheck.Identity   `json:"identity"`
					Signature *policycheck.Signature `json:"signature"`
				} `json:"verification"`
			}
			if err := json.Unmarshal([]byte(js), &rep); err != nil || rep.Verification.Signature == nil {
				t.Fatalf("%v\n%s%s", err, js, errOut)
			}
			id := rep.Verification.Identity
			if s := rep.Verification.Signature; s.Status != c.sig || s.Agent != "https://agent.example/" {
				t.Errorf("check's signature %+v, want %s", s, c.sig)
			}
			// Caddy, serving the config, answers a request signed with the same key alike.
			r, _ := http.NewRequest("GET", siteURL("/page"), nil)
			r.Header.Set("User-Agent", browser)
			if err := webbotauth.Sign(r, webbotauth.SignOptions{Key: c.priv, Agent: "https://agent.example"}); err != nil {
				t.Fatal(err)
			}
			res, err := client.Do(r)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			checkSays := id.Bot + "|" + id.Status + "|" + id.By
			if string(body) != c.identity || checkSays != c.identity {
				t.Errorf("Caddy answers %q, check says %s, want %s", body, checkSays, c.identity)
			}
		})
	}
	if _, errOut, st := runCheck(t, "--config", caddyfile, "--url", siteURL("/page"), "--sign-key", privFile); st != 2 || !strings.Contains(errOut, "--sign-key needs --sign-agent") {
		t.Errorf("--sign-key alone: status %d, %s", st, errOut)
	}
}
