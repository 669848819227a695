package usage

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dunglas/httpsfv"
	"github.com/sitepolicy/caddy-robots/internal/httplex"
	"github.com/sitepolicy/caddy-robots/internal/syntax"
)

// MaxFieldSize is the largest field value [MergeHeader] returns: 8 KiB, the size servers and
// proxies are sure to pass (and the parsing limit the Robots-Tag draft sets).
const MaxFieldSize = syntax.MaxFieldSize

// MergeHeader merges a route's preferences with the Content-Usage field lines a backend
// sent (all of them, in order, as in http.Header.Values) and returns the field value to
// send instead; "" means send no field. The route's vocabulary decides how the lines are
// read. The error, nil when everything the backend sent is in the result, says what was
// not, for a log.
//
// The lines are one field, parsed as a Structured Field Dictionary (RFC 9651) with httpsfv.
// The keys the route knows, the vocabulary's and the extension keys the route states
// itself, combine by [Combine]'s rule: any n wins, otherwise any y; the result is the
// backend's member as sent (parameters included) when its value is the combined one, and
// the bare Token otherwise. A vocabulary key the route says nothing about and whose value
// is neither y nor n is kept as sent. Every other member of the backend's Dictionary is
// kept as sent, key, value and parameters: the route combines what it knows and passes on
// the rest. The result lists the vocabulary's keys in vocabulary order, then the route's
// extension keys sorted, then the backend's other members in its order; a repeated key
// keeps its last value at its first place, as RFC 9651 says.
//
// A backend value that is not a valid Dictionary (an upper-case key, a trailing comma)
// says nothing to a reader that follows the vocabulary: every preference in it is unknown.
// It is not passed on as is, since its line would spoil the route's own preferences for
// those readers (field lines are parsed as one), and it is not dropped whole, since a
// lenient reader may read a restriction in it. It is read member by member (split at
// commas outside quoted strings, where a quote never closed hides no comma: httplex.Elements):
// a member that parses on its own and whose value is the
// vocabulary's n (no) is kept, combined if the route knows its key (also when the key is
// upper-case, Train-AI=n, which can only mean train-ai); every other member is left out,
// so that a y read from a broken field never grants anything. The error names what was
// left out.
//
// The result is at most [MaxFieldSize] bytes. When the combination would be longer, what
// is left out first is the backend's other members whose value is not n (last first), then
// the parameters of the members kept as sent, then the backend's other members with the
// value n (last first), then extension y values, then extension n values (in key order);
// the vocabulary's keys always stay. The error names what was left out.
//
// With no lines the result is route.String() and MergeHeader does not allocate; so is
// any result equal to it. A caller with no route preferences may rather leave the
// backend's field alone.
func MergeHeader(route Prefs, lines []string) (string, error) {
	if len(lines) == 0 {
		return route.String(), nil
	}
	v := route.v
	var errs []error
	d, err := httpsfv.UnmarshalDictionary(lines)
	if err != nil {
		var leftOut []string
		d, leftOut = route.salvage(lines)
		errs = append(errs, &unparsableError{v: v, value: strings.Join(lines, ", "), err: err, leftOut: leftOut})
	}
	members := route.mergeMembers(d)
	out, leftOut, size := fitMembers(members)
	if len(leftOut) > 0 {
		errs = append(errs, fmt.Errorf("the combined %v field would be %d bytes, over the %d that servers and proxies are sure to pass: left out %s (the backend's other members first, then parameters, then extension y and n values; the vocabulary's keys stay)", v, size, MaxFieldSize, names(leftOut)))
	}
	if out == route.s {
		out = route.s // the precomputed string: equal results share it
	}
	return out, errors.Join(errs...)
}

// What a member of a merged field is, in the order fitMembers leaves them out (last first).
const (
	classVocab  = iota // a vocabulary key with y or n: never left out
	classExtN          // an extension key the route states, combined n
	classExtY          // an extension key the route states, combined y
	classOtherN        // a backend member the route does not combine, with the value n
	classOther         // a backend member the route does not combine, any other value
)

type mergeMember struct {
	key   string
	m     httpsfv.Member
	class int
}

