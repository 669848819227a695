package webbotauth

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// draftDirectoryBody is the JWK Set of the draft's "Signed Directory Response" vector, as
// signed (no trailing newline).
const draftDirectoryBody = `{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs","use":"sig"}]}`

func draftDirectoryHeader() http.Header {
	return http.Header{
		"Content-Type":    {DirectoryMediaType},
		"Content-Digest":  {"sha-256=:CADMT2aBdV/rqQr/NIru64ERQkCobVvllA4V0fLFDu0=:"},
		"Signature-Input": {`binding=("@authority";req "content-digest");created=1735689600;expires=4889289600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";tag="http-message-signatures-directory"`},
		"Signature":       {"binding=:l6P8R67tm3kujAxbHWio7ll01qrEZ0dKD/WWlGhNYEmTnFZM8Wt0VQ9zqGfvo7T/UMkBxsigzChM1Gpz7gOVBg==:"},
	}
}

// TestDraftSignedDirectory is the draft's "Signed Directory Response" vector: the body's
// digest, the base byte for byte, the proof verified; then refused with another authority,
// another body, or a proof from the future.
func TestDraftSignedDirectory(t *testing.T) {
	keys, err := ParseJWKS([]byte(draftDirectoryBody))
	if err != nil || len(keys) != 1 {
		t.Fatal(keys, err)
	}
	h := draftDirectoryHeader()
	sigs, err := parseSignatures(h)
	if err != nil || sigs[0].err != nil {
		t.Fatal(err, sigs[0].err)
	}
	base, err := responseBase(&sigs[0], h, "signature-agent.test")
	want := `"@authority";req: signature-agent.test
"content-digest": sha-256=:CADMT2aBdV/rqQr/NIru64ERQkCobVvllA4V0fLFDu0=:
"@signature-params": ("@authority";req "content-digest");created=1735689600;expires=4889289600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";tag="http-message-signatures-directory"`
	if err != nil || string(base) != want {
		t.Fatalf("%v\n%s\nwant\n%s", err, base, want)
	}
	now := time.Unix(1735689600+60, 0)
	proven, err := VerifyDirectoryResponse(h, []byte(draftDirectoryBody), "signature-agent.test", keys, now, time.Minute)
	if err != nil || len(proven) != 1 || proven[0] != rfc9421Thumbprint {
		t.Fatalf("%v %v", proven, err)
	}
	if _, err := VerifyDirectoryResponse(h, []byte(draftDirectoryBody), "other.test", keys, now, time.Minute); !errors.Is(err, ErrKey) {
		t.Errorf("another authority: %v", err)
	}
	if _, err := VerifyDirectoryResponse(h, []byte(draftDirectoryBody+" "), "signature-agent.test", keys, now, time.Minute); !errors.Is(err, ErrKey) {
		t.Errorf("another body: %v", err)
	}
	if _, err := VerifyDirectoryResponse(h, []byte(draftDirectoryBody), "signature-agent.test", keys, time.Unix(1735689600-3600, 0), time.Minute); !errors.Is(err, ErrMalformed) {
		t.Errorf("created in the future: %v", err)
	}
	h.Set("Signature-Input", strings.Replace(h.Get("Signature-Input"), `"@authority";req `, "", 1))
	if _, err := VerifyDirectoryResponse(h, []byte(draftDirectoryBody), "signature-agent.test", keys, now, time.Minute); !errors.Is(err, ErrMalformed) {
		t.Errorf("without the authority: %v", err)
	}
	// No proof: nothing proven, no error.
	if p, err := VerifyDirectoryResponse(http.Header{}, []byte(draftDirectoryBody), "signature-agent.test", keys, now, time.Minute); err != nil || p != nil {
		t.Errorf("no proof: %v %v", p, err)
	}
}
