package tagemit

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dunglas/httpsfv"
)

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
		{"bad token", []string{"bot.1;noindex, bot;nosnippet"}, map[string][]string{"bot": {"nosnippet"}}, 1},
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
		{"draft-00 unknown boolean rule kept", []string{"*=noindex, noai;"},
			map[string][]string{"*": {"noindex", "noai"}}, 0},
		{"draft-00 unknown valued rule dropped", []string{"*=noindex, noai=5;"},
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

// TestMemberSyntaxDecidedPerMember: each member is read in its own syntax, so a member that
// names a product token keeps its rules on that token and a valid member survives whatever
// its neighbours are.
func TestMemberSyntaxDecidedPerMember(t *testing.T) {
	cases := []struct {
		name    string
		lines   []string
		want    map[string][]string
		wantErr int
	}{
		{"trailing semicolon keeps the token", []string{"googlebot;noindex;"},
			map[string][]string{"googlebot": {"noindex"}}, 0},
		{"trailing semicolons in several members", []string{"googlebot;noindex, bingbot;nosnippet;"},
			map[string][]string{"googlebot": {"noindex"}, "bingbot": {"nosnippet"}}, 0},
		{"draft-00 member beside an SF member", []string{"*;noindex", "examplebot=nosnippet;"},
			map[string][]string{"*": {"noindex"}, "examplebot": {"nosnippet"}}, 0},
		{"draft-00 member after an SF member", []string{"googlebot;noindex, bingbot=nosnippet;"},
			map[string][]string{"googlebot": {"noindex"}, "bingbot": {"nosnippet"}}, 0},
		{"whitespace around semicolons", []string{"googlebot ;noindex ; nosnippet, bingbot\t; noarchive"},
			map[string][]string{"googlebot": {"noindex", "nosnippet"}, "bingbot": {"noarchive"}}, 0},
		{"whitespace around equals", []string{"googlebot;max-snippet = 50"},
			map[string][]string{"googlebot": {"max-snippet=50"}}, 0},
		{"product token with a version", []string{"Googlebot/2.1;noindex, bingbot/2.0;nosnippet;"},
			map[string][]string{"googlebot": {"noindex"}, "bingbot": {"nosnippet"}}, 0},
		{"historic token with a version", []string{"Googlebot/2.1: noindex"},
			map[string][]string{"googlebot": {"noindex"}}, 0},
		{"draft-00 token with a version", []string{"Bingbot/2.0=noindex;"},
			map[string][]string{"bingbot": {"noindex"}}, 0},
		{"unquoted RFC 3339 date", []string{"googlebot;unavailable_after=2027-01-01T00:00:00Z"},
			map[string][]string{"googlebot": {"unavailable_after=2027-01-01T00:00:00Z"}}, 0},
		{"unquoted ISO date", []string{"googlebot;unavailable_after=2027-01-01;noindex"},
			map[string][]string{"googlebot": {"noindex", "unavailable_after=2027-01-01T00:00:00Z"}}, 0},
		{"unquoted RFC 850 date with its comma", []string{"googlebot;unavailable_after=Friday, 25-Jun-10 15:00:00 PST"},
			map[string][]string{"googlebot": {"unavailable_after=2010-06-25T23:00:00Z"}}, 0},
		{"unquoted RFC 1123 date before another member", []string{"googlebot;noindex;unavailable_after=Fri, 25 Jun 2010 15:00:00 GMT, bingbot;nosnippet"},
			map[string][]string{"googlebot": {"noindex", "unavailable_after=2010-06-25T15:00:00Z"}, "bingbot": {"nosnippet"}}, 0},
		{"quoted RFC 850 date", []string{`googlebot;unavailable_after="Friday, 25-Jun-10 15:00:00 PST"`},
			map[string][]string{"googlebot": {"unavailable_after=2010-06-25T23:00:00Z"}}, 0},
		{"historic syntax under the new name", []string{"googlebot: noindex, nosnippet"},
			map[string][]string{"googlebot": {"noindex", "nosnippet"}}, 0},
		{"historic syntax without a space", []string{"googlebot:noindex, bingbot:nosnippet"},
			map[string][]string{"googlebot": {"noindex"}, "bingbot": {"nosnippet"}}, 0},
		{"historic valued rule", []string{"max-snippet:50, googlebot: max-image-preview: none"},
			map[string][]string{"*": {"max-snippet=50"}, "googlebot": {"max-image-preview=none"}}, 0},
		{"historic date with commas under the new name", []string{"googlebot: unavailable_after: Friday, 25-Jun-10 15:00:00 PST, noindex"},
			map[string][]string{"googlebot": {"noindex", "unavailable_after=2010-06-25T23:00:00Z"}}, 0},
		{"a bad value does not move the member's rules", []string{"googlebot;noindex;max-snippet=abc"},
			map[string][]string{"googlebot": {"noindex"}}, 1},
		{"a bad value does not move a draft-00 member's rules", []string{"googlebot=noindex, max-snippet: abc;"},
			map[string][]string{"googlebot": {"noindex"}}, 1},
		{"invalid neighbours", []string{"googlebot;noindex, {bad}, (x y), bingbot;nosnippet;, @@, *;noarchive"},
			map[string][]string{"googlebot": {"noindex"}, "bingbot": {"nosnippet"}, "*": {"noarchive"}}, 3},
		{"empty parameters are not tolerated", []string{"bot;;noindex, *;nosnippet"},
			map[string][]string{"*": {"nosnippet"}}, 1},
		{"noindex and indexifembedded in one field both stand", []string{"*;noindex, *;indexifembedded"},
			map[string][]string{"*": {"noindex", "indexifembedded"}}, 0},
		{"bare rules continue for every accessor", []string{"noindex, noai"},
			map[string][]string{"*": {"noindex", "noai"}}, 0},
		{"a bare unknown word names a product token", []string{"noai, examplebot;noindex"},
			map[string][]string{"examplebot": {"noindex"}}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, errs := ParseRobotsTag(c.lines)
			if got := p.Rules(); !reflect.DeepEqual(got, c.want) {
				t.Errorf("ParseRobotsTag(%q) = %v, want %v (errors %v)", c.lines, got, c.want, errs)
			}
			if len(errs) != c.wantErr {
				t.Errorf("ParseRobotsTag(%q) errors = %v, want %d", c.lines, errs, c.wantErr)
			}
		})
	}
}

