package caddymodule

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/policycheck"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// signedAt is a GET of path on the test site signed by agent with priv as created at created
// (valid 300 s), from ua at client; tamper changes it after signing.
func signedAt(t *testing.T, priv ed25519.PrivateKey, keyID, agent, path, ua, client string, created int64, tamper func(*http.Request)) *http.Request {
	t.Helper()
	r := signAt(t, priv, keyID, agent, "", path, ua, client, created)
	if tamper != nil {
		tamper(r)
	}
	return r
}

// signatureArgs are check's --header flags for r's signature fields, as an operator pastes
// them.
func signatureArgs(r *http.Request) []string {
	var args []string
	for _, k := range []string{"Signature-Agent", "Signature-Input", "Signature"} {
		args = append(args, "--header", k+": "+r.Header.Get(k))
	}
	return args
}

// TestRobotsCheckSignature runs `caddy robots check --header` with a request's Web Bot Auth
// signature on a Caddyfile trusting https://agent.example as GPTBot (a key file) and
// https://dir.example as Googlebot (keys from its directory), and compares what check says
// with what the same config, served by Caddy, answers the same signed request: the identity
// the signature makes, enforce's impostors, the tags crawler matchers choose. A forged
// signature is explained (the key it fails against), an expired one proves nothing, and a
// key from a directory is unknown to check until --signature-keys gives it.
func TestRobotsCheckSignature(t *testing.T) {
	priv := ed25519.NewKeyFromSeed([]byte("caddy-robots check signature!!!!"))
	jwk := fmt.Sprintf(`{"kty":"OKP","crv":"Ed25519","x":%q}`, base64.RawURLEncoding.EncodeToString(priv.Public().(ed25519.PublicKey)))
	key, err := webbotauth.ParseJWK([]byte(jwk))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "agent.jwk")
	jwksFile := filepath.Join(dir, "directory.json")
	if err := os.WriteFile(keyFile, []byte(jwk), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(jwksFile, []byte(`{"keys":[`+jwk+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	globals := strings.Replace(crawlersGlobals(t, t.TempDir()), "reverse_dns off", "reverse_dns off\n\t\tsignature_agent https://agent.example GPTBot "+keyFile+"\n\t\tsignature_agent https://dir.example Googlebot", 1)
	caddyTesterWithGlobals(t, globals, checkIdentitySite)
	caddyfile := filepath.Join(t.TempDir(), "Caddyfile")
	if err := os.WriteFile(caddyfile, []byte(globalsWith(globals)+expand(checkIdentitySite)), 0o644); err != nil {
		t.Fatal(err)
	}
	const browser = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	now := time.Now().Unix()
	type sigJSON struct {
		Verification struct {
			Identity  policycheck.Identity   `json:"identity"`
			Signature *policycheck.Signature `json:"signature"`
		} `json:"verification"`
		Enforcement policycheck.Enforcement  `json:"enforcement"`
		Response    policycheck.ResponseTags `json:"response"`
	}
	for _, c := range []struct {
		name, ip string
		r        *http.Request
		sig      string // the signature's status
		identity string // bot|status|by
		status   int    // enforce's, 0 when it passes
		text     []string
	}{
		{"verified, browser header", "203.0.113.9", signedAt(t, priv, key.ID, "https://agent.example", "/page", browser, "203.0.113.9", now-1, nil),
			"verified", "openai-crawler|verified|signature", 0, []string{
				"Identity: GPTBot (openai-crawler",
				"verified by signature (a valid Web Bot Auth signature of https://agent.example/, a trusted agent, with key " + key.ID + ")\n",
				"Signature: sig1 by https://agent.example/ (trusted agent of openai-crawler), keyid " + key.ID + ": verified\n",
				`  covers:   "@method" "@authority" "@path" "signature-agent";key="sig1"` + "\n",
				fmt.Sprintf("  params:   created %d (%s), expires %d", now-1, time.Unix(now-1, 0).UTC().Format(time.RFC3339), now+299),
				"  identity: now verified by signature (without it: none)\n",
				"    \"@method\": GET\n    \"@authority\": " + strings.TrimPrefix(siteURL(""), "http://") + "\n    \"@path\": /page\n",
				"Robots-Tag:     *;max-snippet=50\n",
			}},
		{"forged, from inside Google's list", "66.249.64.5", signedAt(t, priv, key.ID, "https://agent.example", "/page", googlebotUA, "66.249.64.5", now-1, func(r *http.Request) { r.URL.Path = "/other" }),
			"impostor", "openai-crawler|impostor|signature", 410, []string{
				": impostor (the signature does not verify against the agent's key " + key.ID + ")\n",
				"  identity: now impostor by signature (without it: verified); enforce's impostors refuse it with 410\n",
				"    \"@path\": /other\n",
				"Enforcement: BLOCKED with 410",
			}},
		{"expired, from inside Google's list", "66.249.64.5", signedAt(t, priv, key.ID, "https://agent.example", "/page", googlebotUA, "66.249.64.5", now-3600, nil),
			"expired", "google-crawler|verified|ip-list", 0, []string{
				"keyid " + key.ID + ": expired (expired)\n",
				"  identity: not decided by the signature (expired proves nothing either way): the User-Agent and address decide\n",
				"Identity: Googlebot (google-crawler, Google; search-engine) from 66.249.64.5: verified by ip-list",
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"--config", caddyfile, "--url", siteURL(c.r.URL.Path), "--agent", c.r.Header.Get("User-Agent"), "--client-ip", c.ip}, signatureArgs(c.r)...)
			out, errOut, _ := runCheck(t, args...)
			for _, w := range c.text {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s%s", w, out, errOut)
				}
			}
			js, errOut, _ := runCheck(t, append(args, "--format", "json")...)
			var rep sigJSON
			if err := json.Unmarshal([]byte(js), &rep); err != nil || rep.Verification.Signature == nil {
				t.Fatalf("%v\n%s%s", err, js, errOut)
			}
			sig, id := rep.Verification.Signature, rep.Verification.Identity
			if sig.Status != c.sig || sig.Label != "sig1" || sig.KeyID != key.ID || sig.Agent != "https://agent.example/" || len(sig.Components) != 4 || sig.Created == nil || sig.Base == "" {
				t.Errorf("signature %+v", sig)
			}
			if got := id.Bot + "|" + id.Status + "|" + id.By; got != c.identity {
				t.Errorf("check says %s, want %s", got, c.identity)
			}
			if e := rep.Enforcement; e.Status != c.status || e.Impostor != (c.status == 410) {
				t.Errorf("check's enforcement %+v, want %d", e, c.status)
			}
			// What Caddy answers the same request.
			res, err := client.Do(c.r)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if c.status != 0 {
				if res.StatusCode != c.status {
					t.Errorf("Caddy answers %d %s, check %+v", res.StatusCode, body, rep.Enforcement)
				}
				return
			}
			if res.StatusCode != 200 || string(body) != c.identity {
				t.Errorf("Caddy answers %d %q, check says %s", res.StatusCode, body, c.identity)
			}
			if got := strings.Join(res.Header.Values("Robots-Tag"), ", "); got != rep.Response.RobotsTag {
				t.Errorf("Caddy sends Robots-Tag %q, check says %q", got, rep.Response.RobotsTag)
			}
		})
	}

	// An agent whose keys come from its directory: check fetches none (not sent to Caddy,
	// which would fetch it), and says so; --signature-keys gives the directory's keys.
	r := signedAt(t, priv, key.ID, "https://dir.example", "/page", browser, "203.0.113.9", now-1, nil)
	args := append([]string{"--config", caddyfile, "--url", siteURL("/page"), "--agent", browser, "--client-ip", "203.0.113.9"}, signatureArgs(r)...)
	out, errOut, st := runCheck(t, args...)
	for _, w := range []string{
		": unknown-key (" + webbotauth.NotFetched + ")\n",
		"Note: check fetches no key directory: the agent's keys come from its directory (https://dir.example" + webbotauth.WellKnownPath + ")",
		"--signature-keys",
	} {
		if st != 0 || !strings.Contains(out, w) {
			t.Errorf("key from a directory: status %d, output lacks %q:\n%s%s", st, w, out, errOut)
		}
	}
	out, errOut, st = runCheck(t, append(args, "--signature-keys", jwksFile)...)
	if st != 0 || !strings.Contains(out, "Identity: Googlebot (google-crawler, Google; search-engine) from 203.0.113.9: verified by signature") || !strings.Contains(out, "(trusted agent of google-crawler), keyid "+key.ID+": verified\n") {
		t.Errorf("--signature-keys: status %d:\n%s%s", st, out, errOut)
	}
	// The keys of an agent with a key file are the file's: --signature-keys is refused.
	r = signedAt(t, priv, key.ID, "https://agent.example", "/page", browser, "203.0.113.9", now-1, nil)
	if _, errOut, st := runCheck(t, append([]string{"--config", caddyfile, "--url", siteURL("/page"), "--signature-keys", jwksFile}, signatureArgs(r)...)...); st != 2 || !strings.Contains(errOut, "--signature-keys: the signature's agent https://agent.example/ is not one the config trusts with its keys from its directory") {
		t.Errorf("--signature-keys for an agent with a key file: status %d, %s", st, errOut)
	}
	// A header line that is not one is a usage error naming the flag.
	if _, errOut, st := runCheck(t, "--config", caddyfile, "--url", siteURL("/page"), "--header", "Signature-Input"); st != 2 || !strings.Contains(errOut, `--header "Signature-Input": give a header line`) {
		t.Errorf("a bad header line: status %d, %s", st, errOut)
	}
}
