package tagemit

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/dunglas/httpsfv"
)

// propertyRuns is the size of the property tests without the race detector.
const propertyRuns = 10000

// raceRuns is their size under it, where only races are looked for: the first cases of the
// same seeds, all of which the full-size run without -race (./test.sh) checks too.
const raceRuns = propertyRuns / 40

func mustPolicy(t testing.TB, m map[string][]string) Policy {
	t.Helper()
	p, err := NewPolicy(m)
	if err != nil {
		t.Fatalf("NewPolicy(%v): %v", m, err)
	}
	return p
}

func TestNewPolicyCanonicalForm(t *testing.T) {
	p := mustPolicy(t, map[string][]string{
		"ExampleBot": {"MAX-SNIPPET=50", "noindex", "max-snippet: 20", "NoIndex"},
		"*":          {"nosnippet", "None"},
		"_private":   {"noarchive"},
	})
	want := map[string][]string{
		"*":          {"noindex", "nosnippet", "nofollow"},
		"_private":   {"noarchive"},
		"examplebot": {"noindex", "max-snippet=20"},
	}
	if got := p.Rules(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Rules() = %v, want %v", got, want)
	}
	if got, want := p.RobotsTag(), `*;noindex;nosnippet;nofollow, "_private";noarchive, examplebot;noindex;max-snippet=20`; got != want {
		t.Fatalf("RobotsTag() = %s, want %s", got, want)
	}
	if got, want := p.XRobotsTag(), []string{"noindex, nosnippet, nofollow", "_private: noarchive", "examplebot: noindex, max-snippet: 20"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("XRobotsTag() = %q, want %q", got, want)
	}
}

func TestNewPolicyErrors(t *testing.T) {
	cases := []struct {
		rules map[string][]string
		want  []string // substrings of the error
	}{
		{map[string][]string{"*": {"noindx"}}, []string{`["*"][0] "noindx": unknown rule`, `did you mean "noindex"`}},
		{map[string][]string{"GPTBot": {"noindex", "nosnipet"}}, []string{`["GPTBot"][1] "nosnipet"`, `did you mean "nosnippet"`}},
		{map[string][]string{"*": {"max-snipet=5"}}, []string{`"max-snipet"`, `"max-snippet"`}},
		{map[string][]string{"*": {"nofolow"}}, []string{`"nofollow"`}},
		{map[string][]string{"*": {"all"}}, []string{`"all"`, "restricts nothing"}},
		{map[string][]string{"*": {"max-snippet=-2"}}, []string{"max-snippet", "-2"}},
		{map[string][]string{"*": {"max-snippet=abc"}}, []string{"max-snippet"}},
		{map[string][]string{"*": {"max-video-preview=1000000000000000"}}, []string{"max-video-preview", "999999999999999"}},
		{map[string][]string{"*": {"max-snippet"}}, []string{"needs a value"}},
		{map[string][]string{"*": {"noindex=1"}}, []string{"takes no value"}},
		{map[string][]string{"*": {"max-image-preview=huge"}}, []string{"none, standard, large"}},
		{map[string][]string{"*": {"unavailable_after=tomorrow"}}, []string{"unavailable_after", "tomorrow"}},
		{map[string][]string{"*": {"unavailable_after=25 Jun 2010 15:00:00 XYZ"}}, []string{"time zone"}},
		{map[string][]string{"bad bot": {"noindex"}}, []string{"bad bot", "RFC 9309"}},
		{map[string][]string{"": {"noindex"}}, []string{`[""]: a product token`}},
		{map[string][]string{"bot.1": {"noindex"}}, []string{"bot.1"}},
		{map[string][]string{"Googlebot/2.1": {"noindex"}}, []string{`["Googlebot/2.1"] "Googlebot/2.1": a product token`, `(did you mean "Googlebot"?)`}},
		{map[string][]string{"GPTBot 1.2": {"noindex"}}, []string{`(did you mean "GPTBot"?)`}},
		{map[string][]string{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)": {"noindex"}}, []string{`(did you mean "Googlebot"?)`}},
		{map[string][]string{"ai-training": {"noindex"}}, []string{"category", "preset:ai-training"}},
		{map[string][]string{"preset:ai-trainnig": {"noindex"}}, []string{`["preset:ai-trainnig"] "preset:ai-trainnig": preset: names a category of the crawler catalogue: ai-all, ai-assistants, ai-search, ai-training (did you mean "preset:ai-training"?)`}},
		{map[string][]string{"preset:ai-all": {"noindex", "nosnippet", "noarchive", "noimageindex", "notranslate", "max-snippet=0", "max-image-preview=none", "max-video-preview=0"}}, []string{"over the 8192-byte limit", "the presets add"}},
		{map[string][]string{"Robots": {"noindex"}}, []string{"reserved"}},
		{map[string][]string{"noindex": {"nosnippet"}}, []string{"rule name"}},
		{map[string][]string{"*": {""}}, []string{"empty rule"}},
	}
	for _, c := range cases {
		_, err := NewPolicy(c.rules)
		if err == nil {
			t.Errorf("NewPolicy(%v) succeeded, want an error", c.rules)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("NewPolicy(%v) = %v, want it to mention %s", c.rules, err, w)
			}
		}
	}
}