// TestMembersNeverMoveOrVanish is the property behind TestMemberSyntaxDecidedPerMember over
// thousands of generated fields: members in every syntax a backend writes, with the slack
// crawlers tolerate, mixed with members that fit no syntax. Every rule a readable member
// states is read onto its own token, and no token (least of all "*") gets a rule that no
// member stated for it.
func TestMembersNeverMoveOrVanish(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	tokens := []string{"*", "googlebot", "bingbot", "examplebot", "other-bot", "a_b"}
	flags := []string{"noindex", "nosnippet", "noarchive", "nofollow", "noimageindex", "notranslate", "nocache"}
	garbage := []string{"{bad}", "(x y);noindex", "@@", "bot;;noindex", `"unterminated`, "[a]", "bot1=noindex;x"}
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	for n := range 5000 {
		want := map[string]map[string]bool{}
		var members []string
		for range 1 + rng.IntN(6) {
			if rng.IntN(5) == 0 {
				members = append(members, pick(garbage))
				continue
			}
			tok := pick(tokens)
			var rules []string
			for range 1 + rng.IntN(3) {
				rules = append(rules, pick(flags))
			}
			if want[tok] == nil {
				want[tok] = map[string]bool{}
			}
			for _, r := range rules {
				want[tok][r] = true
			}
			spelt := tok
			if tok != "*" && rng.IntN(4) == 0 {
				spelt = strings.ToUpper(tok[:1]) + tok[1:] + "/2.1"
			}
			var m string
			form := rng.IntN(6)
			if tok == "*" && form >= 4 && len(members) > 0 {
				// Bare rules after another member continue that member's list in the
				// historic syntax ("googlebot: noindex, nofollow"): "*" is written in SF.
				form = 0
			}
			switch form {
			case 0: // SF
				m = spelt + ";" + strings.Join(rules, ";")
			case 1: // SF with a trailing ";"
				m = spelt + ";" + strings.Join(rules, ";") + ";"
			case 2: // SF with whitespace before ";"
				m = spelt + " ;" + strings.Join(rules, " ; ")
			case 3: // draft-00
				m = spelt + "=" + strings.Join(rules, ", ") + ";"
			case 4: // historic
				if tok == "*" {
					m = strings.Join(rules, ", ")
				} else {
					m = spelt + ": " + strings.Join(rules, ", ")
				}
			case 5: // historic without a space, one rule
				if tok == "*" {
					m = rules[0]
				} else {
					m = spelt + ":" + rules[0]
				}
				want[tok] = map[string]bool{}
				for _, r := range rules[:1] {
					want[tok][r] = true
				}
				// Other members may have stated more for tok: recomputed below.
			}
			members = append(members, m)
		}
		// Recompute want from the members actually written (case 5 keeps one rule).
		want = map[string]map[string]bool{}
		for _, m := range members {
			if slices.Contains(garbage, m) {
				continue
			}
			tok, rules := splitGenerated(m)
			if want[tok] == nil {
				want[tok] = map[string]bool{}
			}
			for _, r := range rules {
				want[tok][r] = true
			}
		}
		field := strings.Join(members, ", ")
		p, errs := ParseRobotsTag([]string{field})
		got := p.Rules()
		for tok, rules := range want {
			for r := range rules {
				if !slices.Contains(got[tok], r) {
					t.Fatalf("case %d: %q: rule %s of %q lost: got %v (errors %v)", n, field, r, tok, got, errs)
				}
			}
		}
		for tok, rules := range got {
			for _, r := range rules {
				if !want[tok][r] {
					t.Fatalf("case %d: %q: %q got %s, which no member stated for it: got %v", n, field, tok, r, got)
				}
			}
		}
	}
}

