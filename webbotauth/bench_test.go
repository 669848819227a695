package webbotauth

import (
	"crypto/ed25519"
	"net/http"
	"testing"
	"time"
)

// BenchmarkVerifyUnsigned: a request without Signature-Input, the common case, returns at
// once and allocates nothing.
func BenchmarkVerifyUnsigned(b *testing.B) {
	v, err := NewVerifier(Options{Agents: []Agent{rfcAgent(b)}, AllowTestKeys: true})
	if err != nil {
		b.Fatal(err)
	}
	r, _ := http.NewRequest("GET", "https://shop.example/items", nil)
	r.Header.Set("User-Agent", "Mozilla/5.0")
	r.Header.Set("Accept", "text/html")
	b.ReportAllocs()
	for b.Loop() {
		if v.Verify(r, Target{}).Status != Unsigned {
			b.Fatal("not unsigned")
		}
	}
}

func signedBenchRequest(b *testing.B) (*Verifier, *http.Request, ed25519.PublicKey, []byte, []byte) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	id := mustThumbprint(b, pub)
	const now = 1_800_000_000
	v, err := NewVerifier(Options{Agents: []Agent{{URL: "https://agent.example", Bot: "b", Keys: []Key{{ID: id, Public: pub}}}},
		Now: func() time.Time { return time.Unix(now, 0) }})
	if err != nil {
		b.Fatal(err)
	}
	r, _ := http.NewRequest("GET", "https://shop.example/items?id=7", nil)
	r.Header.Set("Signature-Agent", `sig1="https://agent.example"`)
	r.Header.Set("Signature-Input", `sig1=("@method" "@authority" "@path" "signature-agent";key="sig1");created=`+itoa(now)+`;expires=`+itoa(now+300)+`;keyid="`+id+`";tag="web-bot-auth"`)
	r.Header.Set("Signature", "sig1=:AA==:")
	sigs, err := ParseSignatures(r.Header)
	if err != nil {
		b.Fatal(err)
	}
	base, _ := sigs[0].Base(r, Target{})
	sig := ed25519.Sign(priv, base)
	r.Header.Set("Signature", "sig1=:"+b64(sig)+":")
	return v, r, pub, base, sig
}

// BenchmarkVerifySigned: a signed request of a trusted agent whose key is configured:
// parsing, the base, the Ed25519 check.
func BenchmarkVerifySigned(b *testing.B) {
	v, r, _, _, _ := signedBenchRequest(b)
	b.ReportAllocs()
	for b.Loop() {
		if res := v.Verify(r, Target{}); res.Status != Verified {
			b.Fatal(res)
		}
	}
}

// BenchmarkEd25519Verify: the bare ed25519.Verify of the same base, what Verify costs at
// least.
func BenchmarkEd25519Verify(b *testing.B) {
	_, _, pub, base, sig := signedBenchRequest(b)
	b.ReportAllocs()
	for b.Loop() {
		if !ed25519.Verify(pub, base, sig) {
			b.Fatal("no")
		}
	}
}
