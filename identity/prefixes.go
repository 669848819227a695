// Package identity is about who really sends a request that names a crawler: the address
// lists crawler operators publish (ParsePrefixes reads every format the bot catalogue of
// package crawlers names), for checking that a request claiming a crawler comes from its
// operator's network.
package identity

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// Formats of the documents operators publish their addresses in (crawlers.IPRangeSource).
const (
	FormatJSON = "json" // a JSON document; a selector says where the prefixes are
	FormatText = "text" // one prefix or address per line ("#" starts a comment)
	FormatCSV  = "csv"  // a prefix or address in the first column (an RFC 8805 geofeed)
)

// The shortest prefixes a published list may hold. Real lists hold far longer ones (the
// shortest in the formats this package reads: Cloudflare's /13 for IPv4 and /29 for IPv6); a
// list with a shorter one, a default route above all, would verify a large part of the
// Internet, and is refused whole.
const (
	MinBitsIPv4 = 8
	MinBitsIPv6 = 24
)

// MaxPrefixes bounds the prefixes one list may hold.
const MaxPrefixes = 1 << 20

// Prefixes is a set of IP prefixes: one operator's published list, or several merged.
// Contains takes time logarithmic in its size and allocates nothing. The zero value is
// empty.
type Prefixes struct {
	v4, v6 []span // sorted, disjoint, not adjacent
	// The same spans as integers, which compare faster than netip.Addr.
	v4n []span4
	v6n []span6
	n   int // prefixes read
}

// span is the addresses from lo to hi inclusive, in one family.
type span struct{ lo, hi netip.Addr }

type span4 struct{ lo, hi uint32 }

type u128 struct{ hi, lo uint64 }

func (a u128) less(b u128) bool { return a.hi < b.hi || a.hi == b.hi && a.lo < b.lo }

type span6 struct{ lo, hi u128 }

func addr4(a netip.Addr) uint32 { b := a.As4(); return binary.BigEndian.Uint32(b[:]) }

func addr6(a netip.Addr) u128 {
	b := a.As16()
	return u128{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}
}

// Contains reports whether a is in one of the prefixes. An IPv4-mapped IPv6 address is
// looked up as the IPv4 address it maps; an address with a zone is in none, as
// netip.Prefix.Contains says; a nil set holds nothing.
func (p *Prefixes) Contains(a netip.Addr) bool {
	if p == nil || a.Zone() != "" {
		return false
	}
	a = a.Unmap()
	if a.Is4() {
		x, s := addr4(a), p.v4n
		// The first span whose end is not below x; x is in it if it does not start after x.
		i, j := 0, len(s)
		for i < j {
			h := int(uint(i+j) >> 1)
			if s[h].hi < x {
				i = h + 1
			} else {
				j = h
			}
		}
		return i < len(s) && s[i].lo <= x
	}
	if !a.Is6() {
		return false
	}
	x, s := addr6(a), p.v6n
	i, j := 0, len(s)
	for i < j {
		h := int(uint(i+j) >> 1)
		if s[h].hi.less(x) {
			i = h + 1
		} else {
			j = h
		}
	}
	return i < len(s) && !x.less(s[i].lo)
}

// index fills the integer forms of the spans.
func (p *Prefixes) index() *Prefixes {
	p.v4n = make([]span4, len(p.v4))
	for i, s := range p.v4 {
		p.v4n[i] = span4{addr4(s.lo), addr4(s.hi)}
	}
	p.v6n = make([]span6, len(p.v6))
	for i, s := range p.v6 {
		p.v6n[i] = span6{addr6(s.lo), addr6(s.hi)}
	}
	return p
}

// Len returns the number of prefixes read into the set.
func (p *Prefixes) Len() int { return p.n }

// Spans returns the number of disjoint address ranges the prefixes make, IPv4 and IPv6.
func (p *Prefixes) Spans() (v4, v6 int) { return len(p.v4), len(p.v6) }

// Merge returns the union of sets.
func Merge(sets ...*Prefixes) *Prefixes {
	out := &Prefixes{}
	for _, s := range sets {
		out.v4 = append(out.v4, s.v4...)
		out.v6 = append(out.v6, s.v6...)
		out.n += s.n
	}
	out.v4, out.v6 = normalize(out.v4), normalize(out.v6)
	return out.index()
}