// splitGenerated recovers the token and rules of a member written by the generator above.
func splitGenerated(m string) (string, []string) {
	var tok, rest string
	switch {
	case strings.Contains(m, "="):
		tok, rest, _ = strings.Cut(m, "=")
	case strings.Contains(m, ":"):
		tok, rest, _ = strings.Cut(m, ":")
	case strings.Contains(m, ";"):
		tok, rest, _ = strings.Cut(m, ";")
	default:
		tok, rest = "*", m
	}
	tok = strings.ToLower(strings.TrimSpace(tok))
	if i := strings.IndexByte(tok, '/'); i >= 0 {
		tok = tok[:i]
	}
	if tok == "" {
		tok = "*"
	}
	return tok, strings.FieldsFunc(rest, func(c rune) bool { return c == ';' || c == ',' || c == ' ' })
}

// TestXRobotsTagParsingLimit: the historic syntax gets the same 8 KiB limit, over its lines
// combined: complete rules before the limit are read, the one cut by it and everything
// after are not.
func TestXRobotsTagParsingLimit(t *testing.T) {
	var lines []string
	size := -2
	for i := 0; size < MaxFieldSize+500; i++ {
		l := "b" + tokenName(i) + ": noindex, nosnippet"
		lines = append(lines, l)
		size += len(l) + 2
	}
	p, errs := ParseXRobotsTag(lines)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "limit") {
		t.Fatalf("errors = %v, want one about the limit", errs)
	}
	// Each rule is read exactly when it ends within the limit.
	joined := strings.Join(lines, ", ")
	for _, l := range lines {
		tok, _, _ := strings.Cut(l, ":")
		at := strings.Index(joined, l)
		got := p.Rules()[tok]
		if want := at+len(tok+": noindex") <= MaxFieldSize; slices.Contains(got, "noindex") != want {
			t.Fatalf("%q at %d: read %v", l, at, got)
		}
		if want := at+len(l) <= MaxFieldSize; slices.Contains(got, "nosnippet") != want {
			t.Fatalf("%q at %d: read %v", l, at, got)
		}
	}
	if len(p.Rules()) < 300 {
		t.Fatalf("only %d tokens read before the limit", len(p.Rules()))
	}
}

