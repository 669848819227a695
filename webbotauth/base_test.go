package webbotauth

import (
	"bufio"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// rfc9421Request is the test request of RFC 9421 Appendix B.2, as a server reads it.
func rfc9421Request(t testing.TB, extra ...string) *http.Request {
	t.Helper()
	raw := "POST /foo?param=Value&Pet=dog HTTP/1.1\r\n" +
		"Host: example.com\r\n" +
		"Date: Tue, 20 Apr 2021 02:07:55 GMT\r\n" +
		"Content-Type: application/json\r\n" +
		"Content-Digest: sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:\r\n" +
		"Content-Length: 18\r\n" +
		strings.Join(extra, "") +
		"\r\n" +
		`{"hello": "world"}`
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// rfc9421Ed25519 is the public key test-key-ed25519 of RFC 9421 Appendix B.1.4.
func rfc9421Ed25519(t testing.TB) ed25519.PublicKey {
	t.Helper()
	der, err := base64.StdEncoding.DecodeString("MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=")
	if err != nil {
		t.Fatal(err)
	}
	k, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		t.Fatal(err)
	}
	return k.(ed25519.PublicKey)
}

func oneSignature(t *testing.T, input, sig string) Signature {
	t.Helper()
	h := http.Header{"Signature-Input": {input}, "Signature": {sig}}
	sigs, err := ParseSignatures(h)
	if err != nil {
		t.Fatal(err)
	}
	if len(sigs) != 1 {
		t.Fatalf("%d signatures", len(sigs))
	}
	return sigs[0]
}

// TestRFC9421B26 is RFC 9421 Appendix B.2.6 (Ed25519) end to end: the signature base byte
// for byte, and the signature verified with the key of B.1.4.
func TestRFC9421B26(t *testing.T) {
	s := oneSignature(t,
		`sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"`,
		`sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:`)
	want := `"date": Tue, 20 Apr 2021 02:07:55 GMT
"@method": POST
"@path": /foo
"@authority": example.com
"content-type": application/json
"content-length": 18
"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"`
	base, err := s.Base(rfc9421Request(t), Target{})
	if err != nil {
		t.Fatal(err)
	}
	if string(base) != want {
		t.Fatalf("base:\n%s\nwant:\n%s", base, want)
	}
	if s.KeyID != "test-key-ed25519" || s.Created != 1618884473 || !s.HasCreated || s.HasExpires {
		t.Errorf("parameters %+v", s)
	}
	pub := rfc9421Ed25519(t)
	if !ed25519.Verify(pub, base, s.Value) {
		t.Fatal("the RFC's signature does not verify")
	}
	base[0] ^= 1
	if ed25519.Verify(pub, base, s.Value) {
		t.Fatal("a changed base verifies")
	}
}

// TestRFC9421Bases: the signature bases of Appendix B.2.1, B.2.2 and B.2.3 (RSA signatures,
// not checked here; the bases witness the builder independently of B.2.6).
func TestRFC9421Bases(t *testing.T) {
	for _, tc := range []struct{ name, input, want string }{
		{"B.2.1", `sig-b21=();created=1618884473;keyid="test-key-rsa-pss";nonce="b3k2pp5k7z-50gnwp.yemd"`,
			`"@signature-params": ();created=1618884473;keyid="test-key-rsa-pss";nonce="b3k2pp5k7z-50gnwp.yemd"`},
		{"B.2.2", `sig-b22=("@authority" "content-digest" "@query-param";name="Pet");created=1618884473;keyid="test-key-rsa-pss";tag="header-example"`,
			`"@authority": example.com
"content-digest": sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:
"@query-param";name="Pet": dog
"@signature-params": ("@authority" "content-digest" "@query-param";name="Pet");created=1618884473;keyid="test-key-rsa-pss";tag="header-example"`},
		{"B.2.3", `sig-b23=("date" "@method" "@path" "@query" "@authority" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-rsa-pss"`,
			`"date": Tue, 20 Apr 2021 02:07:55 GMT
"@method": POST
"@path": /foo
"@query": ?param=Value&Pet=dog
"@authority": example.com
"content-type": application/json
"content-digest": sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:
"content-length": 18
"@signature-params": ("date" "@method" "@path" "@query" "@authority" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-rsa-pss"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := oneSignature(t, tc.input, strings.SplitN(tc.input, "=", 2)[0]+"=:AA==:")
			base, err := s.Base(rfc9421Request(t), Target{})
			if err != nil {
				t.Fatal(err)
			}
			if string(base) != tc.want {
				t.Fatalf("base:\n%s\nwant:\n%s", base, tc.want)
			}
		})
	}
}

// TestDerivedComponents: the derived components of RFC 9421 section 2.2 with the values its
// examples give, and the query-param re-encoding of section 2.2.8.
func TestDerivedComponents(t *testing.T) {
	raw := "GET /path?param=value&foo=bar&baz=bat%2Dman&qux=&var=this%20is%20a%20big%0Amultiline%20value&bar=with+plus+whitespace&fa%C3%A7ade%22%3A%20=something&dup=1&dup=2 HTTP/1.1\r\n" +
		"Host: WWW.Example.com:443\r\nX-Two: a \r\nX-Two:  b\r\nX-Dict: a=1, b=2;x=?1, c=\"s\"\r\n\r\n"
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
	if err != nil {
		t.Fatal(err)
	}
	// Set by a handler rather than read from the wire (textproto trims those already).
	r.Header["X-Space"] = []string{" a\t", "b "}
	tgt := Target{Scheme: "https"}
	for _, tc := range []struct{ comp, want string }{
		{`"x-space"`, "a, b"},
		{`"@method"`, "GET"},
		{`"@authority"`, "www.example.com"},
		{`"@scheme"`, "https"},
		{`"@target-uri"`, "https://www.example.com/path?param=value&foo=bar&baz=bat%2Dman&qux=&var=this%20is%20a%20big%0Amultiline%20value&bar=with+plus+whitespace&fa%C3%A7ade%22%3A%20=something&dup=1&dup=2"},
		{`"@path"`, "/path"},
		{`"@query-param";name="baz"`, "bat-man"},
		{`"@query-param";name="qux"`, ""},
		{`"@query-param";name="var"`, "this%20is%20a%20big%0Amultiline%20value"},
		{`"@query-param";name="bar"`, "with%20plus%20whitespace"},
		{`"@query-param";name="fa%C3%A7ade%22%3A%20"`, "something"},
		{`"x-two"`, "a, b"},
		{`"x-two";bs`, ":YQ==:, :Yg==:"},
		{`"x-dict";key="b"`, "2;x"},
		{`"x-dict";key="c"`, `"s"`},
		{`"host"`, "WWW.Example.com:443"},
	} {
		s := oneSignature(t, "s=("+tc.comp+")", "s=:AA==:")
		base, err := s.Base(r, tgt)
		if err != nil {
			t.Errorf("%s: %v", tc.comp, err)
			continue
		}
		line, _, _ := strings.Cut(string(base), "\n")
		if want := tc.comp + ": " + tc.want; line != want {
			t.Errorf("got %q, want %q", line, want)
		}
	}
	for _, comp := range []string{`"@query-param";name="dup"`, `"@query-param";name="none"`, `"x-none"`, `"@status"`, `"x-dict";key="z"`, `"x-two";sf`, `"@authority";req`} {
		in := "s=(" + comp + ")"
		sigs, err := ParseSignatures(http.Header{"Signature-Input": {in}, "Signature": {"s=:AA==:"}})
		if err == nil {
			_, err = sigs[0].Base(r, tgt)
		}
		if !errors.Is(err, ErrComponent) {
			t.Errorf("%s: %v, want ErrComponent", comp, err)
		}
	}
}

// TestParseRefuses: malformed fields are errors, never a partial reading.
func TestParseRefuses(t *testing.T) {
	for _, tc := range [][2]string{
		{`s=("@method"`, `s=:AA==:`},
		{`s="x"`, `s=:AA==:`},
		{`s=("@method")`, `t=:AA==:`},
		{`s=("@method")`, `s="AA=="`},
		{`s=("@Method")`, `s=:AA==:`},
		{`s=(x)`, `s=:AA==:`},
		{`s=("@method" "@method")`, `s=:AA==:`},
		{`s=("@method");created="1"`, `s=:AA==:`},
		{`s=("@method");keyid=1`, `s=:AA==:`},
		{`s=("@query-param")`, `s=:AA==:`},
		{`s=("a";bs;sf)`, `s=:AA==:`},
	} {
		if _, err := ParseSignatures(http.Header{"Signature-Input": {tc[0]}, "Signature": {tc[1]}}); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s / %s: %v, want ErrMalformed", tc[0], tc[1], err)
		}
	}
}
