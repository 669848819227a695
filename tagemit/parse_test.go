package tagemit

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func rulesOf(t *testing.T, p Policy) map[string][]string {
	t.Helper()
	return p.Rules()
}

// TestDraftExample is the example of the newest draft, section 3.1.1: a global nosnippet
// and a noindex for ExampleBot; ExampleBot's effective rules are the union.
func TestDraftExample(t *testing.T) {
	p, errs := ParseRobotsTag([]string{"*;nosnippet, ExampleBot;noindex"})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	want := map[string][]string{"*": {"nosnippet"}, "examplebot": {"noindex"}}
	if got := p.Rules(); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// The draft's deserialisation gives ExampleBot noindex and nosnippet: the union.
	if got := p.RulesFor("ExampleBot"); !reflect.DeepEqual(got, []string{"noindex", "nosnippet"}) {
		t.Fatalf("RulesFor(ExampleBot) = %v", got)
	}
	if got := p.RulesFor("otherbot"); !reflect.DeepEqual(got, []string{"nosnippet"}) {
		t.Fatalf("RulesFor(otherbot) = %v", got)
	}
}

func TestParseRobotsTagCases(t *testing.T) {
	cases := []struct {
		name    string
		lines   []string
		want    map[string][]string
		wantErr int
	}{
		{"repeated token is a union", []string{"examplebot;noindex, ExampleBot;nosnippet;max-snippet=9, examplebot;max-snippet=3"},
			map[string][]string{"examplebot": {"noindex", "nosnippet", "max-snippet=3"}}, 0},
		{"several field lines", []string{"*;noindex", "", "examplebot;nosnippet"},
			map[string][]string{"*": {"noindex"}, "examplebot": {"nosnippet"}}, 0},
		{"case-insensitive rule names", []string{"*;NoIndex;NOSNIPPET;Max-Image-Preview=LARGE"},
			map[string][]string{"*": {"noindex", "nosnippet", "max-image-preview=large"}}, 0},
		{"valued rules", []string{`*;max-snippet=50;max-image-preview=standard;max-video-preview=-1;unavailable_after="Fri, 01 Jan 2027 00:00:00 GMT"`},
			map[string][]string{"*": {"max-image-preview=standard", "max-snippet=50", "max-video-preview=-1", "unavailable_after=2027-01-01T00:00:00Z"}}, 0},
		{"sf-date", []string{`*;unavailable_after=@1798761600`},
			map[string][]string{"*": {"unavailable_after=2027-01-01T00:00:00Z"}}, 0},
		{"string token", []string{`"-bot";noindex, "ExampleBot";nosnippet`},
			map[string][]string{"-bot": {"noindex"}, "examplebot": {"nosnippet"}}, 0},
		{"none expands", []string{"*;none"}, map[string][]string{"*": {"noindex", "nofollow"}}, 0},
		{"legacy bare rules", []string{"noindex, nosnippet"}, map[string][]string{"*": {"noindex", "nosnippet"}}, 0},
		{"unknown boolean rule kept", []string{"*;noai;noindex;NoImageAI, bot;noai"}, map[string][]string{"*": {"noindex", "noai", "noimageai"}, "bot": {"noai"}}, 0},
		{"unknown valued rule dropped", []string{"*;noindex;noai=5;x-y=\"z\""}, map[string][]string{"*": {"noindex"}}, 2},
		{"all dropped", []string{"*;all, bot;noindex"}, map[string][]string{"bot": {"noindex"}}, 1},
		{"false flag", []string{"*;noindex=?0;nosnippet"}, map[string][]string{"*": {"nosnippet"}}, 1},
		{"wrong value type", []string{"*;max-snippet=1.5;noindex"}, map[string][]string{"*": {"noindex"}}, 1},
		{"inner list", []string{"(a b);noindex, bot;nosnippet"}, map[string][]string{"bot": {"nosnippet"}}, 1},
		{"bad token", []string{"bot1;noindex, bot;nosnippet"}, map[string][]string{"bot": {"nosnippet"}}, 1},
		{"robots token is global", []string{"robots;noindex"}, map[string][]string{"*": {"noindex"}}, 0},
		{"salvage around an invalid member", []string{"*;noindex, bot;;bad, examplebot;nosnippet, x;max-snippet=\"unterminated"},
			map[string][]string{"*": {"noindex"}, "examplebot": {"nosnippet"}}, 2},
		{"salvage keeps commas in strings", []string{`bot;unavailable_after="Fri, 01 Jan 2027 00:00:00 GMT";noindex, {bad}, *;nosnippet`},
			map[string][]string{"*": {"nosnippet"}, "bot": {"noindex", "unavailable_after=2027-01-01T00:00:00Z"}}, 1},
		{"draft-00 example", []string{"*=noindex, nosnippet; ExampleBot=;"},
			map[string][]string{"*": {"noindex", "nosnippet"}}, 0},
		{"draft-00 global omitted", []string{"noindex, nosnippet; ExampleBot=;"},
			map[string][]string{"*": {"noindex", "nosnippet"}}, 0},
		{"draft-00 per token", []string{"ExampleBot=noindex; otherbot=nosnippet, NOINDEX;"},
			map[string][]string{"examplebot": {"noindex"}, "otherbot": {"noindex", "nosnippet"}}, 0},
		{"draft-00 duplicates merged", []string{"bot=noindex; bot=nosnippet; bot=noindex;"},
			map[string][]string{"bot": {"noindex", "nosnippet"}}, 0},
		{"draft-00 unsupported rule ignored", []string{"*=noindex, noai;"},
			map[string][]string{"*": {"noindex"}}, 1},
		{"empty", []string{""}, map[string][]string{}, 0},
		{"garbage", []string{"\x00\xff;;,,\"\\"}, map[string][]string{}, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, errs := ParseRobotsTag(c.lines)
			if got := p.Rules(); !reflect.DeepEqual(got, c.want) {
				t.Errorf("ParseRobotsTag(%q) = %v, want %v (errors %v)", c.lines, got, c.want, errs)
			}
			if c.wantErr >= 0 && len(errs) != c.wantErr {
				t.Errorf("ParseRobotsTag(%q) errors = %v, want %d", c.lines, errs, c.wantErr)
			}
			if c.wantErr < 0 && len(errs) == 0 {
				t.Errorf("ParseRobotsTag(%q) reported nothing dropped", c.lines)
			}
		})
	}
}