// ParsePrefixes reads an operator's published list in format (FormatJSON, FormatText or
// FormatCSV); for JSON, selector is the JSONPath of the prefixes as the bot catalogue writes
// it (crawlers.IPRangeSource.Selector): "$" followed by ".name", ".*", "[*]",
// `["name","name"]` and `[?(@.name=="value")]` steps. An address without a length is a
// prefix of one address. Any entry that is not a prefix or an address, a prefix shorter than
// MinBitsIPv4/MinBitsIPv6, and a list without prefixes make the whole list an error: a
// verifier keeps its last good list rather than trust part of a broken one.
func ParsePrefixes(format, selector string, body []byte) (*Prefixes, error) {
	var entries []string
	var where func(i int) string // names entry i in an error: its line, or its JSON path
	switch format {
	case FormatText, FormatCSV:
		var lines []int
		for i, line := range strings.Split(string(body), "\n") {
			line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
			if line == "" || line[0] == '#' {
				continue
			}
			if format == FormatCSV {
				line, _, _ = strings.Cut(line, ",")
				line = strings.TrimSpace(line)
			}
			if line == "" {
				return nil, fmt.Errorf("line %d: no prefix in the first column", i+1)
			}
			entries, lines = append(entries, line), append(lines, i+1)
		}
		where = func(i int) string { return fmt.Sprintf("line %d", lines[i]) }
	case FormatJSON:
		var err error
		if entries, _, err = selectJSON(selector, body, false); err != nil {
			return nil, err
		}
		where = func(i int) string {
			// Found again with the paths, only for an error: a list's parse keeps none.
			_, paths, _ := selectJSON(selector, body, true)
			return "entry " + paths[i]
		}
	default:
		return nil, fmt.Errorf("unknown format %q (want %q, %q or %q)", format, FormatJSON, FormatText, FormatCSV)
	}
	p, err := fromEntries(entries)
	if ee, ok := err.(*entryError); ok {
		return nil, fmt.Errorf("%s: %s", where(ee.i), ee.msg)
	}
	return p, err
}

// entryError is what is wrong with entry i of a list.
type entryError struct {
	i   int
	msg string
}

func (e *entryError) Error() string { return e.msg }

func fromEntries(entries []string) (*Prefixes, error) {
	if len(entries) == 0 {
		return nil, errors.New("the list holds no prefix")
	}
	if len(entries) > MaxPrefixes {
		return nil, fmt.Errorf("the list holds %d prefixes, more than %d", len(entries), MaxPrefixes)
	}
	p := &Prefixes{n: len(entries)}
	for i, e := range entries {
		pfx, err := netip.ParsePrefix(e)
		if err != nil {
			a, aerr := netip.ParseAddr(e)
			if aerr != nil || a.Zone() != "" {
				return nil, &entryError{i, fmt.Sprintf("%q is neither an IP prefix nor an address", e)}
			}
			pfx = netip.PrefixFrom(a, a.BitLen())
		}
		pfx = netip.PrefixFrom(pfx.Addr().Unmap(), pfx.Bits()-(pfx.Addr().BitLen()-pfx.Addr().Unmap().BitLen())).Masked()
		if !pfx.IsValid() {
			return nil, &entryError{i, fmt.Sprintf("%q is not a valid prefix", e)}
		}
		s := span{lo: pfx.Addr(), hi: lastAddr(pfx)}
		if pfx.Addr().Is4() {
			if pfx.Bits() < MinBitsIPv4 {
				return nil, &entryError{i, fmt.Sprintf("%q is shorter than /%d: no crawler operator's list holds such a prefix", e, MinBitsIPv4)}
			}
			p.v4 = append(p.v4, s)
		} else {
			if pfx.Bits() < MinBitsIPv6 {
				return nil, &entryError{i, fmt.Sprintf("%q is shorter than /%d: no crawler operator's list holds such a prefix", e, MinBitsIPv6)}
			}
			p.v6 = append(p.v6, s)
		}
	}
	p.v4, p.v6 = normalize(p.v4), normalize(p.v6)
	return p.index(), nil
}

// lastAddr returns the last address of a masked prefix.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// normalize sorts spans and merges those that overlap or touch.
func normalize(s []span) []span {
	slices.SortFunc(s, func(a, b span) int { return a.lo.Compare(b.lo) })
	out := s[:0]
	for _, x := range s {
		if n := len(out); n > 0 {
			last := &out[n-1]
			if next := last.hi.Next(); x.lo.Compare(last.hi) <= 0 || (next.IsValid() && x.lo == next) {
				if x.hi.Compare(last.hi) > 0 {
					last.hi = x.hi
				}
				continue
			}
		}
		out = append(out, x)
	}
	return slices.Clip(out)
}

// selectJSON returns the strings selector picks out of the JSON document body, and with
// paths, the JSON path of each ("$.prefixes[3].ipv4Prefix").
func selectJSON(selector string, body []byte, paths bool) ([]string, []string, error) {
	steps, err := parseSelector(selector)
	if err != nil {
		return nil, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, nil, fmt.Errorf("not a JSON document: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errors.New("not a JSON document: data after it")
	}
	cur := []any{doc}
	var at []string
	if paths {
		at = []string{"$"}
	}
	for _, st := range steps {
		var next []any
		var nextAt []string
		for i, v := range cur {
			next = st.apply(v, next)
			if paths {
				nextAt = st.paths(v, at[i], nextAt)
			}
		}
		cur, at = next, nextAt
	}
	out := make([]string, 0, len(cur))
	for i, v := range cur {
		s, ok := v.(string)
		if !ok {
			if !paths {
				return selectJSON(selector, body, true) // found again with the paths, to name it
			}
			return nil, nil, fmt.Errorf("entry %s: selector %q picks %s, not a prefix string", at[i], selector, jsonKind(v))
		}
		out = append(out, s)
	}
	return out, at, nil
}

// jsonKind names the kind of a decoded JSON value.
func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("a %T", v)
}

