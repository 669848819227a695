package robotsgen

import (
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"

	"github.com/jimsmart/grobotstxt"
	"github.com/sitepolicy/caddy-robots/internal/syntax"
)

// Raw robots.txt generation for the import property: the pools of
// witness_test.go plus what files in the wild hold and Parse must read the
// way Google's parser does.
var (
	rawKeys = []string{"User-agent", "user-agent", "USER-AGENT", "useragent", "User agent", "User-agentX",
		"Allow", "allow", "Allowed", "Disallow", "disallow", "DISALLOW", "Disalow", "Disallowed",
		"Sitemap", "Crawl-delay", "Host", "Clean-param", "Noindex", ""}
	rawSeps   = []string{":", ": ", " : ", ":\t", ":  ", " ", "\t"}
	rawAgents = []string{"Googlebot/2.1", "FooBot/1.0 (+http://x)", "Foo2Bot", "FooBot*", "* ", "*\tx", "*x",
		"", "Foo.Bot", "fooBOT", "B\u00f6tbot", "\xffBot", "FooBot\xff", PurposeSentinel, "FooBot BarBot"}
	rawPurposes = []string{"EXAMPLE-PURPOSE-1", "Training", "*", "bad token", ""}
	// Pattern pieces: each class of the brief ("$" mid-pattern, escapes of
	// unreserved and reserved octets in both cases, stray "%", white space,
	// non-ASCII and invalid UTF-8).
	rawPieces = []string{"a", "b", "ab", "x.html", "index.html", "/", "/", "?", "?x=1", "=", "&", "+", ";", "!", "'", "(", "~", "-", "_", ".",
		"$", "$", "*", "*", "%24", "%2A", "%2a", "%62", "%7e", "%7E", "%2F", "%2f", "%3A", "%3a", "%25", "%E3%83%84", "%e3%83%84",
		"%", "%4", "%zz", "%G1", " ", "\t", "é", "ツ", "\xff", "\xc3", "|", "^", "\"", "\x01"}
	// Path pieces: only what a valid request target holds (RFC 3986), so
	// that Go's URL parsing in grobotstxt leaves the path unchanged.
	pathPieces = []string{"a", "b", "ab", "x.html", "index.html", "/", "?", "?x=1", "=", "&", "+", ";", "!", "'", "(", "~", "-", "_", ".", ":", "@", ",",
		"$", "*", "%24", "%2A", "%2a", "%62", "%7E", "%2F", "%2f", "%3A", "%25", "%E3%83%84", "%e3%83%84", "%C3%A9", "%20"}
	// Agents asked: RFC 9309 product tokens, including case variants and
	// tokens that files above cut or spell with other characters.
	importAgents = []string{"FooBot", "foobot", "BarBot", "Googlebot", "Foo", "Bot", "OtherBot"}
)

func pick(r *rand.Rand, s []string) string { return s[r.IntN(len(s))] }

func genRawPattern(r *rand.Rand) string {
	var b strings.Builder
	switch r.IntN(20) {
	case 0:
		b.WriteString("*")
	case 1:
		b.WriteString(pick(r, []string{"", "foo", "$", "%2F", "index.html"}))
	default:
		b.WriteString("/")
	}
	for n := r.IntN(5); n > 0; n-- {
		if r.IntN(3) == 0 {
			b.WriteString(pick(r, rawPieces))
		} else {
			b.WriteString(pick(r, segments))
		}
	}
	if r.IntN(5) == 0 {
		b.WriteString("$")
	}
	return b.String()
}

