package policycheck

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// signedHeaders signs a GET of rawURL as a Web Bot Auth agent at agent does, with created
// and expires around at, and returns the header lines it sends (Signature-Agent,
// Signature-Input, Signature); tamper changes the request after signing.
func signedHeaders(t *testing.T, priv ed25519.PrivateKey, keyID, agent, rawURL string, at time.Time, tamper func(*http.Request)) []string {
	t.Helper()
	r, _ := http.NewRequest("GET", rawURL, nil)
	r.Header.Set("Signature-Agent", `sig1="`+agent+`"`)
	r.Header.Set("Signature-Input", fmt.Sprintf(`sig1=("@authority" "@path" "signature-agent";key="sig1");created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`, at.Unix()-1, at.Unix()+300, keyID))
	r.Header.Set("Signature", "sig1=:AA==:")
	sigs, err := webbotauth.ParseSignatures(r.Header)
	if err != nil {
		t.Fatal(err)
	}
	base, err := sigs[0].Base(r, webbotauth.Target{})
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(ed25519.Sign(priv, base))+":")
	if tamper != nil {
		tamper(r)
	}
	var lines []string
	for _, k := range []string{"Signature-Agent", "Signature-Input", "Signature"} {
		lines = append(lines, k+": "+r.Header.Get(k))
	}
	return lines
}