// step is one step of a selector: members by name, every member or element (all), or the
// elements of an array whose member key equals value (filter).
type step struct {
	names      []string
	all        bool
	key, value string
	filter     bool
}

func (st step) apply(v any, out []any) []any {
	switch {
	case st.all:
		switch v := v.(type) {
		case []any:
			out = append(out, v...)
		case map[string]any:
			for _, k := range sortedKeys(v) {
				out = append(out, v[k])
			}
		}
	case st.filter:
		if list, ok := v.([]any); ok {
			for _, e := range list {
				if m, ok := e.(map[string]any); ok && m[st.key] == st.value {
					out = append(out, e)
				}
			}
		}
	default:
		if m, ok := v.(map[string]any); ok {
			for _, n := range st.names {
				if x, ok := m[n]; ok {
					out = append(out, x)
				}
			}
		}
	}
	return out
}

// paths appends to out the JSON paths of the values apply picks out of v, at path p, in the
// same order.
func (st step) paths(v any, p string, out []string) []string {
	switch {
	case st.all:
		switch v := v.(type) {
		case []any:
			for i := range v {
				out = append(out, fmt.Sprintf("%s[%d]", p, i))
			}
		case map[string]any:
			for _, k := range sortedKeys(v) {
				out = append(out, member(p, k))
			}
		}
	case st.filter:
		if list, ok := v.([]any); ok {
			for i, e := range list {
				if m, ok := e.(map[string]any); ok && m[st.key] == st.value {
					out = append(out, fmt.Sprintf("%s[%d]", p, i))
				}
			}
		}
	default:
		if m, ok := v.(map[string]any); ok {
			for _, name := range st.names {
				if _, ok := m[name]; ok {
					out = append(out, member(p, name))
				}
			}
		}
	}
	return out
}

// member is the path of member name of the object at p: ".name", or `["name"]` for a
// name that is not a plain word.
func member(p, name string) string {
	for _, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return fmt.Sprintf("%s[%q]", p, name)
		}
	}
	if name == "" {
		return p + `[""]`
	}
	return p + "." + name
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// parseSelector reads the JSONPath subset of the bot catalogue's selectors. The catalogue
// writes the quotes of bracketed names escaped (`[\"ipv6Prefix\",\"ipv4Prefix\"]`), as they
// stand in its JSON source; both spellings are read.
func parseSelector(sel string) ([]step, error) {
	orig := sel
	sel = strings.ReplaceAll(sel, `\"`, `"`)
	bad := func(why string) error { return fmt.Errorf("selector %q: %s", orig, why) }
	if !strings.HasPrefix(sel, "$") {
		return nil, bad(`must start with "$"`)
	}
	var steps []step
	for rest := sel[1:]; rest != ""; {
		switch {
		case strings.HasPrefix(rest, ".*"):
			steps, rest = append(steps, step{all: true}), rest[2:]
		case rest[0] == '.':
			end := strings.IndexAny(rest[1:], ".[")
			if end < 0 {
				end = len(rest) - 1
			}
			name := rest[1 : end+1]
			if name == "" {
				return nil, bad("empty member name")
			}
			steps, rest = append(steps, step{names: []string{name}}), rest[end+1:]
		case strings.HasPrefix(rest, "[*]"):
			steps, rest = append(steps, step{all: true}), rest[3:]
		case strings.HasPrefix(rest, "[?(@."):
			end := strings.Index(rest, ")]")
			if end < 0 {
				return nil, bad("unterminated filter")
			}
			key, val, ok := strings.Cut(rest[len("[?(@."):end], "==")
			v, err := strconv.Unquote(strings.TrimSpace(val))
			if !ok || err != nil || strings.TrimSpace(key) == "" {
				return nil, bad(`a filter must be [?(@.name=="value")]`)
			}
			steps, rest = append(steps, step{filter: true, key: strings.TrimSpace(key), value: v}), rest[end+2:]
		case strings.HasPrefix(rest, `["`):
			end := strings.Index(rest, `"]`)
			if end < 0 {
				return nil, bad("unterminated member list")
			}
			var names []string
			for _, q := range strings.Split(rest[1:end+1], ",") {
				n, err := strconv.Unquote(strings.TrimSpace(q))
				if err != nil {
					return nil, bad(fmt.Sprintf("member name %s is not a quoted string", q))
				}
				names = append(names, n)
			}
			steps, rest = append(steps, step{names: names}), rest[end+2:]
		default:
			return nil, bad(fmt.Sprintf("cannot read %q", rest))
		}
	}
	return steps, nil
}
