package cli

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/sitepolicy/caddy-robots/internal/httplex"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// SignValidity is how long the signature of check --sign-key is valid: a verifier refuses
// one created in the future or expired, so it is signed at the check's time.
const SignValidity = 5 * time.Minute

// SignHeaders are the header lines of a Web Bot Auth signature of a GET of rawURL by the agent
// at agent (check's --sign-agent) with the Ed25519 private key in keyFile (--sign-key, a PEM
// PKCS #8 key or a JWK with d), signed at now (webbotauth.Sign): Signature-Agent,
// Signature-Input and Signature, to add to check's --header lines, so that check judges the
// request as the server judges the agent's. headers are the other --header lines, which must
// hold no signature of their own. Errors name the flag at fault.
func SignHeaders(rawURL, keyFile, agent string, headers []string, now time.Time) ([]string, error) {
	switch {
	case keyFile == "":
		return nil, errors.New("--sign-agent needs --sign-key, the private key to sign with")
	case agent == "":
		return nil, errors.New("--sign-key needs --sign-agent, the agent URL to sign as (a signature_agent the config trusts, e.g. https://agent.example)")
	}
	for _, l := range headers {
		name, _, _ := strings.Cut(l, ":")
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "signature", "signature-input", "signature-agent":
			return nil, fmt.Errorf("--header %q: --sign-key signs the request itself; give no signature header lines with it", l)
		}
	}
	if _, err := webbotauth.NormalizeAgent(agent); err != nil {
		return nil, fmt.Errorf("--sign-agent %q: %v", agent, err)
	}
	data, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("--sign-key: %v", err)
	}
	key, err := webbotauth.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("--sign-key %s: %v", keyFile, err)
	}
	if _, ok := httplex.AbsoluteURL(rawURL); !ok {
		return nil, fmt.Errorf("--url %q: %s, e.g. https://example.com/page.html", rawURL, httplex.NotAbsoluteURL)
	}
	r, err := http.NewRequest(http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("--url %q: %v", rawURL, err)
	}
	if err := webbotauth.Sign(r, webbotauth.SignOptions{Key: key, Agent: agent, Created: now, Validity: SignValidity}); err != nil {
		return nil, fmt.Errorf("--sign-key: %v", err)
	}
	var lines []string
	for _, name := range []string{"Signature-Agent", "Signature-Input", "Signature"} {
		lines = append(lines, name+": "+r.Header.Get(name))
	}
	return lines, nil
}