// genRobotsTxt returns a robots.txt as found in the wild: any spelling,
// spacing, line ending and encoding.
func genRobotsTxt(r *rand.Rand) string {
	var b strings.Builder
	if r.IntN(20) == 0 {
		b.WriteString(pick(r, []string{"\xEF\xBB\xBF", "\xEF\xBB", "\xEF"}))
	}
	eol := pick(r, []string{"\n", "\r\n", "\r"})
	for n := 3 + r.IntN(25); n > 0; n-- {
		if r.IntN(15) == 0 {
			eol = pick(r, []string{"\n", "\r\n", "\r"}) // mixed line ends
		}
		if r.IntN(6) == 0 {
			b.WriteString(pick(r, []string{"", " ", "\t", "# comment", "#", "no colon", "nocolon"}))
			b.WriteString(eol)
			continue
		}
		if r.IntN(8) == 0 {
			b.WriteString(pick(r, []string{" ", "\t", "  "}))
		}
		key := pick(r, rawKeys)
		var val string
		switch r.IntN(10) {
		case 0, 1, 2:
			key = pick(r, []string{"User-agent", "user-agent", "USER-AGENT", "useragent", "User agent"})
			if r.IntN(3) == 0 {
				val = pick(r, rawAgents)
			} else {
				val = pick(r, genAgents)
			}
		case 3:
			key = "User-Agent-Purpose"
			val = pick(r, rawPurposes)
		case 4, 5, 6, 7:
			key = pick(r, []string{"Allow", "allow", "Disallow", "disallow", "DISALLOW", "Disalow", "Allowed", "Disallowed"})
			if r.IntN(15) == 0 {
				val = "" // empty rule
			} else {
				val = genRawPattern(r)
			}
		default:
			val = pick(r, []string{"https://example.com/s.xml", "1", "x y", "/p", ""})
		}
		b.WriteString(key)
		b.WriteString(pick(r, rawSeps))
		b.WriteString(val)
		if r.IntN(6) == 0 {
			b.WriteString(pick(r, []string{" ", "\t", " # c", "#x", "\t# y"}))
		}
		b.WriteString(eol)
	}
	if r.IntN(500) == 0 {
		// A line past Google's limit.
		b.WriteString("Disallow: /" + strings.Repeat("l", maxLineLen) + eol)
	}
	return b.String()
}

// validPath makes s a path a crawler can request: "/" first, octets a URI
// may not hold percent-encoded (upper-case hex), a stray "%" as %25.
func validPath(s string) string {
	var b strings.Builder
	if !strings.HasPrefix(s, "/") {
		b.WriteByte('/')
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte(c)
		case isUnreserved(c) || strings.IndexByte("/?!$&'()*+,;=:@", c) >= 0:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		}
	}
	return b.String()
}

// genImportPath returns a valid path, often one built from a pattern of the
// file so that rules match.
func genImportPath(r *rand.Rand, f *File) string {
	var pats []string
	for _, g := range f.Groups {
		for _, rl := range g.Rules {
			pats = append(pats, rl.Path)
		}
	}
	if len(pats) > 0 && r.IntN(3) != 0 {
		p := strings.TrimSuffix(pick(r, pats), "$")
		for strings.Contains(p, "*") {
			p = strings.Replace(p, "*", pick(r, []string{"", "a", "/x", "%24"}), 1)
		}
		if r.IntN(2) == 0 {
			p += pick(r, pathPieces)
		}
		return validPath(p)
	}
	if r.IntN(40) == 0 {
		return pick(r, []string{"/robots.txt", "/robots%2Etxt", "/robots.txt?x=1"})
	}
	var b strings.Builder
	b.WriteByte('/')
	for n := r.IntN(5); n > 0; n-- {
		b.WriteString(pick(r, pathPieces))
	}
	return validPath(b.String())
}