// TestParsingLimit checks the draft's limit rule at exactly 8 KiB: a member that ends at
// the limit is honoured, one that straddles it is ignored, one that starts after it is
// ignored, and everything before is honoured.
func TestParsingLimit(t *testing.T) {
	// filler builds "a1;noindex, a2;noindex, ..." members of varying sizes up to n bytes,
	// ending at a member boundary followed by ", ".
	pad := func(n int) (string, int) {
		var b strings.Builder
		count := 0
		for b.Len() < n {
			left := n - b.Len()
			m := fmt.Sprintf("f%s;noindex", tokenName(count))
			if left < len(m)+2+len("g;noindex, ") {
				// last filler member takes the exact remaining space
				m = "g" + strings.Repeat("x", max(left-2-len(";noindex")-1, 0)) + ";noindex"
				b.WriteString(m)
				b.WriteString(", ")
				count++
				break
			}
			b.WriteString(m)
			b.WriteString(", ")
			count++
		}
		return b.String(), count
	}
	const member = "examplebot;nosnippet" // 20 bytes
	for _, c := range []struct {
		name     string
		startAt  int // offset of the examplebot member
		honoured bool
	}{
		{"ends exactly at the limit", MaxFieldSize - len(member), true},
		{"ends one byte before the limit", MaxFieldSize - len(member) - 1, true},
		{"straddles the limit by one byte", MaxFieldSize - len(member) + 1, false},
		{"straddles the limit", MaxFieldSize - 5, false},
		{"starts at the limit", MaxFieldSize, false},
		{"starts after the limit", MaxFieldSize + 40, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			prefix, n := pad(c.startAt)
			if len(prefix) != c.startAt {
				t.Fatalf("filler is %d bytes, want %d", len(prefix), c.startAt)
			}
			value := prefix + member + ", *;noarchive"
			p, errs := ParseRobotsTag([]string{value})
			rules := p.Rules()
			if _, ok := rules["examplebot"]; ok != c.honoured {
				t.Fatalf("examplebot honoured = %v, want %v (errors %v)", ok, c.honoured, errs)
			}
			if _, ok := rules["*"]; ok {
				t.Fatal("a member after the limit was honoured")
			}
			// Every complete filler member before the limit is honoured.
			complete := n
			if len(prefix) > MaxFieldSize {
				complete = strings.Count(prefix[:MaxFieldSize], ", ")
			}
			if got := len(rules) - btoi(c.honoured); got != complete {
				t.Fatalf("%d filler members honoured, want %d", got, complete)
			}
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), "limit") {
				t.Fatalf("errors = %v, want one about the limit", errs)
			}
		})
	}
	// A value of exactly 8 KiB is processed whole.
	prefix, _ := pad(MaxFieldSize - len(member))
	v := strings.TrimSuffix(prefix+member, ", ")
	if p, errs := ParseRobotsTag([]string{v}); len(errs) != 0 || p.Rules()["examplebot"] == nil {
		t.Fatalf("8192-byte value: %v", errs)
	}
	// The limit also applies to the draft-00 syntax, whose values end with ';'.
	var b strings.Builder
	for i := 0; b.Len() < MaxFieldSize+100; i++ {
		fmt.Fprintf(&b, "b%s=noindex; ", tokenName(i))
	}
	p, errs := ParseRobotsTag([]string{b.String()})
	if len(errs) != 1 || len(p.Rules()) == 0 {
		t.Fatalf("draft-00 over the limit: %d tokens, %v", len(p.Rules()), errs)
	}
	for tok := range p.Rules() {
		if strings.Index(b.String(), "b"+tok[1:]+"=noindex;") > MaxFieldSize {
			t.Fatalf("token %s past the limit honoured", tok)
		}
	}
}