func TestNewPolicyFieldSizeLimit(t *testing.T) {
	// Grow a policy token by token until its Robots-Tag would pass 8 KiB.
	m := map[string][]string{}
	var last Policy
	for i := 0; ; i++ {
		tok := "bot" + strings.Repeat("x", 20) + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))
		m[tok] = []string{"noindex", "nosnippet", "max-snippet=12345"}
		p, err := NewPolicy(m)
		if err != nil {
			if !strings.Contains(err.Error(), "8192") {
				t.Fatalf("error %v does not name the limit", err)
			}
			if len(last.RobotsTag()) > MaxFieldSize {
				t.Fatalf("accepted policy is %d bytes", len(last.RobotsTag()))
			}
			return
		}
		if len(p.RobotsTag()) > MaxFieldSize {
			t.Fatalf("NewPolicy accepted a %d-byte Robots-Tag", len(p.RobotsTag()))
		}
		last = p
	}
}

func TestDates(t *testing.T) {
	cases := map[string]string{
		"2027-01-01T00:00:00Z":            "2027-01-01T00:00:00Z",
		"2027-01-01T02:00:00+02:00":       "2027-01-01T00:00:00Z",
		"2027-01-01T00:00:00.999Z":        "2027-01-01T00:00:00Z",
		"2027-01-01":                      "2027-01-01T00:00:00Z",
		"25 Jun 2010 15:00:00 PST":        "2010-06-25T23:00:00Z",
		"Friday, 25-Jun-10 15:00:00 EST":  "2010-06-25T20:00:00Z",
		"Fri, 25 Jun 2010 15:00:00 GMT":   "2010-06-25T15:00:00Z",
		"Fri, 25 Jun 2010 15:00:00 +0100": "2010-06-25T14:00:00Z",
		"25 Jun 10 15:00 PDT":             "2010-06-25T22:00:00Z",
	}
	for in, want := range cases {
		got, err := parseDate(in)
		if err != nil {
			t.Errorf("parseDate(%q): %v", in, err)
			continue
		}
		if formatDate(got) != want {
			t.Errorf("parseDate(%q) = %s, want %s", in, formatDate(got), want)
		}
	}
}

func TestZeroValueIsEmpty(t *testing.T) {
	var p Policy
	if !p.IsEmpty() || p.RobotsTag() != "" || p.XRobotsTag() != nil || p.MetaElements() != nil || len(p.Rules()) != 0 {
		t.Fatal("zero Policy is not the empty policy")
	}
	q := mustPolicy(t, map[string][]string{"examplebot": {}})
	if !q.IsEmpty() || !q.Equal(p) {
		t.Fatal("a token without rules should give the empty policy")
	}
}

// TestRulesRoundTrip: Rules is the inverse of NewPolicy, so a policy can be shown as config.
func TestRulesRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 2000; i++ {
		p := randomPolicy(r)
		q, err := NewPolicy(p.Rules())
		if err != nil {
			t.Fatalf("NewPolicy(%v): %v", p.Rules(), err)
		}
		if !q.Equal(p) {
			t.Fatalf("Rules round trip of %s gave %s", p, q)
		}
	}
}

// TestRoundTripProperty: every header we emit is a valid SF List that httpsfv parses,
// and parsing each serialisation back gives the same policy. Seeded, 10,000 policies.
func TestRoundTripProperty(t *testing.T) {
	r := rand.New(rand.NewSource(20261122))
	runs := propertyRuns
	if raceEnabled {
		runs = raceRuns
	}
	for i := 0; i < runs; i++ {
		p := randomPolicy(r)
		rt := p.RobotsTag()
		list, err := httpsfv.UnmarshalList([]string{rt})
		if err != nil && rt != "" {
			t.Fatalf("httpsfv rejects our header %q: %v", rt, err)
		}
		if again, _ := httpsfv.Marshal(list); again != rt {
			t.Fatalf("httpsfv re-serialises %q as %q: not canonical", rt, again)
		}
		q, errs := ParseRobotsTag([]string{rt})
		if len(errs) != 0 || !q.Equal(p) {
			t.Fatalf("ParseRobotsTag(%q) = %s, %v", rt, q, errs)
		}
		// Split across field lines at member boundaries: same policy.
		var lines []string
		for _, m := range list {
			s, _ := httpsfv.Marshal(httpsfv.List{m})
			lines = append(lines, s)
		}
		if q, errs := ParseRobotsTag(lines); len(errs) != 0 || !q.Equal(p) {
			t.Fatalf("ParseRobotsTag(%q) = %s, %v", lines, q, errs)
		}
		x, errs := ParseXRobotsTag(p.XRobotsTag())
		if len(errs) != 0 || !x.Equal(p) {
			t.Fatalf("ParseXRobotsTag(%q) = %s, %v; want %s", p.XRobotsTag(), x, errs, p)
		}
		back, err := NewPolicy(p.Rules())
		if err != nil || !back.Equal(p) {
			t.Fatalf("NewPolicy(Rules()) = %s, %v; want %s", back, err, p)
		}
		if !p.Equal(p.Union(p)) {
			t.Fatalf("Union not idempotent for %s", p)
		}
	}
}

