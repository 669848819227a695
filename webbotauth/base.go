package webbotauth

import (
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/dunglas/httpsfv"
)

// Target is what a signature base needs of a request beyond its header: the parts of the
// target URI a server knows only from its own configuration (behind a proxy, neither r.TLS nor
// r.Host may be what the client addressed).
type Target struct {
	// Scheme is "https" or "http"; "" takes r.URL.Scheme, else "https" if r.TLS is set.
	Scheme string
	// Authority is the host and port the client addressed; "" takes r.Host.
	Authority string
}

func (t Target) scheme(r *http.Request) string {
	switch {
	case t.Scheme != "":
		return strings.ToLower(t.Scheme)
	case r.URL != nil && r.URL.Scheme != "":
		return strings.ToLower(r.URL.Scheme)
	case r.TLS != nil:
		return "https"
	}
	return "http"
}

// authority is the "@authority" value (RFC 9421 section 2.2.3): the host lowercased, the port
// dropped when it is the scheme's default.
func (t Target) authority(r *http.Request, scheme string) string {
	a := t.Authority
	if a == "" {
		a = r.Host
		if a == "" && r.URL != nil {
			a = r.URL.Host
		}
	}
	a = strings.ToLower(a)
	if host, port, err := net.SplitHostPort(a); err == nil {
		if scheme == "https" && port == "443" || scheme == "http" && port == "80" {
			if strings.Contains(host, ":") {
				return "[" + host + "]"
			}
			return host
		}
	}
	return a
}

// Base returns the signature base of s over the request r (RFC 9421 section 2.5): a line
// `"<component identifier>": <value>` per covered component, in order, each ending in a
// newline, and the `"@signature-params": ` line with the serialized parameters and no
// newline. A component the request cannot supply (a field it lacks, a query parameter it has
// not or has twice, a component of responses) is an error wrapping ErrComponent, as section
// 2.5 requires.
func (s *Signature) Base(r *http.Request, t Target) ([]byte, error) {
	return s.appendBase(nil, r, t)
}

func (s *Signature) appendBase(b []byte, r *http.Request, t Target) ([]byte, error) {
	scheme := t.scheme(r)
	for _, c := range s.Components {
		if c.Req {
			// A request has no request of its own (section 2.4).
			return nil, componentErr(c, "req in a request's signature")
		}
		b = append(b, c.id...)
		b = append(b, ": "...)
		var err error
		b, err = appendValue(b, c, r, t, scheme)
		if err != nil {
			return nil, err
		}
		b = append(b, '\n')
	}
	b = append(b, `"@signature-params": `...)
	b = append(b, s.Params...)
	return b, nil
}

func componentErr(c Component, format string, args ...any) error {
	return fmt.Errorf("%w %s: %s", ErrComponent, c.id, fmt.Sprintf(format, args...))
}

// appendValue appends the value of one component: a derived component (section 2.2) or a
// field (section 2.1).
func appendValue(b []byte, c Component, r *http.Request, t Target, scheme string) ([]byte, error) {
	if c.Name[0] == '@' {
		return appendDerived(b, c, r, t, scheme)
	}
	lines, err := fieldLines(c, r)
	if err != nil {
		return nil, err
	}
	switch {
	case c.BS:
		return appendByteSequences(b, lines), nil
	case c.Key != "":
		return appendMember(b, c, lines)
	case c.SF:
		return appendStructured(b, c, lines)
	}
	// Section 2.1: each field line's value trimmed, obsolete folding already gone (net/http
	// refuses it), joined by ", ".
	for i, l := range lines {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, strings.TrimSpace(l)...)
	}
	return b, nil
}

// appendDerived appends the value of a derived component (section 2.2).
func appendDerived(b []byte, c Component, r *http.Request, t Target, scheme string) ([]byte, error) {
	u := r.URL
	if u == nil {
		u = &url.URL{}
	}
	switch c.Name {
	case "@method":
		return append(b, r.Method...), nil
	case "@target-uri":
		return appendTargetURI(b, r, u, t, scheme), nil
	case "@authority":
		return append(b, t.authority(r, scheme)...), nil
	case "@scheme":
		return append(b, scheme...), nil
	case "@request-target":
		return append(b, requestTarget(r, u)...), nil
	case "@path":
		return append(b, escapedPath(u)...), nil
	case "@query":
		b = append(b, '?')
		return append(b, u.RawQuery...), nil
	case "@query-param":
		return appendQueryParam(b, c, u.RawQuery)
	case "@signature-params":
		return nil, componentErr(c, "cannot be covered")
	}
	// "@status" (responses only) and anything not in section 2.2.
	return nil, componentErr(c, "not a request component")
}

// appendTargetURI appends @target-uri: scheme, authority, path and query.
func appendTargetURI(b []byte, r *http.Request, u *url.URL, t Target, scheme string) []byte {
	b = append(b, scheme...)
	b = append(b, "://"...)
	b = append(b, t.authority(r, scheme)...)
	if rt := requestTarget(r, u); strings.HasPrefix(rt, "/") {
		return append(b, rt...)
	}
	// An absolute-form request target (to a proxy): its path and query.
	b = append(b, escapedPath(u)...)
	if u.RawQuery != "" || u.ForceQuery {
		b = append(b, '?')
		b = append(b, u.RawQuery...)
	}
	return b
}