// portSafe undoes two divergences of the grobotstxt port from Google's parser, so that the
// witness reads as Google does. The port reads a user-agent value up to the first byte that
// is not an HTTP token character, where Google's parser stops at the first that is not A-Z,
// a-z, "_" or "-" (syntax.GoogleAgentToken: "AI2Bot" is AI, "Foo.Bot" is Foo): portSafe
// writes the value Google reads. And a bug: when a pattern holds a
// non-ASCII octet or a lower-case hex escape, it upper-cases every escape
// with c&^0x20, which turns digits into control characters ("%24" becomes
// "%\x12\x14"), so the pattern stops matching. Google's C++ parser uses
// absl::ascii_toupper and has no such bug. portSafe writes every allow and
// disallow value in the form Google's parser stores it (non-ASCII encoded,
// escapes upper-case), which that parser leaves unchanged, so decisions are
// Google's and the port never reaches the bug.
func portSafe(body string) string {
	var b strings.Builder
	// Google's parser skips a byte order mark, or a prefix of one, before the first line.
	bom := 0
	for bom < 3 && bom < len(body) && body[bom] == "\xEF\xBB\xBF"[bom] {
		bom++
	}
	b.WriteString(body[:bom])
	body = body[bom:]
	for len(body) > 0 {
		end := strings.IndexAny(body, "\r\n")
		if end < 0 {
			end = len(body)
		} else {
			end++
		}
		line := body[:end]
		body = body[end:]
		s := strings.TrimRight(line, "\r\n")
		if len(s) <= maxLineLen {
			if i := strings.IndexByte(s, '#'); i >= 0 {
				s = s[:i]
			}
			if k, v, _, ok := splitLine([]byte(strings.TrimSpace(s))); ok {
				if kind, _ := keyKind(string(k)); kind == kUserAgent && !(len(v) > 0 && v[0] == '*' && (len(v) == 1 || v[1] == ' ' || v[1] == '\t')) {
					line = string(k) + ":" + syntax.GoogleAgentToken(string(v)) + "\n"
				} else if kind == kAllow || kind == kDisallow {
					if l := string(k) + ":" + googlePattern(string(v)); len(l) <= maxLineLen {
						line = l + "\n"
					}
				}
			}
		}
		b.WriteString(line)
	}
	return b.String()
}

// unrepresentable reports whether Parse skipped a line that Google reads and
// no File can express; only then may an import change Google's decision.
func unrepresentable(diags []Diagnostic) bool {
	for _, d := range diags {
		if strings.Contains(d.Reason, "no valid pattern says the same") || strings.Contains(d.Reason, "truncates lines") {
			return true
		}
	}
	return false
}

// Importing a file (Parse, then Render) never changes Google's decision for
// any agent and path, measured with grobotstxt on 10,000 generated files;
// and our Matcher on the imported file agrees with Google on the original
// wherever RFC 9309 and Google agree (the differences are counted).
func TestImportKeepsGoogleDecisions(t *testing.T) {
	t.Parallel() // a long property test: the others run beside it
	files := 10000
	if testing.Short() || raceEnabled {
		files = 1000
	}
	if raceEnabled {
		// Under the race detector only races are looked for: the first 250 cases of the
		// same seed, all of which the full-size run without -race (./test.sh) checks too.
		files = 250
	}
	r := rand.New(rand.NewPCG(9309, 2083))
	ex := exceptionCounts{}
	compared := map[string]int{}
	for c := 0; c < files; c++ {
		orig := genRobotsTxt(r)
		f, diags := Parse([]byte(orig))
		if err := f.Validate(); err != nil {
			t.Fatalf("file %d: parsed file invalid: %v\n%q", c, err, orig)
		}
		out, err := f.Render("")
		if err != nil {
			t.Fatalf("file %d: %v", c, err)
		}
		lossy := unrepresentable(diags)
		m := NewMatcher(f)
		for a := 0; a < 3; a++ {
			agent := pick(r, importAgents)
			for p := 0; p < 4; p++ {
				path := genImportPath(r, f)
				if u, err := url.Parse("http://example.com" + path); err != nil || u.String() != "http://example.com"+path {
					t.Fatalf("generated path %q is not a valid request target", path)
				}
				g := googleAllowed(orig, agent, path)
				if g2 := googleAllowed(string(out), agent, path); g2 != g {
					if !lossy {
						t.Fatalf("file %d: google(%s, %q): original %v, imported %v\ndiags %v\n--- original\n%q\n--- imported\n%s", c, agent, path, g, g2, diags, orig, out)
					}
					ex["import: a line Google reads has no representation (reported by Parse)"]++
				} else {
					compared["import"]++
				}
				// Differential: our Matcher against Google on the original.
				switch reason := googleDiffers(f, agent, path); {
				case lossy:
					ex["differential: "+"a line Google reads has no representation"]++
				case reason != "":
					ex["differential: "+reason]++
				default:
					d := m.Decide(agent, "", path)
					if d.Allowed != g {
						t.Fatalf("file %d: %s %q: ours %v (rule %v), google %v\n--- original\n%q\n--- parsed\n%s", c, agent, path, d.Allowed, d.Rule, g, orig, out)
					}
					compared["matcher"]++
				}
			}
		}
	}
	t.Logf("files: %d; compared: %v", files, compared)
	for k, v := range ex {
		t.Logf("exception %6d × %s", v, k)
	}
	if compared["import"] < 10*files || compared["matcher"] < 5*files {
		t.Fatalf("too few comparisons: %v", compared)
	}
}

