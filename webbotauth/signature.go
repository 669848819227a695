package webbotauth

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/dunglas/httpsfv"
)

// Tag is the value of the tag signature parameter that marks a Web Bot Auth signature
// (draft-ietf-webbotauth-httpsig-protocol-01, "Generating HTTP Message Signature").
const Tag = "web-bot-auth"

// MaxSignatures is how many members Signature-Input may have: a request carries one signature,
// a few when intermediaries add theirs; more is work an attacker asks for.
const MaxSignatures = 8

// MaxComponents is how many components one signature may cover, for the same reason.
const MaxComponents = 64

// MaxFieldSize is how many bytes each of Signature-Input, Signature and Signature-Agent may
// have (their lines joined): MaxSignatures Ed25519 signatures with their parameters and a
// nonce take well under half of it. A larger field is refused before it is parsed, so that
// what a request makes the verifier parse is bounded by this, MaxSignatures and MaxComponents,
// whatever the server lets a header weigh.
const MaxFieldSize = 4096

// Component is one covered component of a signature: a component identifier (RFC 9421
// section 2), the name and its parameters.
type Component struct {
	// Name is a derived component ("@method", "@authority", ...) or a lowercased field name.
	Name string
	// Key is the key parameter: the member of a Dictionary field (section 2.1.2); "" if absent.
	Key string
	// Param is the name parameter of "@query-param" (section 2.2.8); "" otherwise.
	Param string
	// SF is the sf parameter: the field re-serialized as a Structured Field (section 2.1.1).
	SF bool
	// BS is the bs parameter: each field line wrapped as a Byte Sequence (section 2.1.3).
	BS bool
	// Req is the req parameter: the component of the request a response answers (section
	// 2.4); only a response's signature (VerifyDirectoryResponse) can have it.
	Req bool
	// id is the component identifier as the signature base names it: the serialized Item.
	id string
}

// String returns the component identifier as it appears in the signature base, e.g.
// `"signature-agent";key="agent2"`.
func (c Component) String() string { return c.id }

// Signature is one signature of a request: a member of Signature-Input and the member of
// Signature with the same label (RFC 9421 section 4).
type Signature struct {
	// Label is the Dictionary key both fields use for it.
	Label string
	// Components are the covered components, in order.
	Components []Component
	// Created and Expires are the created and expires parameters (Unix seconds); HasCreated
	// and HasExpires say whether they were present.
	Created, Expires       int64
	HasCreated, HasExpires bool
	// KeyID, Alg, Tag and Nonce are the keyid, alg, tag and nonce parameters ("" if absent).
	KeyID, Alg, Tag, Nonce string
	// Value is the signature itself, the Byte Sequence of the Signature member.
	Value []byte
	// Params is the serialized signature parameters, the value of the "@signature-params"
	// line of the signature base (section 2.3): the inner list and its parameters.
	Params string

	// err is why this member cannot be verified (for Verify, which judges only the members
	// tagged web-bot-auth: another signer's member it cannot read is not its concern).
	err error
}

// Errors of ParseSignatures and Signature.Base.
var (
	// ErrMalformed: Signature-Input or Signature is not what RFC 9421 section 4 says.
	ErrMalformed = errors.New("webbotauth: malformed signature fields")
	// ErrComponent: a covered component cannot be computed from the request.
	ErrComponent = errors.New("webbotauth: covered component")
)

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// ParseSignatures reads every signature of a request's Signature-Input and Signature fields,
// in the order of Signature-Input. Any field line that is not a valid Dictionary, a member of
// the wrong type, a label without its Signature member, or a component identifier that is not
// a lowercase String with known parameters is an error: RFC 9421 section 3.2 (steps 1 to 3)
// makes the whole verification fail then, and guessing at a broken field only helps forgers.
func ParseSignatures(h http.Header) ([]Signature, error) {
	sigs, err := parseSignatures(h)
	if err != nil {
		return nil, err
	}
	for _, s := range sigs {
		if s.err != nil {
			return nil, s.err
		}
	}
	return sigs, nil
}

