package webbotauth

import (
	"crypto/ed25519"
	"encoding/base64"
	"strconv"
	"testing"
)

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func jwkOf(pub ed25519.PublicKey) JWK {
	return JWK{Kty: "OKP", Crv: "Ed25519", X: base64.RawURLEncoding.EncodeToString(pub)}
}

func mustThumbprint(t testing.TB, pub ed25519.PublicKey) string {
	t.Helper()
	id, err := jwkOf(pub).Thumbprint()
	if err != nil {
		t.Fatal(err)
	}
	return id
}
