package webbotauth

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

// rfc9421JWK is test-key-ed25519 of RFC 9421 B.1.4 as a JWK; the draft's vectors name it by
// its thumbprint.
const (
	rfc9421X          = "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs"
	rfc9421Thumbprint = "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"
)

// TestThumbprintRFC7638 is the example of RFC 7638 section 3.1 (an RSA key): the canonical
// JSON of the required members in order, hashed.
func TestThumbprintRFC7638(t *testing.T) {
	k := JWK{Kty: "RSA", E: "AQAB", Alg: "RS256", Kid: "2011-04-29",
		N: "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"}
	got, err := k.Thumbprint()
	if err != nil {
		t.Fatal(err)
	}
	if want := "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"; got != want {
		t.Errorf("thumbprint %s, want %s", got, want)
	}
}

// TestThumbprintEd25519: the RFC 9421 Ed25519 test key's thumbprint is the keyid of the
// draft's test vectors and the kid of its signed directory example.
func TestThumbprintEd25519(t *testing.T) {
	k, err := ParseJWK([]byte(`{"kty":"OKP","crv":"Ed25519","x":"` + rfc9421X + `","use":"sig"}`))
	if err != nil {
		t.Fatal(err)
	}
	if k.ID != rfc9421Thumbprint {
		t.Errorf("thumbprint %s, want %s", k.ID, rfc9421Thumbprint)
	}
	if len(k.Public) != 32 {
		t.Errorf("key of %d bytes", len(k.Public))
	}
	// Member order and extra members do not change it.
	k2, err := ParseJWK([]byte(`{"x":"` + rfc9421X + `","kid":"` + rfc9421Thumbprint + `","crv":"Ed25519","nbf":1,"kty":"OKP"}`))
	if err != nil || k2.ID != k.ID || k2.NotBefore != 1 {
		t.Errorf("reordered: %+v %v", k2, err)
	}
}

func TestParseJWKRefuses(t *testing.T) {
	for _, s := range []string{
		`{"kty":"OKP","crv":"X25519","x":"` + rfc9421X + `"}`,
		`{"kty":"OKP","crv":"Ed25519","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0b"}`,
		// The same key with stray bits in its last character (found by FuzzParseJWKS).
		`{"kty":"OKP","crv":"Ed25519","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0b1"}`,
		`{"kty":"OKP","crv":"Ed25519","x":"` + rfc9421X + `","kid":"not-the-thumbprint"}`,
		`{"kty":"OKP","crv":"Ed25519","x":"` + rfc9421X + `","use":"enc"}`,
		`{"kty":"OKP","crv":"Ed25519","x":"` + rfc9421X + `","alg":"RS256"}`,
		`{"kty":"RSA","n":"AQAB"}`,
		`not json`,
	} {
		if _, err := ParseJWK([]byte(s)); !errors.Is(err, ErrKey) {
			t.Errorf("%s: %v, want ErrKey", s, err)
		}
	}
}

func TestParseJWKS(t *testing.T) {
	set := `{"keys":[{"kty":"RSA","e":"AQAB","n":"xx"},{"kty":"OKP","crv":"Ed25519","x":"short"},` +
		`{"kty":"OKP","crv":"Ed25519","x":"` + rfc9421X + `","kid":"NFcWBst6DXG-N35nHdzMrioWntdzNZghQSkjHNMMSjw"},` +
		`{"kty":"OKP","crv":"Ed25519","x":"` + rfc9421X + `"}]}`
	keys, err := ParseJWKS([]byte(set))
	if err != nil || len(keys) != 1 || keys[0].ID != rfc9421Thumbprint {
		t.Fatalf("%+v %v", keys, err)
	}
	for _, s := range []string{
		`{}`, `[]`, `{"keys":{}}`,
		`{"keys":[` + strings.Repeat(`{"kty":"OKP","crv":"Ed25519","x":"`+rfc9421X+`"},`, MaxKeys) + `{"kty":"OKP","crv":"Ed25519","x":"` + rfc9421X + `"}]}`,
		`{"keys":[],"pad":"` + strings.Repeat("x", MaxDirectorySize) + `"}`,
	} {
		if _, err := ParseJWKS([]byte(s)); !errors.Is(err, ErrKey) {
			t.Errorf("%.60s: %v, want ErrKey", s, err)
		}
	}
}

// TestParseKeys: a key file is a JWK Set or one JWK; anything else is an error.
func TestParseKeys(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(nil)
	one := `{"kty":"OKP","crv":"Ed25519","x":"` + base64.RawURLEncoding.EncodeToString(pub) + `"}`
	for _, data := range []string{one, `{"keys":[` + one + `]}`} {
		if keys, err := ParseKeys([]byte(data)); err != nil || len(keys) != 1 || !keys[0].Public.Equal(pub) {
			t.Errorf("%s: %v %v", data, keys, err)
		}
	}
	if _, err := ParseKeys([]byte(`{"kty":"RSA"}`)); err == nil {
		t.Error("an RSA key read as an Ed25519 key file")
	}
}