// parseSignatures reads the fields, returning an error if either is not a Dictionary, and each
// member with its own error, if any.
func parseSignatures(h http.Header) ([]Signature, error) {
	inputLines, sigLines := h.Values("Signature-Input"), h.Values("Signature")
	if len(inputLines) == 0 {
		return nil, nil
	}
	if err := checkShape("Signature-Input", inputLines); err != nil {
		return nil, err
	}
	if err := checkShape("Signature", sigLines); err != nil {
		return nil, err
	}
	inputs, err := httpsfv.UnmarshalDictionary(inputLines)
	if err != nil {
		return nil, malformed("Signature-Input: %v", err)
	}
	sigs, err := httpsfv.UnmarshalDictionary(sigLines)
	if err != nil {
		return nil, malformed("Signature: %v", err)
	}
	labels := inputs.Names()
	if len(labels) > MaxSignatures {
		return nil, malformed("%d signatures, more than %d", len(labels), MaxSignatures)
	}
	out := make([]Signature, 0, len(labels))
	for _, label := range labels {
		s := Signature{Label: label}
		m, _ := inputs.Get(label)
		if il, ok := m.(httpsfv.InnerList); !ok {
			s.err = malformed("Signature-Input %s is not an inner list", label)
		} else {
			s.err = s.parseInput(il)
		}
		if s.err == nil {
			s.err = s.parseValue(sigs)
		}
		out = append(out, s)
	}
	return out, nil
}

// parseValue reads the Signature member of s.
func (s *Signature) parseValue(sigs *httpsfv.Dictionary) error {
	sm, ok := sigs.Get(s.Label)
	if !ok {
		return malformed("no Signature member %s", s.Label)
	}
	it, ok := sm.(httpsfv.Item)
	if !ok {
		return malformed("Signature %s is not an item", s.Label)
	}
	if s.Value, ok = it.Value.([]byte); !ok {
		return malformed("Signature %s is not a byte sequence", s.Label)
	}
	return nil
}

// parseInput reads one member of Signature-Input: the parameters first, so that the tag is
// known even when a component is not.
func (s *Signature) parseInput(il httpsfv.InnerList) error {
	label := s.Label
	if il.Params != nil {
		for _, name := range il.Params.Names() {
			v, _ := il.Params.Get(name)
			var ok bool
			switch name {
			case "created":
				s.Created, ok = v.(int64)
				s.HasCreated = true
			case "expires":
				s.Expires, ok = v.(int64)
				s.HasExpires = true
			case "keyid":
				s.KeyID, ok = v.(string)
			case "alg":
				s.Alg, ok = v.(string)
			case "tag":
				s.Tag, ok = v.(string)
			case "nonce":
				s.Nonce, ok = v.(string)
			default:
				// Section 2.3 lets a registry define more; they are signed like the rest.
				ok = true
			}
			if !ok {
				return malformed("%s: parameter %s of the wrong type", label, name)
			}
		}
	}
	if len(il.Items) > MaxComponents {
		return malformed("%s covers %d components, more than %d", label, len(il.Items), MaxComponents)
	}
	seen := make(map[string]bool, len(il.Items))
	for _, it := range il.Items {
		c, err := parseComponent(it)
		if err != nil {
			return fmt.Errorf("%w (signature %s)", err, label)
		}
		// Section 2.5: a component covered twice makes the base an error.
		if seen[c.id] {
			return malformed("%s covers %s twice", label, c.id)
		}
		seen[c.id] = true
		s.Components = append(s.Components, c)
	}
	params, err := httpsfv.Marshal(il)
	if err != nil {
		return malformed("%s: %v", label, err)
	}
	s.Params = params
	return nil
}