// googleDiffers names the reason Google's parser may decide otherwise than
// RFC 9309 (and our Matcher) for agent and path on f, or "". It mirrors only
// the listed differences: group choice, specificity and tie-breaking are
// compared for real.
func googleDiffers(f *File, agent, path string) string {
	if normalise(path, false) == "/robots.txt" {
		return exRobotsTxt
	}
	if digitNameDiffers(f, agent) {
		return exDigitName
	}
	for _, g := range f.Groups {
		for _, p := range g.Purposes {
			if strings.EqualFold(p, agent) {
				return exPurposeAgent
			}
		}
	}
	groups, _ := oracleGroups(f, agent, "")
	np := []byte(normalise(path, false))
	escapes := false
	for _, gi := range groups {
		for _, rl := range f.Groups[gi].Rules {
			gp := googlePattern(rl.Path)
			pat := normalise(rl.Path, true)
			end := strings.HasSuffix(pat, "$")
			escapes = escapes || grobotstxt.Matches(path, gp) != matchPattern(strings.TrimSuffix(pat, "$"), end, np)
			if s := strings.LastIndexByte(gp, '/'); rl.Type == Allow && s >= 0 && strings.HasPrefix(gp[s:], "/index.htm") &&
				grobotstxt.Matches(path, gp[:s+1]+"$") {
				return exIndexHTM
			}
		}
	}
	if escapes {
		return exEscapes
	}
	return ""
}

// digitNameDiffers reports whether Google's parser reads a user-agent of f otherwise than
// RFC 9309 parsers that read names with digits whole, in a way that matters for agent: the
// agent itself has a digit (Google never matches its group by name), or a name of f with a
// digit is read by Google as agent ("Foo2Bot" as Foo).
func digitNameDiffers(f *File, agent string) bool {
	if syntax.GoogleAgentToken(agent) != agent {
		return true
	}
	for _, g := range f.Groups {
		for _, ua := range g.UserAgents {
			if gt := syntax.GoogleAgentToken(ua); gt != ua && strings.EqualFold(gt, agent) {
				return true
			}
		}
	}
	return false
}