func tokenName(i int) string {
	s := ""
	for {
		s += string(rune('a' + i%26))
		i /= 26
		if i == 0 {
			return s
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestParseXRobotsTag(t *testing.T) {
	cases := []struct {
		lines   []string
		want    map[string][]string
		wantErr int
	}{
		{[]string{"noindex, nosnippet"}, map[string][]string{"*": {"noindex", "nosnippet"}}, 0},
		{[]string{"ExampleBot: noindex, max-snippet:20", "NOFOLLOW"},
			map[string][]string{"*": {"nofollow"}, "examplebot": {"noindex", "max-snippet=20"}}, 0},
		{[]string{"unavailable_after: Friday, 25-Jun-10 15:00:00 EST, noindex"},
			map[string][]string{"*": {"noindex", "unavailable_after=2010-06-25T20:00:00Z"}}, 0},
		{[]string{"googlebot: unavailable_after: 25 Jun 2010 15:00:00 PST"},
			map[string][]string{"googlebot": {"unavailable_after=2010-06-25T23:00:00Z"}}, 0},
		{[]string{"unavailable_after: Fri, 25 Jun 2010 15:00:00 GMT"},
			map[string][]string{"*": {"unavailable_after=2010-06-25T15:00:00Z"}}, 0},
		{[]string{"unavailable_after: 2027-01-01T00:00:00Z, nosnippet"},
			map[string][]string{"*": {"nosnippet", "unavailable_after=2027-01-01T00:00:00Z"}}, 0},
		{[]string{"googlebot: nofollow, otherbot: noindex, nofollow"},
			map[string][]string{"googlebot": {"nofollow"}, "otherbot": {"noindex", "nofollow"}}, 0},
		{[]string{"none"}, map[string][]string{"*": {"noindex", "nofollow"}}, 0},
		{[]string{"all, noindex, noai, max-snippet: lots, bad!rule, other: 5"}, map[string][]string{"*": {"noindex", "noai"}}, 4},
		{[]string{"bad bot: noindex"}, map[string][]string{}, 1},
		{[]string{"max-image-preview : LARGE"}, map[string][]string{"*": {"max-image-preview=large"}}, 0},
		{[]string{"*;nosnippet, ExampleBot;noindex", "otherbot: noarchive"},
			map[string][]string{"*": {"nosnippet"}, "examplebot": {"noindex"}, "otherbot": {"noarchive"}}, 0},
	}
	for _, c := range cases {
		p, errs := ParseXRobotsTag(c.lines)
		if got := p.Rules(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseXRobotsTag(%q) = %v, want %v (%v)", c.lines, got, c.want, errs)
		}
		if len(errs) != c.wantErr {
			t.Errorf("ParseXRobotsTag(%q) errors = %v, want %d", c.lines, errs, c.wantErr)
		}
	}
}

// TestExtensionRules: unknown boolean rules read from a backend survive union, emission
// in every form and re-parsing, and a page stating them is not repeated.
func TestExtensionRules(t *testing.T) {
	a, _ := ParseRobotsTag([]string{"*;noai, bot;noimageai"})
	b, _ := ParseXRobotsTag([]string{"noimageai, noai", "bot: noindex"})
	u := a.Union(b).Union(mustPolicy(t, map[string][]string{"*": {"nosnippet"}}))
	want := map[string][]string{"*": {"nosnippet", "noai", "noimageai"}, "bot": {"noindex", "noimageai"}}
	if got := u.Rules(); !reflect.DeepEqual(got, want) {
		t.Fatalf("union = %v, want %v", got, want)
	}
	if got := u.RobotsTag(); got != "*;nosnippet;noai;noimageai, bot;noindex;noimageai" {
		t.Fatalf("RobotsTag = %s", got)
	}
	for _, reparsed := range []Policy{first(ParseRobotsTag([]string{u.RobotsTag()})), first(ParseXRobotsTag(u.XRobotsTag()))} {
		if !reparsed.Equal(u) {
			t.Fatalf("re-parsed %s, want %s", reparsed, u)
		}
	}
	if _, err := NewPolicy(u.Rules()); err == nil {
		t.Fatal("NewPolicy accepted an unknown rule")
	}
	page := []byte(`<head><meta name="robots" content="noai, nosnippet"></head>`)
	in, w := runInjector(t, page, u, InjectorOptions{}, func() int { return 4 }, false)
	if !bytes.Contains(w.out.Bytes(), []byte(`<meta name="robots" content="noimageai">`)) {
		t.Fatalf("output %s", w.out.Bytes())
	}
	checkDOM(t, page, w.out.Bytes(), in, u)
}

func first(p Policy, _ []error) Policy { return p }