// mergeMembers combines route with the backend's Dictionary d, in the output order.
func (route Prefs) mergeMembers(d *httpsfv.Dictionary) []mergeMember {
	v := route.v
	def := v.def()
	out := make([]mergeMember, 0, len(def.keys)+len(route.ext)+len(d.Names()))
	known := func(key string, r Pref, class func(Pref) int) {
		m, sent := d.Get(key)
		var b Pref
		if item, ok := m.(httpsfv.Item); sent && ok {
			b = def.pref(item)
		}
		switch c := combine(r, b); {
		case c == Unknown && sent:
			out = append(out, mergeMember{key, m, classOther}) // a value the vocabulary does not define
		case c == Unknown:
		case sent && b == c:
			out = append(out, mergeMember{key, m, class(c)}) // the backend's statement, as sent
		default:
			out = append(out, mergeMember{key, bareToken(v.token(c)), class(c)})
		}
	}
	for i, key := range def.keys {
		known(key, route.k[i], func(Pref) int { return classVocab })
	}
	for _, e := range route.ext {
		known(e.key, e.p, func(c Pref) int {
			if c == Disallow {
				return classExtN
			}
			return classExtY
		})
	}
	for _, key := range d.Names() {
		if v.index(key) >= 0 || route.hasExt(key) {
			continue
		}
		m, _ := d.Get(key)
		class := classOther
		if item, ok := m.(httpsfv.Item); ok && def.pref(item) == Disallow {
			class = classOtherN
		}
		out = append(out, mergeMember{key, m, class})
	}
	return out
}

func (p Prefs) hasExt(key string) bool {
	for _, e := range p.ext {
		if e.key == key {
			return true
		}
	}
	return false
}

func bareToken(t string) httpsfv.Item {
	return httpsfv.Item{Value: httpsfv.Token(t), Params: httpsfv.NewParams()}
}

// salvage reads the members of a field value that is not a valid Dictionary one by one, and
// keeps those with the value n (see MergeHeader). It returns them as a Dictionary, a
// repeated key keeping its last value, and describes what it left out.
func (route Prefs) salvage(lines []string) (*httpsfv.Dictionary, []string) {
	v := route.v
	d := httpsfv.NewDictionary()
	var leftOut []string
	for text := range httplex.Elements(strings.Join(lines, ", ")) {
		key, m, ok := oneMember(text)
		if !ok {
			// An upper-case key the route knows can mean only that key.
			k, rest := splitKey(text)
			if low := strings.ToLower(k); low != k && (v.index(low) >= 0 || route.hasExt(low)) {
				key, m, ok = oneMember(low + rest)
			}
		}
		if item, isItem := m.(httpsfv.Item); ok && isItem && v.def().pref(item) == Disallow {
			d.Add(key, m)
			continue
		}
		leftOut = append(leftOut, text)
	}
	return d, leftOut
}

// oneMember parses text as a Dictionary of exactly one member.
func oneMember(text string) (string, httpsfv.Member, bool) {
	d, err := httpsfv.UnmarshalDictionary([]string{text})
	if err != nil || len(d.Names()) != 1 {
		return "", nil, false
	}
	key := d.Names()[0]
	m, _ := d.Get(key)
	return key, m, true
}

// splitKey splits a member's text into what may be its key (up to "=" or ";") and the rest.
func splitKey(text string) (string, string) {
	if i := strings.IndexAny(text, "=;"); i >= 0 {
		return text[:i], text[i:]
	}
	return text, ""
}