// TestFitFieldSize: an over-long policy keeps "*" and the noindex members first, drops the
// others whole, and always fits.
func TestFitFieldSize(t *testing.T) {
	m := map[string][]string{"*": {"nosnippet"}}
	for i := range 600 {
		rule := "noarchive"
		if i%3 == 0 {
			rule = "noindex"
		}
		m["z"+tokenName(i)] = []string{rule}
	}
	var rs map[string]ruleSet = map[string]ruleSet{}
	for tok, rules := range m {
		var r ruleSet
		for _, x := range rules {
			if err := r.addRuleText(x); err != nil {
				t.Fatal(err)
			}
		}
		rs[tok] = r
	}
	p := build(rs)
	if len(p.RobotsTag()) <= MaxFieldSize {
		t.Fatalf("test policy is only %d bytes", len(p.RobotsTag()))
	}
	fitted, dropped := p.FitFieldSize()
	if n := len(fitted.RobotsTag()); n > MaxFieldSize || n < MaxFieldSize-64 {
		t.Fatalf("fitted to %d bytes", n)
	}
	got := fitted.Rules()
	if got["*"] == nil {
		t.Fatal("* dropped")
	}
	for tok, rules := range m {
		if rules[0] == "noindex" && got[tok] == nil {
			t.Fatalf("noindex member %s dropped while others were kept", tok)
		}
	}
	if len(dropped)+len(got) != len(m) {
		t.Fatalf("%d dropped + %d kept != %d", len(dropped), len(got), len(m))
	}
	for _, tok := range dropped {
		if m[tok][0] == "noindex" {
			t.Fatalf("dropped a noindex member %s", tok)
		}
	}
	if same, d := fitted.FitFieldSize(); !same.Equal(fitted) || d != nil {
		t.Fatal("a fitting policy changed")
	}
}

// sfMembers reads a Robots-Tag value with httpsfv, the independent witness: product token ->
// its parameters serialised (";name" or ";name=value"), in order.
func sfMembers(t *testing.T, v string) map[string][]string {
	t.Helper()
	l, err := httpsfv.UnmarshalList([]string{v})
	if err != nil {
		t.Fatalf("httpsfv refuses %.80q...: %v", v, err)
	}
	out := map[string][]string{}
	for _, m := range l {
		item := m.(httpsfv.Item)
		var tok string
		switch x := item.Value.(type) {
		case httpsfv.Token:
			tok = string(x)
		case string:
			tok = x
		}
		for _, name := range item.Params.Names() {
			val, _ := item.Params.Get(name)
			one := httpsfv.NewParams()
			one.Add(name, val)
			s, _ := httpsfv.Marshal(one)
			out[tok] = append(out[tok], s)
		}
	}
	return out
}