// TestCheckSignature: Check judges the request's signature with the site's verifier as the
// server does, and explains it: the verdict and why, the parameters, the base verified, the
// identity it makes (identity.WithSignature) and whether enforce's impostors refuse it.
func TestCheckSignature(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	keyID, _ := webbotauth.JWK{Kty: "OKP", Crv: "Ed25519", X: base64.RawURLEncoding.EncodeToString(pub)}.Thumbprint()
	_, otherPriv, _ := ed25519.GenerateKey(nil)
	sigs, err := webbotauth.NewVerifier(webbotauth.Options{Offline: true, Agents: []webbotauth.Agent{
		{URL: "https://agent.example", Bot: "openai-crawler", Keys: []webbotauth.Key{{ID: keyID, Public: pub}}},
		{URL: "https://dir.example", Bot: "openai-crawler-user"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	s := site(t, impostorConfig)
	s.Crawlers = googleService(t, nil)
	s.Signatures = sigs
	const page = "https://shop.example/page"
	now := time.Now()
	for _, c := range []struct {
		name, ua, ip string
		headers      []string
		status       string // the signature's
		reason       string // in its reason
		identity     string // the identity's status
		decided      bool
		blocked      int
		text         []string
	}{
		{"verified", browserUA, "203.0.113.9", signedHeaders(t, priv, keyID, "https://agent.example", page, now, nil),
			"verified", "", "verified", true, 0,
			[]string{"Identity: GPTBot (openai-crawler, OpenAI; ai", "verified by signature (a valid Web Bot Auth signature of https://agent.example/, a trusted agent, with key " + keyID, "Signature: sig1 by https://agent.example/ (trusted agent of openai-crawler), keyid " + keyID + ": verified", `  covers:   "@authority" "@path" "signature-agent";key="sig1"`, "  identity: now verified by signature (without it: none)", `    "@authority": shop.example`, `    "@path": /page`}},
		{"forged from Google's address", googlebotUA, "66.249.64.5", signedHeaders(t, otherPriv, keyID, "https://agent.example", page, now, nil),
			"impostor", "does not verify against the agent's key " + keyID, "impostor", true, 410,
			[]string{"impostor (its Web Bot Auth signature, from the agent trusted for GPTBot, does not verify against that agent's key, keyid " + keyID + "; enforce answers 410)", "identity: now impostor by signature (without it: verified); enforce's impostors refuse it with 410"}},
		{"signed for another path", browserUA, "", signedHeaders(t, priv, keyID, "https://agent.example", "https://shop.example/other", now, nil),
			"impostor", "does not verify", "impostor", true, 410, []string{`    "@path": /page`}},
		{"expired", browserUA, "", signedHeaders(t, priv, keyID, "https://agent.example", page, now.Add(-time.Hour), nil),
			"expired", "expired", "none", false, 0,
			[]string{"keyid " + keyID + ": expired (expired)", "  params:   created " + fmt.Sprint(now.Add(-time.Hour).Unix()-1), "not decided by the signature (expired proves nothing either way)"}},
		{"key from a directory", browserUA, "", signedHeaders(t, priv, keyID, "https://dir.example", page, now, nil),
			"unknown-key", webbotauth.NotFetched, "none", false, 0, nil},
		{"covered field missing", browserUA, "", signedHeaders(t, priv, keyID, "https://agent.example", page, now, func(r *http.Request) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `"@path"`, `"@path" "x-missing"`, 1))
		}), "malformed", "x-missing", "none", false, 0, []string{"  base:     none ("}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Check(s, Request{URL: page, Agent: c.ua, ClientIP: c.ip, Headers: c.headers})
			if err != nil {
				t.Fatal(err)
			}
			sig := rep.Verification.Signature
			if sig == nil {
				t.Fatal("no signature in the report")
			}
			if sig.Status != c.status || !strings.Contains(sig.Reason, c.reason) || sig.Decided != c.decided || sig.Label != "sig1" {
				t.Errorf("signature %+v", sig)
			}
			if sig.Agent != strings.Split(c.headers[0], `"`)[1]+"/" {
				t.Errorf("agent %q", sig.Agent)
			}
			if got := rep.Verification.Identity.Status; got != c.identity {
				t.Errorf("identity %s, want %s", got, c.identity)
			}
			if rep.Enforcement.Status != c.blocked {
				t.Errorf("enforcement %+v, want %d", rep.Enforcement, c.blocked)
			}
			if c.status == "verified" || c.name == "forged from Google's address" {
				// The base shown is the one the agent signed: it verifies with the key.
				sigBytes, _ := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(c.headers[2], "Signature: sig1=:"), ":"))
				if ed25519.Verify(pub, []byte(sig.Base), sigBytes) != (c.status == "verified") {
					t.Errorf("the base shown does not verify as the server verified it:\n%s", sig.Base)
				}
			}
			var text, js bytes.Buffer
			if err := rep.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			for _, want := range c.text {
				if !strings.Contains(text.String(), want) {
					t.Errorf("text lacks %q:\n%s", want, text.String())
				}
			}
			if err := rep.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			var back struct {
				Verification struct {
					Signature map[string]any `json:"signature"`
				} `json:"verification"`
			}
			if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Verification.Signature["status"] != c.status || back.Verification.Signature["keyid"] != keyID {
				t.Errorf("JSON %v: %s", err, js.String())
			}
		})
	}
}