// TestUnionProperty checks the union's algebra and that it never loses a restriction.
func TestUnionProperty(t *testing.T) {
	r := rand.New(rand.NewSource(99))
	runs := propertyRuns
	if raceEnabled {
		runs = raceRuns
	}
	for i := 0; i < runs; i++ {
		a, b, c := randomPolicy(r), randomPolicy(r), randomPolicy(r)
		ab := a.Union(b)
		if !ab.Equal(b.Union(a)) {
			t.Fatalf("Union not commutative: %s | %s", a, b)
		}
		if !ab.Union(c).Equal(a.Union(b.Union(c))) {
			t.Fatalf("Union not associative: %s | %s | %s", a, b, c)
		}
		if !a.Union(Policy{}).Equal(a) {
			t.Fatal("empty policy is not the identity")
		}
		// Restrictions of both sides are implied by the union.
		for _, side := range []Policy{a, b} {
			um := ab.toMap()
			for tok, rs := range side.toMap() {
				rest := rs.minus(um[tok])
				rest.flags &^= flagIndexifembedded // relaxation, not a restriction
				if !rest.isEmpty() {
					t.Fatalf("union %s loses %v of token %q from %s", ab, rest.strings("="), tok, side)
				}
			}
		}
	}
}

func TestUnionValues(t *testing.T) {
	cases := []struct{ a, b, want []string }{
		{[]string{"max-snippet=-1"}, []string{"max-snippet=50"}, []string{"max-snippet=50"}},
		{[]string{"max-snippet=0"}, []string{"max-snippet=50"}, []string{"max-snippet=0"}},
		{[]string{"max-video-preview=-1"}, []string{"max-video-preview=-1"}, []string{"max-video-preview=-1"}},
		{[]string{"max-video-preview=10"}, []string{"max-video-preview=-1"}, []string{"max-video-preview=10"}},
		{[]string{"max-image-preview=large"}, []string{"max-image-preview=standard"}, []string{"max-image-preview=standard"}},
		{[]string{"max-image-preview=none"}, []string{"max-image-preview=standard"}, []string{"max-image-preview=none"}},
		{[]string{"unavailable_after=2030-01-01"}, []string{"unavailable_after=Fri, 01 Jan 2027 00:00:00 GMT"}, []string{"unavailable_after=2027-01-01T00:00:00Z"}},
		{[]string{"none"}, []string{"noindex"}, []string{"noindex", "nofollow"}},
		{[]string{"noindex", "indexifembedded"}, []string{"noindex"}, []string{"noindex"}},
		{[]string{"noindex", "indexifembedded"}, []string{"nosnippet"}, []string{"noindex", "nosnippet", "indexifembedded"}},
		{[]string{"noindex", "indexifembedded"}, []string{"indexifembedded", "noindex"}, []string{"noindex", "indexifembedded"}},
	}
	for _, c := range cases {
		a := mustPolicy(t, map[string][]string{"bot": c.a})
		b := mustPolicy(t, map[string][]string{"BOT": c.b})
		got := a.Union(b).Rules()["bot"]
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v ∪ %v = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestMetaElementsEscaping(t *testing.T) {
	p := mustPolicy(t, map[string][]string{"*": {"noindex", "unavailable_after=2027-01-01"}, "Example-Bot": {"max-snippet=5"}})
	want := `<meta name="robots" content="noindex, unavailable_after:2027-01-01T00:00:00Z"><meta name="example-bot" content="max-snippet:5">`
	if got := string(p.MetaElements()); got != want {
		t.Fatalf("MetaElements() = %s, want %s", got, want)
	}
	// Nothing a Policy holds can break out of the attribute: every byte between the
	// quotes is from the safe alphabet of tokens, rule names and canonical values.
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 1000; i++ {
		meta := string(randomPolicy(r).MetaElements())
		if strings.ContainsAny(strings.ReplaceAll(strings.ReplaceAll(meta, `<meta name="`, ""), `" content="`, ""), "<&'") {
			t.Fatalf("unexpected markup characters in %s", meta)
		}
	}
}

// TestPolicyConcurrentUse: a Policy is an immutable value shared by concurrent requests;
// the race detector checks the lazily computed forms.
func TestPolicyConcurrentUse(t *testing.T) {
	p := mustPolicy(t, map[string][]string{"*": {"noindex"}, "examplebot": {"max-snippet=3"}})
	want := `<meta name="robots" content="noindex"><meta name="examplebot" content="max-snippet:3">`
	done := make(chan string)
	for i := 0; i < 8; i++ {
		go func() { done <- string(p.MetaElements()) + strings.Join(p.XRobotsTag(), "|") }()
	}
	for i := 0; i < 8; i++ {
		if got := <-done; got != want+"noindex|examplebot: max-snippet: 3" {
			t.Fatalf("got %s", got)
		}
	}
}
