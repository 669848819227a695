package policycheck

import (
	"fmt"
	"net/http"
	"net/textproto"
	"strings"
	"time"

	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// Signature is what the site's Web Bot Auth verification (Site.Signatures) says of the
// request's signature: the signature judged (of several tagged web-bot-auth, the one that
// proves most, as webbotauth.Verifier.Verify chooses), its verdict and why, the signature
// base it was verified over, and what it makes of the request's identity.
type Signature struct {
	// Label is the signature's label in Signature-Input and Signature; "" when no
	// signature could be read.
	Label string `json:"label"`
	// Tag is its tag parameter ("web-bot-auth").
	Tag string `json:"tag,omitempty"`
	// Agent is the Signature-Agent URL it covers, normalized; "" for none.
	Agent string `json:"agent,omitempty"`
	// KeyID and Alg are its keyid and alg parameters.
	KeyID string `json:"keyid,omitempty"`
	Alg   string `json:"alg,omitempty"`
	// Components are the covered components, as the signature base names them
	// (`"@authority"`, `"signature-agent";key="sig1"`).
	Components []string `json:"components"`
	// Created and Expires are its created and expires parameters (Unix seconds); absent when
	// the signature has none.
	Created *int64 `json:"created,omitempty"`
	Expires *int64 `json:"expires,omitempty"`
	// Nonce is its nonce parameter, if any.
	Nonce string `json:"nonce,omitempty"`
	// Status is the verdict (webbotauth.Status): "verified", "signed", "impostor",
	// "expired", "unknown-key", "malformed", "replayed", "unsigned", ...
	Status string `json:"status"`
	// Bot is the catalogue ID of the trusted agent the signature names ("" if the agent is
	// not trusted): only "verified" proves it, "impostor" refutes it.
	Bot string `json:"bot,omitempty"`
	// Reason says why, naming the parameter, component or key at fault; "" when verified.
	Reason string `json:"reason,omitempty"`
	// Base is the signature base (RFC 9421 section 2.5) the signature is verified over, byte
	// for byte, for the developer of a signing agent to compare with what it signed.
	Base string `json:"base,omitempty"`
	// BaseError is why the base cannot be computed (a covered component the request lacks).
	BaseError string `json:"base_error,omitempty"`
	// Decided is true when the signature decides the request's identity
	// (identity.WithSignature): Verification.Identity is then the signature's, and
	// UnsignedIdentity what the User-Agent and address alone say.
	Decided bool `json:"decided"`
	// UnsignedIdentity is the identity without the signature, when it decided.
	UnsignedIdentity *Identity `json:"unsigned_identity,omitempty"`
}

// requestHeader reads "Name: value" lines into a header; a line that is not one is a
// *RequestError for field.
func requestHeader(lines []string, field, example string) (http.Header, error) {
	h := http.Header{}
	for _, line := range lines {
		name, value, ok := strings.Cut(line, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, &RequestError{Field: field, Value: line, Problem: "give a header line, e.g. '" + example + "'"}
		}
		h.Add(textproto.CanonicalMIMEHeaderKey(name), strings.TrimSpace(value))
	}
	return h, nil
}

// clientHeader reads req.Headers, refusing a User-Agent there (Agent gives it).
func clientHeader(req Request) (http.Header, error) {
	h, err := requestHeader(req.Headers, "Headers", `Signature-Agent: sig1="https://agent.example"`)
	if err != nil {
		return nil, err
	}
	if v, ok := h["User-Agent"]; ok && (req.Agent == "" || req.Agent == "*" || v[0] != req.Agent) {
		return nil, &RequestError{Field: "Headers", Value: "User-Agent: " + v[0], Problem: "give the User-Agent as the agent, not as a header line"}
	}
	return h, nil
}

// judgeSignature verifies r's signature with sigs as the server does, and returns its
// account and the identity the request then has: ua, or the signature's where it decides.
func judgeSignature(sigs *webbotauth.Verifier, r *http.Request, ua identity.Identity) (*Signature, identity.Identity) {
	res := sigs.Verify(r, webbotauth.Target{})
	out := &Signature{Label: res.Label, Agent: res.Agent, KeyID: res.KeyID, Status: res.Status.String(), Bot: res.Bot, Reason: res.Reason, Components: []string{}}
	if parsed, err := webbotauth.ParseSignatures(r.Header); err == nil {
		for i := range parsed {
			s := &parsed[i]
			if s.Label != res.Label || res.Label == "" {
				continue
			}
			out.Tag, out.Alg, out.Nonce = s.Tag, s.Alg, s.Nonce
			for _, c := range s.Components {
				out.Components = append(out.Components, c.String())
			}
			if s.HasCreated {
				out.Created = &s.Created
			}
			if s.HasExpires {
				out.Expires = &s.Expires
			}
			if out.Agent == "" {
				out.Agent, _ = s.SignatureAgent(r.Header)
			}
			if base, err := s.Base(r, webbotauth.Target{}); err != nil {
				out.BaseError = err.Error()
			} else {
				out.Base = string(base)
			}
		}
	}
	id, decided := identity.WithSignature(ua, res)
	out.Decided = decided
	return out, id
}

// identityReason is the reason of id, the identity the signature decided.
func (s *Signature) identityReason(id identity.Identity) string {
	switch s.Status {
	case webbotauth.Verified.String():
		return fmt.Sprintf("a valid Web Bot Auth signature of %s, a trusted agent, with key %s", s.Agent, s.KeyID)
	case webbotauth.Signed.String():
		if s.Agent == "" {
			return "a valid Web Bot Auth signature, with key " + s.KeyID + " (" + s.Reason + ")"
		}
		return fmt.Sprintf("a valid Web Bot Auth signature of %s, an agent the config does not trust", s.Agent)
	}
	// The refusal's words (identity.Identity.Failure), and the key (the signature's own
	// account below gives the verifier's reason).
	return id.Failure() + ", keyid " + s.KeyID
}

// write writes the signature's account, a few lines and the base.
func (s *Signature) write(p func(format string, args ...any), rep *Report) {
	if s.Label == "" {
		p("Signature: %s (%s)", s.Status, s.Reason)
		return
	}
	who := ""
	if s.Agent != "" {
		who = " by " + s.Agent
	}
	verdict := s.Status
	if s.Reason != "" {
		verdict += " (" + s.Reason + ")"
	}
	if s.Bot != "" {
		who += " (trusted agent of " + s.Bot + ")"
	}
	p("Signature: %s%s, keyid %s: %s", s.Label, who, s.KeyID, verdict)
	p("  covers:   %s", strings.Join(s.Components, " "))
	var valid []string
	if s.Created != nil {
		valid = append(valid, "created "+unixTime(*s.Created))
	}
	if s.Expires != nil {
		valid = append(valid, "expires "+unixTime(*s.Expires))
	}
	if s.Nonce != "" {
		valid = append(valid, "nonce "+s.Nonce)
	}
	if len(valid) > 0 {
		p("  params:   %s", strings.Join(valid, ", "))
	}
	if s.Decided {
		id := rep.Verification.Identity
		line := "now " + id.Status + " by signature"
		if u := s.UnsignedIdentity; u != nil {
			line += " (without it: " + u.Status + ")"
		}
		if rep.Enforcement.Impostor {
			line += fmt.Sprintf("; enforce's impostors refuse it with %d", rep.Enforcement.Status)
		}
		p("  identity: %s", line)
	} else {
		p("  identity: not decided by the signature (%s proves nothing either way): the User-Agent and address decide", s.Status)
	}
	if s.BaseError != "" {
		p("  base:     none (%s)", s.BaseError)
	} else if s.Base != "" {
		p("  base (verified byte for byte; lines end with LF, the last has none):")
		for _, l := range strings.Split(s.Base, "\n") {
			p("    %s", l)
		}
	}
}

func unixTime(sec int64) string {
	return fmt.Sprintf("%d (%s)", sec, time.Unix(sec, 0).UTC().Format(time.RFC3339))
}
