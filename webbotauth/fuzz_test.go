package webbotauth

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
)

// FuzzParseSignatures: any Signature-Input, Signature and Signature-Agent fields are parsed
// without panicking, and what is accepted is consistent: the serialized parameters read
// back the same, the base of an accepted signature ends in them, and Verify on the request
// never panics. Seeds are in testdata/fuzz/FuzzParseSignatures (the RFC's and the draft's
// fields among them).
func FuzzParseSignatures(f *testing.F) {
	f.Add(`sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"`,
		`sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:`, ``)
	raw := "POST /foo?param=Value&Pet=dog HTTP/1.1\r\nHost: example.com\r\nDate: Tue, 20 Apr 2021 02:07:55 GMT\r\nContent-Type: application/json\r\nContent-Length: 18\r\n\r\n"
	v, err := NewVerifier(Options{Agents: []Agent{rfcAgent(f)}, AllowTestKeys: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, input, sig, agent string) {
		r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
		if err != nil {
			t.Fatal(err)
		}
		r.Header["Signature-Input"] = []string{input}
		r.Header["Signature"] = []string{sig}
		if agent != "" {
			r.Header["Signature-Agent"] = []string{agent}
		}
		v.Verify(r, Target{})
		sigs, err := ParseSignatures(r.Header)
		if err != nil {
			return
		}
		for _, s := range sigs {
			again, err := ParseSignatures(http.Header{"Signature-Input": {"x=" + s.Params}, "Signature": {"x=:AA==:"}})
			if err != nil || len(again) != 1 || again[0].Params != s.Params || len(again[0].Components) != len(s.Components) {
				t.Fatalf("%q does not read back: %v", s.Params, err)
			}
			if base, err := s.Base(r, Target{}); err == nil && !strings.HasSuffix(string(base), `"@signature-params": `+s.Params) {
				t.Fatalf("base %q", base)
			}
			s.SignatureAgent(r.Header)
		}
	})
}

// FuzzParseJWKS: any body a directory can serve is read without panicking, and every key
// kept is an Ed25519 key named by its own thumbprint, at most MaxKeys of them.
func FuzzParseJWKS(f *testing.F) {
	f.Add([]byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs","use":"sig"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		keys, err := ParseJWKS(body)
		if err != nil {
			return
		}
		if len(keys) > MaxKeys {
			t.Fatalf("%d keys", len(keys))
		}
		for _, k := range keys {
			if len(k.Public) != 32 || k.ID != mustThumbprint(t, k.Public) {
				t.Fatalf("key %+v", k)
			}
		}
	})
}