// TestFitUnion: when a declared policy and a received one do not fit together, every declared
// member is kept whole, then the received members, restrictions before limits before what only
// relaxes; the result fits (the X-Robots-Tag lines too, when asked) and httpsfv finds every
// declared member with all its rules.
func TestFitUnion(t *testing.T) {
	declaredRules := map[string][]string{"*": {"noarchive"}, "googlebot": {"nosnippet", "max-image-preview=standard"}, "bingbot": {"max-snippet=10"}, "slurp": {"indexifembedded", "noindex"}}
	for i := range 40 {
		declaredRules["d"+tokenName(i)] = []string{"noimageindex"}
	}
	declared := mustPolicy(t, declaredRules)
	// A backend flooding the field: many members with noindex, then members that only
	// relax, members with another restriction, an unknown one, and rules for a declared token.
	var parts []string
	for i := range 900 {
		parts = append(parts, "n"+tokenName(i)+";noindex")
	}
	for i := range 300 {
		parts = append(parts, "p"+tokenName(i)+";max-snippet=-1", "r"+tokenName(i)+";nofollow", "u"+tokenName(i)+";noai")
	}
	parts = append(parts, "googlebot;noindex;max-snippet=-1", "*;nofollow")
	received, errs := ParseRobotsTag([]string{strings.Join(parts[:len(parts)/2], ", "), strings.Join(parts[len(parts)/2:], ", ")})
	_ = errs // the lines pass the parsing limit: what is past it is not read, as a crawler would not
	received = received.Union(mustPolicy(t, map[string][]string{"googlebot": {"noindex"}, "*": {"nofollow"}}))
	for _, legacy := range []bool{false, true} {
		fitted, dropped := FitUnion(declared, received, legacy)
		rt := fitted.RobotsTag()
		full := len(rt)
		if legacy {
			full = legacySize(fitted.XRobotsTag()) // the longer of the two
		}
		if len(rt) > MaxFieldSize || full > MaxFieldSize || full < MaxFieldSize-200 {
			t.Fatalf("legacy=%v: %d bytes, the X-Robots-Tag lines %d", legacy, len(rt), legacySize(fitted.XRobotsTag()))
		}
		got := sfMembers(t, rt)
		want := sfMembers(t, declared.RobotsTag())
		for tok, params := range want {
			for _, p := range params {
				if tok == "slurp" && p == ";indexifembedded" {
					continue // relaxes noindex: union keeps it only if no side states noindex alone
				}
				if !slices.Contains(got[tok], p) {
					t.Errorf("legacy=%v: declared %s%s missing: %q", legacy, tok, p, got[tok])
				}
			}
		}
		// What received adds to declared tokens comes before its other members.
		if !slices.Contains(got["googlebot"], ";noindex") || !slices.Contains(got["*"], ";nofollow") {
			t.Errorf("legacy=%v: the backend's noindex for googlebot or nofollow for * missing: %q %q", legacy, got["googlebot"], got["*"])
		}
		if slices.Contains(got["googlebot"], ";max-snippet=-1") && len(dropped) > 0 {
			t.Errorf("legacy=%v: a relaxing rule was kept while restrictions were left out", legacy)
		}
		// Restrictions before what only relaxes: no p member kept while an n, r or u member went.
		var lost, relaxing []string
		for i := range 300 {
			if got["p"+tokenName(i)] != nil {
				relaxing = append(relaxing, "p"+tokenName(i))
			}
		}
		for _, d := range dropped {
			if d[0] == 'n' || d[0] == 'r' || d[0] == 'u' {
				lost = append(lost, d)
			}
		}
		if len(lost) > 0 && len(relaxing) > 0 {
			t.Errorf("legacy=%v: kept %v while dropping %v", legacy, relaxing[:1], lost[:1])
		}
		if len(dropped) == 0 {
			t.Errorf("legacy=%v: nothing dropped", legacy)
		}
		for _, d := range dropped {
			if tok, _, _ := strings.Cut(d, " "); want[tok] != nil && !strings.Contains(d, "(") {
				t.Errorf("legacy=%v: declared member %s dropped", legacy, d)
			}
		}
	}
	// Legacy lines are longer than the Structured Field: a policy whose field fits but whose
	// lines do not is cut only when the lines are sent.
	big := map[string][]string{}
	for i := 0; ; i++ {
		big["b"+tokenName(i)] = []string{"noindex", "nofollow", "nosnippet"}
		p := mustPolicyUnchecked(big)
		if len(p.RobotsTag()) > MaxFieldSize-60 {
			if legacySize(p.XRobotsTag()) <= MaxFieldSize {
				t.Fatal("legacy lines fit")
			}
			if f, d := FitUnion(p, Policy{}, false); !f.Equal(p) || d != nil {
				t.Error("cut although the field fits")
			}
			f, d := FitUnion(p, Policy{}, true)
			if legacySize(f.XRobotsTag()) > MaxFieldSize || len(d) == 0 {
				t.Errorf("legacy lines %d bytes, dropped %v", legacySize(f.XRobotsTag()), d)
			}
			break
		}
	}
}