// fitMembers serialises members as one Dictionary with httpsfv, leaving out what is needed to
// stay within MaxFieldSize (see MergeHeader), and returns the value, what it left out and
// the size the whole would have had. A member httpsfv cannot serialise (which a member it
// parsed always can) is left out too.
func fitMembers(members []mergeMember) (string, []string, int) {
	s, err := marshalMembers(members)
	if err == nil && len(s) <= MaxFieldSize {
		return s, nil, len(s)
	}
	var leftOut []string
	sizes := make([]int, len(members))
	keep := make([]bool, len(members))
	total := -len(", ")
	for i, m := range members {
		one, err := marshalMembers(members[i : i+1])
		if err != nil {
			leftOut = append(leftOut, m.key+" (cannot be serialised: "+err.Error()+")")
			continue
		}
		sizes[i], keep[i] = len(one), true
		total += len(one) + len(", ")
	}
	whole := max(total, len(s))
	drop := func(i int) {
		keep[i] = false
		total -= sizes[i] + len(", ")
		one, _ := marshalMembers(members[i : i+1])
		leftOut = append(leftOut, one)
	}
	for i := len(members) - 1; i >= 0 && total > MaxFieldSize; i-- {
		if keep[i] && members[i].class == classOther {
			drop(i)
		}
	}
	for i := range members {
		if total <= MaxFieldSize {
			break
		}
		stripped, ok := withoutParams(members[i].m)
		if !keep[i] || !ok {
			continue
		}
		one, err := marshalMembers([]mergeMember{{members[i].key, stripped, members[i].class}})
		if err != nil {
			continue
		}
		leftOut = append(leftOut, members[i].key+"'s parameters")
		members[i].m = stripped
		total -= sizes[i] - len(one)
		sizes[i] = len(one)
	}
	for i := len(members) - 1; i >= 0 && total > MaxFieldSize; i-- {
		if keep[i] && members[i].class == classOtherN {
			drop(i)
		}
	}
	for _, class := range []int{classExtY, classExtN} {
		for i := range members {
			if total <= MaxFieldSize {
				break
			}
			if keep[i] && members[i].class == class {
				drop(i)
			}
		}
	}
	kept := members[:0:0]
	for i, m := range members {
		if keep[i] {
			kept = append(kept, m)
		}
	}
	s, err = marshalMembers(kept)
	if err != nil {
		// Every member on its own serialised: cannot happen.
		panic(fmt.Sprintf("usage: serialising %d members: %v", len(kept), err))
	}
	return s, leftOut, whole
}

func marshalMembers(members []mergeMember) (string, error) {
	if len(members) == 0 {
		return "", nil
	}
	d := httpsfv.NewDictionary()
	for _, m := range members {
		d.Add(m.key, m.m)
	}
	return httpsfv.Marshal(d)
}

// withoutParams returns m without its parameters, and whether it had any.
func withoutParams(m httpsfv.Member) (httpsfv.Member, bool) {
	switch x := m.(type) {
	case httpsfv.Item:
		if x.Params == nil || len(x.Params.Names()) == 0 {
			return m, false
		}
		return httpsfv.Item{Value: x.Value, Params: httpsfv.NewParams()}, true
	case httpsfv.InnerList:
		if x.Params == nil || len(x.Params.Names()) == 0 {
			return m, false
		}
		return httpsfv.InnerList{Items: x.Items, Params: httpsfv.NewParams()}, true
	}
	return m, false
}

// names lists at most six of what was left out, each cut to 60 bytes, and counts the rest:
// a log line stays short however much a backend sends.
func names(list []string) string {
	const most, width = 6, 60
	var b strings.Builder
	for i, n := range list {
		if i == most {
			fmt.Fprintf(&b, " and %d more", len(list)-most)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		if len(n) > width {
			n = n[:width] + "..."
		}
		fmt.Fprintf(&b, "%q", n)
	}
	return b.String()
}

// unparsableError reports a backend value that is not a Structured Field Dictionary, and
// what MergeHeader left out of it.
type unparsableError struct {
	v       Vocab
	value   string
	err     error
	leftOut []string
}

func (e *unparsableError) Error() string {
	const limit = 200
	v := e.value
	if len(v) > limit {
		v = v[:limit] + "..."
	}
	msg := fmt.Sprintf("%v value %q is not a Structured Field Dictionary (%v), so to a reader every preference in it is unknown; its members with the value %s are kept", e.v, v, e.err, e.v.token(Disallow))
	if len(e.leftOut) > 0 {
		msg += ", left out " + names(e.leftOut)
	}
	return msg
}

func (e *unparsableError) Unwrap() error { return e.err }