// escapedPath is u's path as sent, "/" when empty.
func escapedPath(u *url.URL) string {
	if p := u.EscapedPath(); p != "" {
		return p
	}
	return "/"
}

// fieldLines are the field lines of the field component c names, in order.
func fieldLines(c Component, r *http.Request) ([]string, error) {
	lines := r.Header.Values(c.Name)
	if c.Name == "host" && len(lines) == 0 && r.Host != "" {
		// net/http moves Host out of the header map.
		lines = []string{r.Host}
	}
	if len(lines) == 0 {
		return nil, componentErr(c, "no such field")
	}
	return lines, nil
}

// appendByteSequences appends a field with the bs parameter (section 2.1.3): each line
// trimmed, wrapped as a Byte Sequence, joined by ", ".
func appendByteSequences(b []byte, lines []string) []byte {
	for i, l := range lines {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, ':')
		b = base64.StdEncoding.AppendEncode(b, []byte(strings.TrimSpace(l)))
		b = append(b, ':')
	}
	return b
}

// appendMember appends a field with the key parameter (section 2.1.2): the member of the
// Dictionary, re-serialized.
func appendMember(b []byte, c Component, lines []string) ([]byte, error) {
	d, err := httpsfv.UnmarshalDictionary(lines)
	if err != nil {
		return nil, componentErr(c, "not a Dictionary: %v", err)
	}
	m, ok := d.Get(c.Key)
	if !ok {
		return nil, componentErr(c, "no member %q", c.Key)
	}
	v, err := httpsfv.Marshal(m.(httpsfv.StructuredFieldValue))
	if err != nil {
		return nil, componentErr(c, "%v", err)
	}
	return append(b, v...), nil
}

// appendStructured appends a field with the sf parameter (section 2.1.1): re-serialized;
// the field's type must be known to parse it.
func appendStructured(b []byte, c Component, lines []string) ([]byte, error) {
	var v httpsfv.StructuredFieldValue
	var err error
	switch sfType[c.Name] {
	case "dictionary":
		v, err = httpsfv.UnmarshalDictionary(lines)
	case "list":
		v, err = httpsfv.UnmarshalList(lines)
	case "item":
		v, err = httpsfv.UnmarshalItem(lines)
	default:
		return nil, componentErr(c, "sf of a field whose Structured Field type is not known here")
	}
	if err != nil {
		return nil, componentErr(c, "%v", err)
	}
	s, err := httpsfv.Marshal(v)
	if err != nil {
		return nil, componentErr(c, "%v", err)
	}
	return append(b, s...), nil
}

// sfType is the Structured Field type of the fields the sf parameter may name.
var sfType = map[string]string{
	"signature-agent":     "dictionary",
	"signature-input":     "dictionary",
	"signature":           "dictionary",
	"accept-signature":    "dictionary",
	"content-digest":      "dictionary",
	"repr-digest":         "dictionary",
	"want-content-digest": "dictionary",
	"cache-status":        "list",
	"priority":            "dictionary",
}

// requestTarget is the request target of the request line (RFC 9421 section 2.2.5); for the
// usual origin form the path and query as the client sent them.
func requestTarget(r *http.Request, u *url.URL) string {
	if r.RequestURI != "" {
		return r.RequestURI
	}
	return u.RequestURI()
}

// appendQueryParam appends the value of "@query-param";name=... (RFC 9421 section 2.2.8): the
// query parsed as application/x-www-form-urlencoded, the one value of the parameter whose
// re-encoded name is the name parameter, re-encoded. A parameter absent or repeated is an
// error: the section makes repetition ambiguous, and a forger could add a second value.
func appendQueryParam(b []byte, c Component, rawQuery string) ([]byte, error) {
	found := false
	var value string
	for rawQuery != "" {
		var pair string
		pair, rawQuery, _ = strings.Cut(rawQuery, "&")
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		name, err1 := url.QueryUnescape(k)
		val, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			return nil, componentErr(c, "query not form-urlencoded")
		}
		if encodeQueryParam(name) != c.Param {
			continue
		}
		if found {
			return nil, componentErr(c, "the parameter occurs more than once")
		}
		found, value = true, val
	}
	if !found {
		return nil, componentErr(c, "no such query parameter")
	}
	return append(b, encodeQueryParam(value)...), nil
}

// encodeQueryParam percent-encodes s as RFC 9421 section 2.2.8 re-encodes names and values:
// every byte but ASCII letters, digits and "*-._" as %XX (a space as %20, not "+").
func encodeQueryParam(s string) string {
	const hex = "0123456789ABCDEF"
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '*' || c == '-' || c == '.' || c == '_' {
			sb.WriteByte(c)
			continue
		}
		sb.WriteByte('%')
		sb.WriteByte(hex[c>>4])
		sb.WriteByte(hex[c&15])
	}
	return sb.String()
}
