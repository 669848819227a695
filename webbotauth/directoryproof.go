package webbotauth

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"net/http"
	"time"

	"github.com/dunglas/httpsfv"
)

// DirectoryTag is the tag of a directory response's possession proof (the draft, "Validating
// the Domain Binding").
const DirectoryTag = "http-message-signatures-directory"

// VerifyDirectoryResponse checks the possession proofs a directory response carries (the
// draft, "Possession Proof on the Directory Response"): the members of its Signature-Input
// tagged http-message-signatures-directory, each covering `"@authority";req` and
// `"content-digest"`, with created (not in the future, beyond skew) and expires (not past),
// signed by the key of the set its keyid names; and the sha-256 member of the Content-Digest
// field (the draft's example uses it; a field without it is refused) matching the body. It
// returns the
// thumbprints of the keys whose proof holds, or an error if a proof fails; a response with no
// proof returns none and no error (the proof is RECOMMENDED, not required). authority is the
// authority the directory was fetched from.
//
// The Directory does not call it yet: attribution needs only the TLS connection the keys came
// over, and this proof matters to redistributed key material and domain binding, which this
// package does not do.
func VerifyDirectoryResponse(h http.Header, body []byte, authority string, keys []Key, now time.Time, skew time.Duration) ([]string, error) {
	sigs, err := parseSignatures(h)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*Key, len(keys))
	for i := range keys {
		byID[keys[i].ID] = &keys[i]
	}
	var proven []string
	digestChecked := false
	for i := range sigs {
		s := &sigs[i]
		if s.Tag != DirectoryTag {
			continue
		}
		if s.err != nil {
			return nil, s.err
		}
		if !s.HasCreated || !s.HasExpires || s.Created > now.Add(skew).Unix() || now.Add(-skew).Unix() > s.Expires {
			return nil, fmt.Errorf("%w: proof %s: created/expires", ErrMalformed, s.Label)
		}
		if !coversReqAuthority(s) || !covers(s, "content-digest") {
			return nil, fmt.Errorf("%w: proof %s covers not both \"@authority\";req and content-digest", ErrMalformed, s.Label)
		}
		k := byID[s.KeyID]
		if k == nil {
			return nil, fmt.Errorf("%w: proof %s by a key the set does not hold", ErrKey, s.Label)
		}
		if !digestChecked {
			if err := checkContentDigest(h, body); err != nil {
				return nil, err
			}
			digestChecked = true
		}
		base, err := responseBase(s, h, authority)
		if err != nil {
			return nil, err
		}
		if !ed25519.Verify(k.Public, base, s.Value) {
			return nil, fmt.Errorf("%w: proof %s does not verify", ErrKey, s.Label)
		}
		proven = append(proven, k.ID)
	}
	return proven, nil
}

func coversReqAuthority(s *Signature) bool {
	for _, c := range s.Components {
		if c.Name == "@authority" && c.Req {
			return true
		}
	}
	return false
}

// responseBase is the signature base of a response's signature covering "@authority";req and
// response fields (RFC 9421 sections 2.4 and 2.5); other derived components are refused.
func responseBase(s *Signature, h http.Header, authority string) ([]byte, error) {
	r := &http.Request{Header: h}
	var b []byte
	for _, c := range s.Components {
		b = append(b, c.id...)
		b = append(b, ": "...)
		switch {
		case c.Name == "@authority" && c.Req:
			b = append(b, Target{Authority: authority}.authority(&http.Request{}, "https")...)
		case c.Req || c.Name[0] == '@':
			return nil, componentErr(c, "not computed for a directory response")
		default:
			var err error
			if b, err = appendValue(b, c, r, Target{}, "https"); err != nil {
				return nil, err
			}
		}
		b = append(b, '\n')
	}
	b = append(b, `"@signature-params": `...)
	return append(b, s.Params...), nil
}

// checkContentDigest checks the sha-256 member of Content-Digest (RFC 9530) against body.
func checkContentDigest(h http.Header, body []byte) error {
	d, err := httpsfv.UnmarshalDictionary(h.Values("Content-Digest"))
	if err != nil {
		return fmt.Errorf("%w: Content-Digest: %v", ErrMalformed, err)
	}
	m, ok := d.Get("sha-256")
	if !ok {
		return fmt.Errorf("%w: Content-Digest has no sha-256", ErrMalformed)
	}
	it, ok := m.(httpsfv.Item)
	want, ok2 := it.Value.([]byte)
	if !ok || !ok2 {
		return fmt.Errorf("%w: Content-Digest sha-256 is not a byte sequence", ErrMalformed)
	}
	sum := sha256.Sum256(body)
	if !bytes.Equal(sum[:], want) {
		return fmt.Errorf("%w: Content-Digest does not match the body", ErrKey)
	}
	return nil
}
