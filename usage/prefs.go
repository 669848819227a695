package usage

import (
	"fmt"
	"sort"
	"sync"

	"github.com/dunglas/httpsfv"
)

// Prefs is an immutable set of preferences in one vocabulary. Keys whose preference is
// [Unknown] are simply absent. Its Structured Field serialisation is computed when it is
// built, so [Prefs.String] costs nothing.
//
// The zero value is the empty Content-Usage set (every preference unknown). Prefs values
// are safe to copy and to share between goroutines.
type Prefs struct {
	v   Vocab
	k   [maxKeys]Pref // by vocabulary index
	ext []extPref     // extensions, sorted by key, no Unknown; never modified once built
	s   string        // canonical serialisation
}

type extPref struct {
	key string
	p   Pref
}

// build fills in the serialisation. ext must be sorted and hold valid keys.
func build(v Vocab, k [maxKeys]Pref, ext []extPref) Prefs {
	p := Prefs{v: v, k: k, ext: ext}
	if p.IsEmpty() {
		return p
	}
	if len(ext) == 0 {
		// Without extensions a set is one of a few (3^maxKeys per vocabulary), serialised
		// once: a config's sets are built at every render and merge of its file.
		p.s = serialised()[v][setIndex(k)]
		return p
	}
	p.s = marshalSet(v, k, ext)
	return p
}

// numSets is the number of sets of vocabulary preferences: 3^maxKeys (Unknown, Allow or
// Disallow for each key).
const numSets = 3 * 3 * 3

// setIndex numbers a set of vocabulary preferences: k read as a number in base 3.
func setIndex(k [maxKeys]Pref) int {
	n := 0
	for _, p := range k {
		n = n*3 + int(p)
	}
	return n
}

// serialised is the serialisation of every set without extensions, by vocabulary and
// setIndex.
var serialised = sync.OnceValue(func() (out [len(vocabs)][numSets]string) {
	for v := range out {
		for i := range out[v] {
			var k [maxKeys]Pref
			for j, n := maxKeys-1, i; j >= 0; j, n = j-1, n/3 {
				k[j] = Pref(n % 3)
			}
			if k != ([maxKeys]Pref{}) {
				out[v][i] = marshalSet(Vocab(v), k, nil)
			}
		}
	}
	return out
})

// marshalSet is the canonical Structured Field Dictionary of a non-empty set.
func marshalSet(v Vocab, k [maxKeys]Pref, ext []extPref) string {
	d := httpsfv.NewDictionary()
	for i, key := range v.def().keys {
		if k[i] != Unknown {
			d.Add(key, httpsfv.Item{Value: httpsfv.Token(v.token(k[i])), Params: httpsfv.NewParams()})
		}
	}
	for _, e := range ext {
		d.Add(e.key, httpsfv.Item{Value: httpsfv.Token(v.token(e.p)), Params: httpsfv.NewParams()})
	}
	s, err := httpsfv.Marshal(d)
	if err != nil {
		// Keys are vocabulary keys or extension keys httpsfv already accepted.
		panic(fmt.Sprintf("usage: serialising %v: %v", d.Names(), err))
	}
	return s
}

// Vocab returns the vocabulary of p.
func (p Prefs) Vocab() Vocab { return p.v }

// Get returns the preference for key: a vocabulary key or, for sets built from
// configuration, an extension key (written without its "+").
func (p Prefs) Get(key string) Pref {
	if i := p.v.index(key); i >= 0 {
		return p.k[i]
	}
	for _, e := range p.ext {
		if e.key == key {
			return e.p
		}
	}
	return Unknown
}

// IsEmpty reports whether every preference is unknown, so that there is nothing to write.
func (p Prefs) IsEmpty() bool {
	return p.k == [maxKeys]Pref{} && len(p.ext) == 0
}

// String returns the canonical Structured Field Dictionary, computed when p was built:
// lower-case keys, Token values, vocabulary keys in vocabulary order then extensions
// sorted, for example "train-ai=n, search=y". It is "" when p is empty. Equal sets always
// give the same string, so it can serve as a cache key (together with [Prefs.Vocab]).
func (p Prefs) String() string { return p.s }

// Map returns p in its configuration form, the JSON object [Vocab.FromConfig] reads:
// vocabulary keys and "+"-prefixed extension keys mapped to y/n or yes/no. The map is
// the caller's.
func (p Prefs) Map() map[string]string {
	m := make(map[string]string, maxKeys+len(p.ext))
	for i, key := range p.v.def().keys {
		if p.k[i] != Unknown {
			m[key] = p.v.token(p.k[i])
		}
	}
	for _, e := range p.ext {
		m["+"+e.key] = p.v.token(e.p)
	}
	return m
}

// Combine returns the preferences of a and b together, key by key: any Disallow wins,
// otherwise any Allow, otherwise Unknown (draft-ietf-aipref-vocab, "Combining
// Preferences"). Use it for robots.txt rules with identical paths, for several matching
// routes, and for a route and a backend's header.
//
// Combine is commutative, associative and idempotent; the empty set is its identity.
// When one argument already holds everything the other says, that argument is returned
// as is, without allocating; otherwise the result is built and serialised anew, so a
// caller that combines the same precomputed values often should cache the result (keyed
// by the two [Prefs.String] values, for instance).
//
// An empty set combines with a set of either vocabulary. Combine panics if both are
// non-empty and of different vocabularies: their keys mean different things.
func Combine(a, b Prefs) Prefs {
	switch {
	case b.covered(a):
		return a
	case a.covered(b):
		return b
	case a.v != b.v:
		panic(fmt.Sprintf("usage: Combine of %v and %v preferences", a.v, b.v))
	}
	var k [maxKeys]Pref
	for i := range k {
		k[i] = combine(a.k[i], b.k[i])
	}
	ext := make([]extPref, 0, len(a.ext)+len(b.ext))
	i, j := 0, 0
	for i < len(a.ext) || j < len(b.ext) {
		switch {
		case j == len(b.ext) || i < len(a.ext) && a.ext[i].key < b.ext[j].key:
			ext = append(ext, a.ext[i])
			i++
		case i == len(a.ext) || b.ext[j].key < a.ext[i].key:
			ext = append(ext, b.ext[j])
			j++
		default:
			ext = append(ext, extPref{a.ext[i].key, combine(a.ext[i].p, b.ext[j].p)})
			i++
			j++
		}
	}
	return build(a.v, k, ext)
}

// covered reports whether combining p into q leaves q unchanged: p is empty, or p is of
// q's vocabulary and says nothing q does not already say as strongly.
func (p Prefs) covered(q Prefs) bool {
	if p.IsEmpty() {
		return true
	}
	if p.v != q.v {
		return false
	}
	for i := range p.k {
		if combine(p.k[i], q.k[i]) != q.k[i] {
			return false
		}
	}
	for _, e := range p.ext {
		if combine(e.p, q.Get(e.key)) != q.Get(e.key) {
			return false
		}
	}
	return true
}

// sortExt sorts extension preferences by key.
func sortExt(ext []extPref) {
	sort.Slice(ext, func(i, j int) bool { return ext[i].key < ext[j].key })
}