// TestCheckSignatureRequestErrors: a header line that is not one, or a User-Agent in the
// header lines other than the agent, is the request's error; a signature on a site that
// verifies none is noted and not judged.
func TestCheckSignatureRequestErrors(t *testing.T) {
	s := site(t, impostorConfig)
	for _, h := range []string{"no colon", "User-Agent: curl/8"} {
		_, err := Check(s, Request{URL: "https://shop.example/", Agent: "GPTBot", Headers: []string{h}})
		var re *RequestError
		if !errors.As(err, &re) || re.Field != "Headers" {
			t.Errorf("%q: %v", h, err)
		}
	}
	rep, err := Check(s, Request{URL: "https://shop.example/", Agent: "GPTBot", Headers: []string{"Signature-Input: sig1=()", "Signature: sig1=:AA==:"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verification != nil || !strings.Contains(strings.Join(rep.Notes, "\n"), "verifies no Web Bot Auth signatures") {
		t.Errorf("%+v %q", rep.Verification, rep.Notes)
	}
}

// TestCheckSignatureSigned: a valid signature naming no agent, of a key the configuration
// holds, is signed (attributed to the key alone): the identity's status, and the line says so.
func TestCheckSignatureSigned(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	keyID, _ := webbotauth.JWK{Kty: "OKP", Crv: "Ed25519", X: base64.RawURLEncoding.EncodeToString(pub)}.Thumbprint()
	sigs, err := webbotauth.NewVerifier(webbotauth.Options{Offline: true, Agents: []webbotauth.Agent{
		{URL: "https://agent.example", Bot: "openai-crawler", Keys: []webbotauth.Key{{ID: keyID, Public: pub}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	s := site(t, impostorConfig)
	s.Signatures = sigs // no crawler verification: the signature alone
	r, _ := http.NewRequest("GET", "https://shop.example/page", nil)
	now := time.Now().Unix()
	r.Header.Set("Signature-Input", fmt.Sprintf(`sig1=("@authority");created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`, now, now+60, keyID))
	r.Header.Set("Signature", "sig1=:AA==:")
	parsed, _ := webbotauth.ParseSignatures(r.Header)
	base, _ := parsed[0].Base(r, webbotauth.Target{})
	sig := "Signature: sig1=:" + base64.StdEncoding.EncodeToString(ed25519.Sign(priv, base)) + ":"
	rep, err := Check(s, Request{URL: "https://shop.example/page", Agent: browserUA, Headers: []string{"Signature-Input: " + r.Header.Get("Signature-Input"), sig}})
	if err != nil {
		t.Fatal(err)
	}
	v := rep.Verification
	if v == nil || v.Signature == nil || v.Signature.Status != "signed" || v.Identity.Status != "signed" || v.Identity.By != "signature" || !v.Signature.Decided {
		t.Fatalf("%+v", v)
	}
	var text bytes.Buffer
	_ = rep.WriteText(&text)
	for _, want := range []string{"Identity: signed (a valid Web Bot Auth signature, with key " + keyID, "  identity: now signed by signature (without it: none)\n"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), "Crawler verification:") {
		t.Errorf("lists shown without crawler verification:\n%s", text.String())
	}
}

// TestCheckSignatureGolden compares the JSON of a forged signature's check with
// testdata/check-signature-forged.json, the documented example of verification.signature (a
// fixed clock and key: a signature for /other presented for /page, from an address of
// Google's list); go test -run TestCheckSignatureGolden -update rewrites it.
func TestCheckSignatureGolden(t *testing.T) {
	priv := ed25519.NewKeyFromSeed([]byte("policycheck signature golden key"))
	pub := priv.Public().(ed25519.PublicKey)
	keyID, _ := webbotauth.JWK{Kty: "OKP", Crv: "Ed25519", X: base64.RawURLEncoding.EncodeToString(pub)}.Thumbprint()
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	sigs, err := webbotauth.NewVerifier(webbotauth.Options{Offline: true, Now: func() time.Time { return now }, Agents: []webbotauth.Agent{
		{URL: "https://agent.example", Bot: "openai-crawler", Keys: []webbotauth.Key{{ID: keyID, Public: pub}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	s := site(t, impostorConfig)
	s.Crawlers = googleService(t, func() time.Time { return now })
	s.Signatures = sigs
	headers := signedHeaders(t, priv, keyID, "https://agent.example", "https://example.com/other", now, nil)
	rep, err := Check(s, Request{URL: "https://example.com/page", Agent: googlebotUA, ClientIP: "66.249.64.5", Headers: headers})
	if err != nil {
		t.Fatal(err)
	}
	want := wantGolden(t, rep, "check-signature-forged.json")
	var back Report
	dec := json.NewDecoder(bytes.NewReader(want))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&back); err != nil || !reflect.DeepEqual(&back, rep) {
		t.Errorf("round trip: %v\n%+v\n%+v", err, back.Verification, rep.Verification)
	}
}