// TestFitUnionCutsMembers: a member that does not fit whole loses what only relaxes first,
// then its limits, then its unknown rules, then all but noindex and nofollow.
func TestFitUnionCutsMembers(t *testing.T) {
	declared := map[string][]string{"*": {"noarchive"}}
	for i := 0; ; i++ {
		declared["f"+tokenName(i)] = []string{"nosnippet"}
		if len(mustPolicyUnchecked(declared).RobotsTag()) > MaxFieldSize-40 {
			break
		}
	}
	d := mustPolicyUnchecked(declared)
	room := MaxFieldSize - len(d.RobotsTag())
	for _, c := range []struct {
		received string
		want     []string // the * member's rules after the cut
	}{
		{"*;noindex;indexifembedded;max-snippet=-1", []string{";noindex", ";noarchive"}},
		{"*;noindex;max-snippet=0;max-video-preview=0;max-image-preview=none", []string{";noindex", ";noarchive"}},
		{"*;noindex;nofollow;noai;noimageai;nocache", []string{";noindex", ";noarchive", ";nocache", ";nofollow"}},
		{"*;noindex;nofollow;nosnippet;noimageindex;notranslate;nocache", []string{";noindex", ";noarchive", ";nofollow"}},
	} {
		r, errs := ParseRobotsTag([]string{c.received})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		fitted, dropped := FitUnion(d, r, false)
		got := sfMembers(t, fitted.RobotsTag())
		for _, w := range c.want {
			if !slices.Contains(got["*"], w) {
				t.Errorf("%s (room %d): * is %q, want %q", c.received, room, got["*"], c.want)
			}
		}
		if len(got["*"]) != len(c.want) || len(dropped) != 1 || !strings.HasPrefix(dropped[0], "* (") {
			t.Errorf("%s: * is %q, dropped %q", c.received, got["*"], dropped)
		}
		if len(fitted.RobotsTag()) > MaxFieldSize || len(got) != len(declared) {
			t.Errorf("%s: %d bytes, %d members", c.received, len(fitted.RobotsTag()), len(got))
		}
	}
}

func mustPolicyUnchecked(rules map[string][]string) Policy {
	m := map[string]ruleSet{}
	for tok, rs := range rules {
		var r ruleSet
		for _, x := range rs {
			if err := r.addRuleText(x); err != nil {
				panic(err)
			}
		}
		m[tok] = r
	}
	return build(m)
}

// TestFitUnionProperty: over random pairs of large policies, FitUnion fits both fields, is
// the whole union when that fits, and keeps every restriction of a declared policy that fits
// on its own (checkFitUnion).
func TestFitUnionProperty(t *testing.T) {
	rules := []string{"noindex", "nofollow", "nosnippet", "noarchive", "indexifembedded", "max-snippet=-1", "max-snippet=20", "max-image-preview=large", "max-image-preview=none", "unavailable_after=2030-01-01", "noimageindex"}
	r := rand.New(rand.NewPCG(7, 7))
	random := func(prefix string, n int) Policy {
		m := map[string][]string{}
		for i := range n {
			tok := prefix + tokenName(r.IntN(n*2))
			if r.IntN(50) == 0 {
				tok = "*"
			}
			for range 1 + r.IntN(3) {
				m[tok] = append(m[tok], rules[r.IntN(len(rules))])
			}
			if i%7 == 0 {
				m[tok] = append(m[tok], "noai")
			}
		}
		sets := map[string]ruleSet{}
		for tok, rs := range m {
			var set ruleSet
			for _, x := range rs {
				if k, v, ok := strings.Cut(x, "="); ok {
					_ = set.addNamed(k, v, true)
				} else {
					_ = set.addParsed(x, "", false)
				}
			}
			sets[tok] = set
		}
		return build(sets)
	}
	pairs := 60
	if raceEnabled {
		pairs = 4 // races only: the first pairs of the full-size run without -race (./test.sh)
	}
	for range pairs {
		declared := random("d", 20+r.IntN(300))
		received := random([]string{"d", "r"}[r.IntN(2)], 50+r.IntN(700))
		checkFitUnion(t, declared, received)
	}
}
