package webbotauth

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/dunglas/httpsfv"
)

// SignOptions say how Sign signs a request.
type SignOptions struct {
	// Key is the agent's Ed25519 private key.
	Key ed25519.PrivateKey
	// KeyID is the signature's keyid; "" for the RFC 7638 thumbprint of Key's public key, as
	// a key directory names it. (Another key's thumbprint makes the forgery a verifier
	// calls an impostor.)
	KeyID string
	// Agent is the agent's URL, sent in Signature-Agent (its Dictionary form, the member
	// named by Label) and covered by the signature; "" sends none and covers "@authority"
	// only.
	Agent string
	// Label is the signature's label; "" for "sig1".
	Label string
	// Created is when the request is signed; the zero time for now.
	Created time.Time
	// Validity is how long the signature is valid (expires - created); 0 for a minute.
	Validity time.Duration
	// Nonce, when not "", is sent as the signature's nonce.
	Nonce string
	// Target is the request's scheme and authority as the server sees them (Target{}: the
	// request's own).
	Target Target
}

// Sign signs r as a Web Bot Auth agent (draft-meunier-web-bot-auth-architecture, RFC 9421):
// it sets the Signature-Agent field (when o.Agent is set), and Signature-Input and Signature
// with one signature covering "@authority" and the agent's member of Signature-Agent
// (`"signature-agent";key="<label>"`), with the parameters created, expires, keyid, alg
// "ed25519", tag "web-bot-auth" and nonce when given. Fields of those names already in r are
// replaced. It is what an agent sends, for tests and for "check --sign-key"; a Verifier
// trusting the agent with the key's public half verifies it.
func Sign(r *http.Request, o SignOptions) error {
	if len(o.Key) != ed25519.PrivateKeySize {
		return fmt.Errorf("%w: not an Ed25519 private key", ErrKey)
	}
	label := o.Label
	if label == "" {
		label = "sig1"
	}
	created := o.Created
	if created.IsZero() {
		created = time.Now()
	}
	validity := o.Validity
	if validity <= 0 {
		validity = time.Minute
	}
	keyID := o.KeyID
	if keyID == "" {
		var err error
		if keyID, err = JWKOf(o.Key.Public().(ed25519.PublicKey)).Thumbprint(); err != nil {
			return err
		}
	}
	components := []httpsfv.Item{httpsfv.NewItem("@authority")}
	r.Header.Del("Signature-Agent")
	if o.Agent != "" {
		if _, err := NormalizeAgent(o.Agent); err != nil {
			return err
		}
		d := httpsfv.NewDictionary()
		d.Add(label, httpsfv.NewItem(o.Agent))
		v, err := httpsfv.Marshal(d)
		if err != nil {
			return agentErr("%v", err)
		}
		r.Header.Set("Signature-Agent", v)
		c := httpsfv.NewItem("signature-agent")
		c.Params.Add("key", label)
		components = append(components, c)
	}
	params := httpsfv.NewParams()
	params.Add("created", created.Unix())
	params.Add("expires", created.Add(validity).Unix())
	params.Add("keyid", keyID)
	params.Add("alg", "ed25519")
	if o.Nonce != "" {
		params.Add("nonce", o.Nonce)
	}
	params.Add("tag", "web-bot-auth")
	input := httpsfv.NewDictionary()
	input.Add(label, httpsfv.InnerList{Items: components, Params: params})
	v, err := httpsfv.Marshal(input)
	if err != nil {
		return fmt.Errorf("webbotauth: Signature-Input: %v", err)
	}
	r.Header.Set("Signature-Input", v)
	// The base is computed by the code that verifies, from the fields as sent: what is
	// signed is what a verifier rebuilds.
	r.Header.Set("Signature", label+"=::")
	sigs, err := ParseSignatures(r.Header)
	if err != nil {
		return err
	}
	base, err := sigs[0].Base(r, o.Target)
	if err != nil {
		return err
	}
	sig := httpsfv.NewDictionary()
	sig.Add(label, httpsfv.NewItem(ed25519.Sign(o.Key, base)))
	if v, err = httpsfv.Marshal(sig); err != nil {
		return fmt.Errorf("webbotauth: Signature: %v", err)
	}
	r.Header.Set("Signature", v)
	return nil
}

// JWKOf is the JWK (RFC 8037) of an Ed25519 public key, as a key directory or key file
// serves it.
func JWKOf(pub ed25519.PublicKey) JWK {
	return JWK{Kty: "OKP", Crv: "Ed25519", X: base64.RawURLEncoding.EncodeToString(pub)}
}

// ParsePrivateKey reads an Ed25519 private key: a PEM "PRIVATE KEY" block (PKCS #8, as
// "openssl genpkey -algorithm ed25519" writes it) or a JWK with its private member d (RFC
// 8037; its x, when present, must be d's public key).
func ParsePrivateKey(data []byte) (ed25519.PrivateKey, error) {
	if block, _ := pem.Decode(data); block != nil {
		if block.Type != "PRIVATE KEY" {
			return nil, fmt.Errorf("%w: a PEM %q block, not a PRIVATE KEY (PKCS #8)", ErrKey, block.Type)
		}
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrKey, err)
		}
		priv, ok := k.(ed25519.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("%w: a %T, not an Ed25519 private key", ErrKey, k)
		}
		return priv, nil
	}
	var j struct {
		JWK
		D string `json:"d"`
	}
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("%w: neither a PEM private key nor a JWK: %v", ErrKey, err)
	}
	if j.Kty != "OKP" || j.Crv != "Ed25519" {
		return nil, fmt.Errorf("%w: not an Ed25519 key (kty %q, crv %q)", ErrKey, j.Kty, j.Crv)
	}
	seed, err := base64.RawURLEncoding.DecodeString(j.D)
	if err != nil || len(seed) != ed25519.SeedSize {
		if j.D == "" {
			return nil, fmt.Errorf("%w: the JWK has no private member d (a public key?)", ErrKey)
		}
		return nil, fmt.Errorf("%w: d is not a base64url Ed25519 private key", ErrKey)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	if j.X != "" && j.X != JWKOf(priv.Public().(ed25519.PublicKey)).X {
		return nil, errors.Join(ErrKey, errors.New("x is not the public key of d"))
	}
	return priv, nil
}
