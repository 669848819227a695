package usage

import (
	"math"
	"math/rand"
	"testing"
)

func mustArgs(t testing.TB, v Vocab, args ...string) Prefs {
	t.Helper()
	p, err := v.FromArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// allPrefs returns every set of v's keys plus the given extension keys.
func allPrefs(v Vocab, extKeys ...string) []Prefs {
	n := len(v.def().keys) + len(extKeys)
	total := 1
	for range n {
		total *= 3
	}
	out := make([]Prefs, 0, total)
	for code := range total {
		var k [maxKeys]Pref
		var ext []extPref
		c := code
		for i := range n {
			p := Pref(c % 3)
			c /= 3
			if i < len(v.def().keys) {
				k[i] = p
			} else if p != Unknown {
				ext = append(ext, extPref{extKeys[i-len(v.def().keys)], p})
			}
		}
		out = append(out, build(v, k, ext))
	}
	return out
}

func same(a, b Prefs) bool {
	return a.String() == b.String() && (a.IsEmpty() || a.Vocab() == b.Vocab())
}

// TestCombineProperties: Combine is commutative, associative and idempotent, the empty
// set is its identity, Disallow absorbs per key, and each key follows the vocabulary's
// rule. Exhaustive over every set of the vocabulary's keys with one extension key, and
// random triples with more extension keys.
func TestCombineProperties(t *testing.T) {
	for _, v := range []Vocab{ContentUsage, ContentSignal} {
		all := allPrefs(v, "x-a")
		keys := append(v.Keys(), "x-a", "x-b", "x-c")
		check := func(a, b, c Prefs) {
			ab := Combine(a, b)
			if !same(ab, Combine(b, a)) {
				t.Fatalf("%v: not commutative: %q, %q", v, a, b)
			}
			if !same(Combine(ab, c), Combine(a, Combine(b, c))) {
				t.Fatalf("%v: not associative: %q, %q, %q", v, a, b, c)
			}
			if !same(Combine(a, a), a) {
				t.Fatalf("%v: not idempotent: %q", v, a)
			}
			if !same(Combine(a, Prefs{}), a) || !same(Combine(Prefs{v: v}, a), a) {
				t.Fatalf("%v: empty set is not the identity for %q", v, a)
			}
			for _, key := range keys {
				pa, pb, got := a.Get(key), b.Get(key), ab.Get(key)
				want := Unknown
				switch {
				case pa == Disallow || pb == Disallow:
					want = Disallow // absorbing
				case pa == Allow || pb == Allow:
					want = Allow
				}
				if got != want {
					t.Fatalf("%v: Combine(%q, %q).Get(%q) = %v, want %v", v, a, b, key, got, want)
				}
			}
			// The result re-parses to itself (extensions aside, which readers ignore).
			if q, err := v.Parse(ab.String()); err != nil || len(ab.ext) == 0 && q.String() != ab.String() {
				t.Fatalf("%v: %q re-parses as %q, %v", v, ab, q, err)
			}
		}
		// Every pair; under the race detector, where only races are looked for, every pair
		// with one in ten of the first (the run without -race in ./test.sh has them all).
		stride, random := 1, 20000
		if raceEnabled {
			stride, random = 10, 1000
		}
		for i := 0; i < len(all); i += stride {
			a := all[i]
			for _, b := range all {
				check(a, b, all[(len(a.s)*7+len(b.s))%len(all)])
			}
		}
		rnd := rand.New(rand.NewSource(1))
		wide := allPrefs(v, "x-a", "x-b", "x-c")
		for range random {
			check(wide[rnd.Intn(len(wide))], wide[rnd.Intn(len(wide))], wide[rnd.Intn(len(wide))])
		}
	}
}

// TestCombineReturnsArgument: when one side adds nothing, the other is returned as is
// (same serialisation string, no allocation).
func TestCombineReturnsArgument(t *testing.T) {
	a := mustArgs(t, ContentUsage, "train-ai=n", "search=y")
	b := mustArgs(t, ContentUsage, "train-ai=y")
	if got := Combine(a, b); got.String() != a.String() || unsafeStringData(got.s) != unsafeStringData(a.s) {
		t.Errorf("Combine(a, b) = %q, want a itself", got)
	}
	if got := Combine(b, a); unsafeStringData(got.s) != unsafeStringData(a.s) {
		t.Errorf("Combine(b, a) = %q, want a itself", got)
	}
	c := mustArgs(t, ContentUsage, "search=n")
	if got := Combine(a, c).String(); got != "train-ai=n, search=n" {
		t.Errorf("Combine(a, c) = %q", got)
	}
}

func TestCombineVocabMismatch(t *testing.T) {
	cu := mustArgs(t, ContentUsage, "search=y")
	cs := mustArgs(t, ContentSignal, "search=yes")
	if got := Combine(cu, Prefs{v: ContentSignal}); got.String() != "search=y" {
		t.Errorf("empty Content-Signal set is not neutral: %q", got)
	}
	if got := Combine(Prefs{}, cs); got.Vocab() != ContentSignal || got.String() != "search=yes" {
		t.Errorf("zero Prefs is not neutral: %v %q", got.Vocab(), got)
	}
	defer func() {
		if recover() == nil {
			t.Error("Combine of Content-Usage and Content-Signal did not panic")
		}
	}()
	Combine(cu, cs)
}

func TestPrefsAccessors(t *testing.T) {
	p := mustArgs(t, ContentSignal, "ai-train=no", "+zz=yes", "+aa.b=no", "search=yes")
	if got := p.String(); got != "search=yes, ai-train=no, aa.b=no, zz=yes" {
		t.Errorf("String() = %q", got)
	}
	if p.Get("ai-train") != Disallow || p.Get("zz") != Allow || p.Get("ai-input") != Unknown || p.Get("nope") != Unknown || p.Get("+zz") != Unknown {
		t.Errorf("Get: wrong preferences in %q", p)
	}
	m := p.Map()
	q, err := ContentSignal.FromConfig(m)
	if err != nil || q.String() != p.String() || len(m) != 4 || m["+zz"] != "yes" {
		t.Errorf("Map() = %v reads back as %q, %v", m, q, err)
	}
	if !(Prefs{}).IsEmpty() || p.IsEmpty() || (Prefs{}).String() != "" {
		t.Error("IsEmpty")
	}
	if Unknown.String() != "unknown" || Allow.String() != "allow" || Disallow.String() != "disallow" {
		t.Error("Pref.String")
	}
	if ContentUsage.String() != "Content-Usage" || ContentSignal.String() != "Content-Signal" {
		t.Error("Vocab.String")
	}
	k := ContentUsage.Keys()
	k[0] = "changed"
	if ContentUsage.Keys()[0] != "train-ai" {
		t.Error("Keys() shares its slice")
	}
}

// TestSerialisedSets: the serialisations kept for the sets without extensions are, for every
// set of every vocabulary, those built for it directly, each at its own index.
func TestSerialisedSets(t *testing.T) {
	if numSets != int(math.Pow(3, maxKeys)) {
		t.Fatalf("numSets %d, want 3^%d", numSets, maxKeys)
	}
	for v := range Vocab(len(vocabs)) {
		seen := map[int]bool{}
		var k [maxKeys]Pref
		var walk func(i int)
		walk = func(i int) {
			if i < maxKeys {
				for _, p := range []Pref{Unknown, Allow, Disallow} {
					k[i] = p
					walk(i + 1)
				}
				return
			}
			n := setIndex(k)
			if seen[n] {
				t.Errorf("%v %v: index %d taken twice", v, k, n)
			}
			seen[n] = true
			want := ""
			if k != ([maxKeys]Pref{}) {
				want = marshalSet(v, k, nil)
			}
			if got := build(v, k, nil).String(); got != want {
				t.Errorf("%v %v: %q, want %q", v, k, got, want)
			}
		}
		walk(0)
		if len(seen) != numSets {
			t.Errorf("%v: %d sets, want %d", v, len(seen), numSets)
		}
	}
}