// googlePattern is the pattern as Google's parser stores it: non-ASCII
// percent-encoded, escapes in upper-case hex.
func googlePattern(p string) string {
	b := []byte(encodePattern(p))
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' && isHex(b[i+1]) && isHex(b[i+2]) {
			b[i+1] &^= 0x20 * b2u(b[i+1] >= 'a')
			b[i+2] &^= 0x20 * b2u(b[i+2] >= 'a')
			i += 2
		}
	}
	return string(b)
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// Regression cases: each is a class the import property covers, written out
// with Google's decision (from grobotstxt) and ours where RFC 9309 agrees.
func TestImportRegressions(t *testing.T) {
	long := strings.Repeat("l", maxLineLen)
	cases := []struct {
		name, robots, agent, path string
		google                    bool   // grobotstxt on the original
		ours                      string // "" = same as google, else "allow"/"disallow"
		lossy                     string // Parse must report this; the import may then differ
	}{
		{"mid $ literal", "User-agent: *\nDisallow: /a$b\n", "Bot", "/a$b", false, "", ""},
		{"mid $ prefix", "User-agent: *\nDisallow: /a$b\n", "Bot", "/a$bc", false, "", ""},
		{"mid $ vs %24 path", "User-agent: *\nDisallow: /a$b\n", "Bot", "/a%24b", true, "disallow", ""},
		{"mid and final $", "User-agent: *\nDisallow: /a$b$\n", "Bot", "/a$bc", true, "", ""},
		{"mid $ after *", "User-agent: *\nDisallow: /*$x\n", "Bot", "/q$x", false, "", ""},
		{"%24 pattern vs $ path", "User-agent: *\nDisallow: /a%24\n", "Bot", "/a$", true, "disallow", ""},
		{"space matches no path", "User-agent: *\nDisallow: /a b\n", "Bot", "/a%20b", true, "", ""},
		{"tab matches no path", "User-agent: *\nDisallow: /a\tb\n", "Bot", "/a%09b", true, "", ""},
		{"stray % matches no path", "User-agent: *\nDisallow: /a%zz\n", "Bot", "/a%25zz", true, "", ""},
		{"stray % before $", "User-agent: *\nDisallow: /a%4$\n", "Bot", "/a%25", true, "", ""},
		{"truncated escape", "User-agent: *\nDisallow: /100%\n", "Bot", "/100%41", false, "", "no valid pattern says the same"},
		{"truncated escape before *", "User-agent: *\nDisallow: /a%4*\n", "Bot", "/a%41", false, "", "no valid pattern says the same"},
		{"no leading slash", "User-agent: *\nDisallow: foo\n", "Bot", "/foo", true, "", ""},
		{"lone $", "User-agent: *\nDisallow: $\n", "Bot", "/", true, "", ""},
		{"lowercase escape", "User-agent: *\nDisallow: /%2a\n", "Bot", "/%2A", false, "", ""},
		{"unreserved escape", "User-agent: *\nDisallow: /%62\n", "Bot", "/b", true, "disallow", ""},
		{"non-ASCII and escape (port bug)", "User-agent: *\nDisallow: /é%24\n", "Bot", "/%C3%A9%24", false, "", ""},
		{"invalid UTF-8 pattern", "User-agent: *\nDisallow: /\xff/latin\n", "Bot", "/%FF/latin", false, "", ""},
		{"empty disallow", "User-agent: *\nDisallow:\nAllow:\n", "Bot", "/x", true, "", ""},
		{"index.htm fallback kept", "User-agent: *\nAllow: /d/index.html x\nDisallow: /d/\n", "Bot", "/d/", true, "", ""},
		{"index.htm fallback only dir", "User-agent: *\nAllow: /d/index.html x\nDisallow: /d/\n", "Bot", "/d/x", false, "", ""},
		{"partial BOM", "\xEF\xBBUser-agent: *\nDisallow: /x\n", "Bot", "/x", false, "", ""},
		{"no colon", "User-agent *\nDisallow /x\n", "Bot", "/x", false, "", ""},
		{"prefix key", "User-agent: *\nDisallowed: /x\n", "Bot", "/x", false, "", ""},
		{"prefix user-agent key", "User-agents: Bot\nDisallow: /x\n", "Bot", "/x", false, "", ""},
		// Google reads Foo2Bot as Foo (and the import keeps Foo2Bot, which it reads the same);
		// parsers that read the name whole do not apply it to Foo.
		{"digit token not cut", "User-agent: Foo2Bot\nDisallow: /\n", "Foo", "/x", false, "allow", ""},
		{"star suffix cut as Google reads it", "User-agent: FooBot*\nDisallow: /\n", "FooBot", "/x", false, "", ""},
		{"dot cut as Google reads it", "User-agent: Foo.Bot\nDisallow: /\n", "Foo", "/x", false, "", ""},
		{"version cut", "User-agent: Googlebot/2.1\nDisallow: /x\n", "Googlebot", "/x", false, "", ""},
		{"star and space", "User-agent: * FooBot\nDisallow: /x\n", "Bot", "/x", false, "", ""},
		{"purpose star", "User-Agent-Purpose: *\nDisallow: /x\n", "Bot", "/x", false, "", ""},
		{"invalid UTF-8 agent", "User-agent: Bot\xff\nDisallow: /x\n", "Bot", "/x", false, "", ""},
		{"invalid UTF-8 agent ends group", "User-agent: *\nDisallow: /a\nUser-agent: \xffBot\nDisallow: /x\n", "Bot", "/x", true, "", ""},
		{"CR only", "User-agent: *\rDisallow: /x\r", "Bot", "/x", false, "", ""},
		{"long line cut", "User-agent: *\nDisallow: /" + long + "\n", "Bot", "/" + long[:maxLineLen-len("Disallow: /")], false, "", ""},
		{"long line without space", "User-agent: *\nDisallow:/" + long + "\n", "Bot", "/" + long[:maxLineLen-len("Disallow:/")], false, "", "truncates lines"},
		{"robots.txt", "User-agent: *\nDisallow: /\n", "Bot", "/robots.txt", false, "allow", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, diags := Parse([]byte(c.robots))
			out, err := f.Render("")
			if err != nil {
				t.Fatal(err)
			}
			if g := googleAllowed(c.robots, c.agent, c.path); g != c.google {
				t.Fatalf("google on the original: %v, want %v", g, c.google)
			}
			all := ""
			for _, d := range diags {
				all += d.Reason + "\n"
			}
			if c.lossy != "" {
				if !strings.Contains(all, c.lossy) || !unrepresentable(diags) {
					t.Fatalf("diagnostics %q lack %q", all, c.lossy)
				}
			} else if g := googleAllowed(string(out), c.agent, c.path); g != c.google {
				t.Fatalf("google on the import: %v, want %v\n%s\ndiags %s", g, c.google, out, all)
			}
			want := c.google
			if c.ours != "" {
				want = c.ours == "allow"
			}
			if c.lossy == "" {
				if d := NewMatcher(f).Decide(c.agent, "", c.path); d.Allowed != want {
					t.Fatalf("ours %v (rule %v), want %v\n%s", d.Allowed, d.Rule, want, out)
				}
			}
		})
	}
}

