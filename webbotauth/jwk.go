package webbotauth

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// MaxDirectorySize caps a JWK Set, in bytes: the draft asks verifiers to bound what an
// untrusted request makes them read ("Server-Side Request Forgery"); a directory of a few
// Ed25519 keys is well under 1 KiB.
const MaxDirectorySize = 64 << 10

// MaxKeys caps the keys kept from one JWK Set (the draft's "Key count").
const MaxKeys = 32

// ErrKey: a JWK or JWK Set this package cannot use.
var ErrKey = errors.New("webbotauth: key")

// JWK is the members of a JSON Web Key (RFC 7517) this package reads.
type JWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv,omitempty"`
	X   string `json:"x,omitempty"`
	Y   string `json:"y,omitempty"`
	N   string `json:"n,omitempty"`
	E   string `json:"e,omitempty"`
	Kid string `json:"kid,omitempty"`
	Alg string `json:"alg,omitempty"`
	Use string `json:"use,omitempty"`
	// Nbf and Exp bound when the key may be used (the draft's directory example), Unix
	// seconds; 0 for no bound.
	Nbf int64 `json:"nbf,omitempty"`
	Exp int64 `json:"exp,omitempty"`
}

// Thumbprint returns the RFC 7638 thumbprint of the key: the base64url (unpadded) SHA-256 of
// the JSON object of its required members in lexicographic order, no white space (section 3.2;
// RFC 8037 Appendix A.3 for OKP). It is the keyid of a Web Bot Auth signature.
func (k JWK) Thumbprint() (string, error) {
	var members [][2]string
	switch k.Kty {
	case "OKP":
		members = [][2]string{{"crv", k.Crv}, {"kty", k.Kty}, {"x", k.X}}
	case "EC":
		members = [][2]string{{"crv", k.Crv}, {"kty", k.Kty}, {"x", k.X}, {"y", k.Y}}
	case "RSA":
		members = [][2]string{{"e", k.E}, {"kty", k.Kty}, {"n", k.N}}
	default:
		return "", fmt.Errorf("%w: kty %q has no thumbprint here", ErrKey, k.Kty)
	}
	sort.Slice(members, func(i, j int) bool { return members[i][0] < members[j][0] })
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range members {
		if m[1] == "" {
			return "", fmt.Errorf("%w: %s key without %q", ErrKey, k.Kty, m[0])
		}
		// The values are base64url and short names: nothing JSON would escape, checked so
		// that the canonical form cannot differ from what RFC 7638 hashes.
		if strings.ContainsAny(m[1], "\"\\") || strings.IndexFunc(m[1], func(r rune) bool { return r < 0x20 || r > 0x7e }) >= 0 {
			return "", fmt.Errorf("%w: member %q is not plain ASCII", ErrKey, m[0])
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + m[0] + `":"` + m[1] + `"`)
	}
	b.WriteByte('}')
	sum := sha256.Sum256([]byte(b.String()))
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

// TestKeys are the thumbprints of the published test keys of Ed25519 (RFC 9421 Appendix
// B.1.4, test-key-ed25519, which the draft's test vectors and public demonstrations use).
// The draft ("Test and Demonstration Keys") asks verifiers to reject them: anyone can sign
// with them.
var TestKeys = map[string]bool{
	"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U": true,
}

// Key is an Ed25519 verification key, named by its thumbprint.
type Key struct {
	// ID is the RFC 7638 thumbprint, which a signature's keyid names.
	ID string
	// Public is the key.
	Public ed25519.PublicKey
	// NotBefore and Expires are the JWK's nbf and exp (0: unbounded).
	NotBefore, Expires int64
}

// usable reports whether the key may verify a signature at Unix time now.
func (k *Key) usable(now int64) bool {
	return (k.NotBefore == 0 || now >= k.NotBefore) && (k.Expires == 0 || now < k.Expires)
}

// Ed25519Key returns the Key of an OKP JWK on Ed25519 (RFC 8037). A kid, if present, must be
// the thumbprint, as the draft requires of a directory (a kid that is not is the directory
// mislabelling its keys, and refused rather than trusted).
func (k JWK) Ed25519Key() (Key, error) {
	if k.Kty != "OKP" || k.Crv != "Ed25519" {
		return Key{}, fmt.Errorf("%w: not an Ed25519 key (kty %q, crv %q)", ErrKey, k.Kty, k.Crv)
	}
	if k.Alg != "" && k.Alg != "ed25519" && k.Alg != "EdDSA" && k.Alg != "Ed25519" {
		return Key{}, fmt.Errorf("%w: alg %q", ErrKey, k.Alg)
	}
	if k.Use != "" && k.Use != "sig" {
		return Key{}, fmt.Errorf("%w: use %q", ErrKey, k.Use)
	}
	// Strict: a final character with stray low bits decodes to the same key but would give
	// it another thumbprint, and a key has one name.
	x, err := base64.RawURLEncoding.Strict().DecodeString(k.X)
	if err != nil || len(x) != ed25519.PublicKeySize {
		return Key{}, fmt.Errorf("%w: x is not a base64url Ed25519 public key", ErrKey)
	}
	id, err := k.Thumbprint()
	if err != nil {
		return Key{}, err
	}
	if k.Kid != "" && k.Kid != id {
		return Key{}, fmt.Errorf("%w: kid %q is not the thumbprint %s", ErrKey, k.Kid, id)
	}
	return Key{ID: id, Public: ed25519.PublicKey(x), NotBefore: k.Nbf, Expires: k.Exp}, nil
}

// ParseJWK reads one JWK of an Ed25519 key.
func ParseJWK(data []byte) (Key, error) {
	var k JWK
	if err := json.Unmarshal(data, &k); err != nil {
		return Key{}, fmt.Errorf("%w: %v", ErrKey, err)
	}
	return k.Ed25519Key()
}

// ParseJWKS reads a JWK Set (RFC 7517 section 5), the format of a key directory: its Ed25519
// keys, at most MaxKeys of them, from at most MaxDirectorySize bytes. Keys of other types are
// skipped (a directory may serve other algorithms), and so are Ed25519 entries that are
// malformed or whose kid is not their thumbprint (the draft: a verifier rejects malformed
// entries; one bad entry does not take the agent's other keys with it). A set that is not JSON
// or has no "keys" array is an error.
func ParseJWKS(data []byte) ([]Key, error) {
	if len(data) > MaxDirectorySize {
		return nil, fmt.Errorf("%w: key set of %d bytes, more than %d", ErrKey, len(data), MaxDirectorySize)
	}
	var set struct {
		Keys *[]JWK `json:"keys"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKey, err)
	}
	if set.Keys == nil {
		return nil, fmt.Errorf("%w: no \"keys\" array", ErrKey)
	}
	var keys []Key
	for _, j := range *set.Keys {
		if j.Kty != "OKP" || j.Crv != "Ed25519" {
			continue
		}
		k, err := j.Ed25519Key()
		if err != nil {
			continue
		}
		if len(keys) == MaxKeys {
			return nil, fmt.Errorf("%w: more than %d keys", ErrKey, MaxKeys)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// ParseKeys reads a key file of a configuration: a JWK Set (ParseJWKS) or, failing that, a
// single JWK (ParseJWK).
func ParseKeys(data []byte) ([]Key, error) {
	keys, err := ParseJWKS(data)
	if err == nil {
		return keys, nil
	}
	k, err := ParseJWK(data)
	if err != nil {
		return nil, err
	}
	return []Key{k}, nil
}
