package webbotauth

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/dunglas/httpsfv"
)

// ErrAgent: the Signature-Agent field, or the member a signature covers, is not what
// draft-ietf-webbotauth-httpsig-protocol-01 ("Signature-Agent") allows.
var ErrAgent = errors.New("webbotauth: Signature-Agent")

func agentErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrAgent, fmt.Sprintf(format, args...))
}

// SignatureAgent returns the agent URL that signature s names in the request's Signature-Agent
// field, normalized as NormalizeAgent does; "" if the request has no Signature-Agent.
//
// The draft's form is a Dictionary whose members are Strings without parameters; the URL of a
// signature is the member it covers as `"signature-agent";key="<member>"` (the draft's test
// vectors cover the member "agent2" under the label "sig2", so the member's key need not be the
// label). The earlier form, still deployed and which the draft lets a verifier accept, is a bare
// String covered as `"signature-agent"`. A signature that does not cover the field, or covers
// several members of it and none keyed by its label, names no agent: the draft forbids
// attributing a signature to a member it does not cover.
func (s *Signature) SignatureAgent(h http.Header) (string, error) {
	lines := h.Values("Signature-Agent")
	if len(lines) == 0 {
		return "", nil
	}
	// Refused before it is parsed, as the signature fields are (checkShape).
	if size, members, _ := fieldShape(lines, MaxFieldSize); size > MaxFieldSize {
		return "", agentErr("field of %d bytes, more than %d", size, MaxFieldSize)
	} else if members > MaxSignatures {
		return "", agentErr("%d members, more than %d", members, MaxSignatures)
	}
	var keys []string
	whole := false
	for _, c := range s.Components {
		if c.Name != "signature-agent" {
			continue
		}
		if c.Key == "" {
			whole = true
		} else {
			keys = append(keys, c.Key)
		}
	}
	if strings.HasPrefix(strings.TrimSpace(lines[0]), `"`) {
		// The String form (draft: a String Item begins with a double quote, a Dictionary key
		// does not).
		if !whole {
			return "", agentErr("the signature does not cover Signature-Agent")
		}
		it, err := httpsfv.UnmarshalItem(lines)
		if err != nil {
			return "", agentErr("%v", err)
		}
		u, ok := it.Value.(string)
		if !ok {
			return "", agentErr("not a String")
		}
		return NormalizeAgent(u)
	}
	d, err := httpsfv.UnmarshalDictionary(lines)
	if err != nil {
		return "", agentErr("%v", err)
	}
	var key string
	switch {
	case len(keys) == 1:
		key = keys[0]
	case len(keys) > 1 || whole:
		// Covering the whole field, or several members: the member keyed by the label.
		for _, k := range append(keys, d.Names()...) {
			if k == s.Label {
				key = k
			}
		}
		if key == "" {
			return "", agentErr("the signature covers several agents, none labelled %s", s.Label)
		}
	default:
		return "", agentErr("the signature does not cover Signature-Agent")
	}
	m, ok := d.Get(key)
	if !ok {
		return "", agentErr("no member %s", key)
	}
	it, ok := m.(httpsfv.Item)
	if !ok {
		return "", agentErr("member %s is not an Item", key)
	}
	if it.Params != nil && len(it.Params.Names()) > 0 {
		// The draft: a verifier MUST ignore a member that carries parameters.
		return "", agentErr("member %s has parameters", key)
	}
	u, ok := it.Value.(string)
	if !ok {
		return "", agentErr("member %s is not a String", key)
	}
	return NormalizeAgent(u)
}

// NormalizeAgent returns the agent identifier an absolute https URL stands for: scheme and host
// lowercased, the default port and any query dropped, an empty path made "/" (the draft,
// "Key Distribution and Discovery": identifiers compared after RFC 3986 sections 6.2.2 and
// 6.2.3, the query discarded). Other schemes, user information, fragments and relative
// references are errors.
func NormalizeAgent(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", agentErr("%v", err)
	}
	if !strings.EqualFold(u.Scheme, "https") {
		return "", agentErr("%q is not an https URL", raw)
	}
	if u.Host == "" || u.User != nil || u.Fragment != "" || u.Opaque != "" {
		return "", agentErr("%q is not a plain absolute https URL", raw)
	}
	host := strings.ToLower(u.Host)
	host = strings.TrimSuffix(host, ":443")
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	return "https://" + host + p, nil
}