// RFC 9309 2.2.2: an empty pattern allows all, also in a File that never
// went through Validate (as a prefix, "" would match every path).
func TestEmptyPatternMatchesNothing(t *testing.T) {
	for _, rules := range [][]Rule{
		{{Disallow, ""}},
		{{Allow, ""}, {Disallow, ""}},
		{{Disallow, ""}, {Disallow, "/a"}},
	} {
		m := NewMatcher(&File{Groups: []Group{{UserAgents: []string{"*"}, Rules: rules}}})
		for _, p := range []string{"/", "/x", "/b?q", ""} {
			if d := m.Decide("bot", "", p); !d.Allowed || d.Rule != nil {
				t.Errorf("%v %q: %+v", rules, p, d)
			}
		}
		if len(rules) == 2 && rules[1].Path == "/a" {
			if d := m.Decide("bot", "", "/a"); d.Allowed || d.Rule == nil || d.Rule.Path != "/a" {
				t.Errorf("/a: %+v", d)
			}
		}
	}
	// An empty allow does not win over a disallow.
	m := NewMatcher(&File{Groups: []Group{{UserAgents: []string{"*"}, Rules: []Rule{{Allow, ""}, {Disallow, "/"}}}}})
	if d := m.Decide("bot", "", "/x"); d.Allowed {
		t.Errorf("empty allow won: %+v", d)
	}
}

// RFC 9309 2.2.2: /robots.txt is implicitly allowed, whatever its spelling;
// the exemption is for that URI only, not for it with a query.
func TestRobotsTxtExemptAfterNormalisation(t *testing.T) {
	m := NewMatcher(&File{Groups: []Group{{UserAgents: []string{"*"}, Rules: []Rule{{Disallow, "/"}}}}})
	for _, p := range []string{"/robots.txt", "/robots%2Etxt", "/robots%2etxt", "/%72obots.txt", "/%72%6F%62%6F%74%73%2E%74%78%74", "/robots.txt#top"} {
		if d := m.Decide("bot", "", p); !d.Allowed {
			t.Errorf("%q disallowed", p)
		}
	}
	for _, p := range []string{"/robots.txt?x=1", "/robots.txt?", "/robots.txt/", "/ROBOTS.TXT", "/robots%2Ftxt", "/robots.txt%20"} {
		if d := m.Decide("bot", "", p); d.Allowed {
			t.Errorf("%q allowed", p)
		}
	}
}
