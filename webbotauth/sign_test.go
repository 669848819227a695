package webbotauth

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSignVerifies: over generated agents, labels, hosts, times, validities and nonces, Sign
// produces fields whose signature verifies with ed25519 over the base the test writes by hand
// from RFC 9421 (not Signature.Base), a Verifier trusting the agent with the key's public
// half says Verified (its bot), one trusting another key for it says UnknownKey, a forged
// keyid naming the trusted key says Impostor, and an altered authority fails.
func TestSignVerifies(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 400
	if raceEnabled {
		n = 40
	}
	for i := range n {
		pub, priv, _ := ed25519.GenerateKey(nil)
		otherPub, other, _ := ed25519.GenerateKey(nil)
		agent := fmt.Sprintf("https://agent%d.example", rng.IntN(1000))
		if rng.IntN(2) == 0 {
			agent += "/" + []string{"bot", "a/b", ""}[rng.IntN(3)]
		}
		label := []string{"", "sig1", "wba", "a-1", "x.y"}[rng.IntN(5)]
		host := []string{"shop.example", "Shop.Example:443", "shop.example:8443", "[2001:db8::1]:8080"}[rng.IntN(4)]
		now := time.Unix(1_800_000_000+rng.Int64N(1e6), 0)
		validity := time.Duration(1+rng.IntN(600)) * time.Second
		nonce := ""
		if rng.IntN(2) == 0 {
			nonce = base64.StdEncoding.EncodeToString([]byte(fmt.Sprint(rng.Uint64())))
		}
		r, _ := http.NewRequest("GET", "https://"+host+"/p?q=1", nil)
		o := SignOptions{Key: priv, Agent: agent, Label: label, Created: now, Validity: validity, Nonce: nonce}
		if err := Sign(r, o); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		// The base, by hand.
		if label == "" {
			label = "sig1"
		}
		id, _ := JWKOf(pub).Thumbprint()
		authority := strings.ToLower(strings.TrimSuffix(host, ":443"))
		params := fmt.Sprintf(`("@authority" "signature-agent";key=%q);created=%d;expires=%d;keyid=%q;alg="ed25519"`, label, now.Unix(), now.Add(validity).Unix(), id)
		if nonce != "" {
			params += fmt.Sprintf(";nonce=%q", nonce)
		}
		params += `;tag="web-bot-auth"`
		base := fmt.Sprintf("\"@authority\": %s\n\"signature-agent\";key=%q: %q\n\"@signature-params\": %s", authority, label, agent, params)
		if got := r.Header.Get("Signature-Input"); got != label+"="+params {
			t.Fatalf("case %d: Signature-Input %q, want %q", i, got, label+"="+params)
		}
		if got := r.Header.Get("Signature-Agent"); got != fmt.Sprintf("%s=%q", label, agent) {
			t.Fatalf("case %d: Signature-Agent %q", i, got)
		}
		sig := r.Header.Get("Signature")
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(sig, label+"=:"), ":"))
		if err != nil || !ed25519.Verify(pub, []byte(base), raw) {
			t.Fatalf("case %d: Signature %q does not verify over\n%s", i, sig, base)
		}
		clock := func() time.Time { return now.Add(time.Duration(rng.Int64N(int64(validity)))) }
		verify := func(keys ...ed25519.PublicKey) Result {
			var ks []Key
			for _, k := range keys {
				key, err := JWKOf(k).Ed25519Key()
				if err != nil {
					t.Fatal(err)
				}
				ks = append(ks, key)
			}
			v, err := NewVerifier(Options{Agents: []Agent{{URL: agent, Bot: "test-bot", Keys: ks}}, Offline: true, Now: clock})
			if err != nil {
				t.Fatal(err)
			}
			return v.Verify(r, Target{})
		}
		if res := verify(pub); res.Status != Verified || res.Bot != "test-bot" {
			t.Fatalf("case %d: trusted key: %+v", i, res)
		}
		if res := verify(otherPub); res.Status != UnknownKey {
			t.Fatalf("case %d: another key trusted: %+v", i, res)
		}
		// A forger: another key, the trusted key's keyid.
		o.Key, o.KeyID = other, id
		if err := Sign(r, o); err != nil {
			t.Fatal(err)
		}
		if res := verify(pub); res.Status != Impostor {
			t.Fatalf("case %d: forged keyid: %+v", i, res)
		}
		// Signed for one authority, sent to another.
		o.Key, o.KeyID = priv, ""
		_ = Sign(r, o)
		r.Host = "other.example"
		if res := verify(pub); res.Status != Impostor {
			t.Fatalf("case %d: another authority: %+v", i, res)
		}
	}
}

// TestParsePrivateKey: PEM PKCS #8 and JWK private keys read as the key; a public JWK, a
// mismatched x, an RSA PEM key and garbage are clear errors.
func TestParsePrivateKey(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	j := JWKOf(pub)
	jwk, _ := json.Marshal(struct {
		JWK
		D string `json:"d"`
	}{j, base64.RawURLEncoding.EncodeToString(priv.Seed())})
	for name, data := range map[string][]byte{"pem": pemKey, "jwk": jwk} {
		got, err := ParsePrivateKey(data)
		if err != nil || !got.Equal(priv) {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, otherPriv, _ := ed25519.GenerateKey(nil)
	wrongX, _ := json.Marshal(struct {
		JWK
		D string `json:"d"`
	}{j, base64.RawURLEncoding.EncodeToString(otherPriv.Seed())})
	public, _ := json.Marshal(j)
	for name, c := range map[string]struct {
		data []byte
		msg  string
	}{
		"public jwk": {public, "no private member d"},
		"wrong x":    {wrongX, "x is not the public key of d"},
		"cert pem":   {pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}}), "not a PRIVATE KEY"},
		"garbage":    {[]byte("hello"), "neither a PEM private key nor a JWK"},
		"rsa jwk":    {[]byte(`{"kty":"RSA","n":"AQAB","e":"AQAB","d":"AQAB"}`), "not an Ed25519 key"},
	} {
		_, err := ParsePrivateKey(c.data)
		if err == nil || !errors.Is(err, ErrKey) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %q", name, err, c.msg)
		}
	}
}
