package webbotauth_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"net/http"
	"time"

	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// A Verifier that trusts one agent, whose key is configured, judges a request the agent
// signed and one that names no signature.
func Example() {
	// The agent's key as it publishes it: a JWK, named by its thumbprint.
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	jwk := fmt.Sprintf(`{"kty":"OKP","crv":"Ed25519","x":%q}`,
		base64.RawURLEncoding.EncodeToString(priv.Public().(ed25519.PublicKey)))
	key, err := webbotauth.ParseJWK([]byte(jwk))
	if err != nil {
		panic(err)
	}
	now := time.Unix(1_800_000_000, 0)
	v, err := webbotauth.NewVerifier(webbotauth.Options{
		Agents: []webbotauth.Agent{{URL: "https://agent.example", Bot: "example-agent", Keys: []webbotauth.Key{key}}},
		Now:    func() time.Time { return now },
	})
	if err != nil {
		panic(err)
	}

	// What the agent sends.
	r, _ := http.NewRequest("GET", "https://shop.example/items", nil)
	r.Header.Set("Signature-Agent", `sig1="https://agent.example"`)
	r.Header.Set("Signature-Input", fmt.Sprintf(`sig1=("@method" "@authority" "@path" "signature-agent";key="sig1");created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`,
		now.Unix(), now.Unix()+300, key.ID))
	r.Header.Set("Signature", "sig1=:AA==:")
	sigs, _ := webbotauth.ParseSignatures(r.Header)
	base, _ := sigs[0].Base(r, webbotauth.Target{})
	r.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(ed25519.Sign(priv, base))+":")

	res := v.Verify(r, webbotauth.Target{})
	fmt.Println(res.Status, res.Bot)

	r.URL.Path = "/admin" // not what was signed
	fmt.Println(v.Verify(r, webbotauth.Target{}).Status)

	plain, _ := http.NewRequest("GET", "https://shop.example/", nil)
	fmt.Println(v.Verify(plain, webbotauth.Target{}).Status)
	// Output:
	// verified example-agent
	// impostor
	// unsigned
}