// parseComponent reads one component identifier (RFC 9421 section 2): a String, lowercase,
// with the parameters this package computes.
func parseComponent(it httpsfv.Item) (Component, error) {
	var c Component
	name, ok := it.Value.(string)
	if !ok || name == "" {
		return c, malformed("a component identifier is not a string")
	}
	if strings.ToLower(name) != name {
		return c, malformed("component %q is not lowercase", name)
	}
	c.Name = name
	if it.Params != nil {
		for _, p := range it.Params.Names() {
			v, _ := it.Params.Get(p)
			switch p {
			case "key":
				c.Key, ok = v.(string)
				ok = ok && name[0] != '@'
			case "name":
				c.Param, ok = v.(string)
				ok = ok && name == "@query-param"
			case "sf":
				c.SF, ok = v.(bool)
				ok = ok && name[0] != '@'
			case "bs":
				c.BS, ok = v.(bool)
				ok = ok && name[0] != '@'
			case "req":
				c.Req, ok = v.(bool)
			default:
				// tr (trailers) and anything unknown: refused rather than computed wrongly.
				ok = false
			}
			if !ok {
				return c, fmt.Errorf("%w %q: parameter %s not supported", ErrComponent, name, p)
			}
		}
	}
	if c.BS && (c.SF || c.Key != "") {
		// Section 2.1.3: bs is incompatible with sf and key.
		return c, malformed("component %q: bs with sf or key", name)
	}
	if name == "@query-param" && c.Param == "" {
		return c, malformed(`"@query-param" without a name`)
	}
	id, err := httpsfv.Marshal(it)
	if err != nil {
		return c, malformed("component %q: %v", name, err)
	}
	c.id = id
	return c, nil
}

// checkShape refuses a signature field of more than MaxFieldSize bytes, MaxSignatures members
// or MaxComponents items in one inner list, measured without parsing it: parsing is what
// costs (a 16 KB field took httpsfv up to 1.7 ms and 7,000 allocations).
func checkShape(name string, lines []string) error {
	size, members, items := fieldShape(lines, MaxFieldSize)
	switch {
	case size > MaxFieldSize:
		return malformed("%s of %d bytes, more than %d", name, size, MaxFieldSize)
	case members > MaxSignatures:
		return malformed("%s has %d members, more than %d", name, members, MaxSignatures)
	case items > MaxComponents:
		return malformed("%s covers %d components in one signature, more than %d", name, items, MaxComponents)
	}
	return nil
}

// fieldShape measures a Structured Field without parsing it: its size (its lines joined as
// httpsfv joins them, with ", "), its top-level members (commas outside strings and inner
// lists, plus one a line: an upper bound for a valid field), and the most items in one inner
// list. It counts nothing (members and items 0) when the size is over limit.
func fieldShape(lines []string, limit int) (size, members, items int) {
	for i, l := range lines {
		size += len(l)
		if i > 0 {
			size += 2
		}
	}
	if size > limit {
		return size, 0, 0
	}
	var inString, escaped, inItem bool
	inList, n := false, 0 // within an inner list, and its items so far
	for _, l := range lines {
		members++
		for i := 0; i < len(l); i++ {
			c := l[i]
			if inString {
				switch {
				case escaped:
					escaped = false
				case c == '\\':
					escaped = true
				case c == '"':
					inString = false
				}
				continue
			}
			switch c {
			case '(':
				inList, n, inItem = true, 0, false
			case ')':
				inList, inItem = false, false
				items = max(items, n)
			case ',':
				if !inList {
					members++
				}
			case ' ', '\t':
				inItem = false
			default:
				if c == '"' {
					inString = true
				}
				// An item begins after "(" or white space; a parameter (";key=...") does
				// not, having none before it.
				if inList && !inItem {
					inItem = true
					n++
				}
			}
		}
		// A line that ends inside a string or a list is not valid; httpsfv will say so.
		inString, escaped, inList, inItem = false, false, false, false
		items = max(items, n)
		n = 0
	}
	return size, members, items
}
