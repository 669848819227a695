package usage

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dunglas/httpsfv"
)

type parseCase struct {
	in      string
	want    map[string]Pref // keys not listed are Unknown
	wantErr bool
	str     string // canonical serialisation
}

func checkParse(t *testing.T, v Vocab, cases []parseCase) {
	t.Helper()
	for _, c := range cases {
		p, err := v.Parse(c.in)
		if (err != nil) != c.wantErr {
			t.Errorf("%v.Parse(%q) error = %v, want error %v", v, c.in, err, c.wantErr)
		}
		for _, key := range v.def().keys {
			if got := p.Get(key); got != c.want[key] {
				t.Errorf("%v.Parse(%q).Get(%q) = %v, want %v", v, c.in, key, got, c.want[key])
			}
		}
		if p.String() != c.str {
			t.Errorf("%v.Parse(%q).String() = %q, want %q", v, c.in, p.String(), c.str)
		}
		if p.Vocab() != v {
			t.Errorf("%v.Parse(%q).Vocab() = %v", v, c.in, p.Vocab())
		}
	}
}

// TestParseVocabExamples: the examples of draft-ietf-aipref-vocab ("Exemplary
// Serialization Format", "Multiple Preferences", "Preference Parameters") and the cases
// its processing algorithm names.
func TestParseVocabExamples(t *testing.T) {
	A, D := Allow, Disallow
	checkParse(t, ContentUsage, []parseCase{
		// The format's example.
		{in: "train-ai=y, search=n", want: map[string]Pref{"train-ai": A, "search": D}, str: "train-ai=y, search=n"},
		// Multiple Preferences: last value wins, and a Boolean and a String are not Tokens.
		{in: `train-ai=y, train-ai, search=n, search="n"`, str: ""},
		// Preference Parameters: only the selected value's parameters apply; none matter.
		{in: "train-ai;allow=n, train-ai=y", want: map[string]Pref{"train-ai": A}, str: "train-ai=y"},
		{in: `train-ai;has;parameters="?"`, str: ""},
		// The draft's text has a trailing ";", which RFC 9651 does not allow: the
		// Dictionary fails, and the preference is unknown either way.
		{in: `train-ai;has;parameters="?";`, wantErr: true},
		// Upper-case keys make the whole Dictionary fail.
		{in: "Train-AI=n", wantErr: true},
		{in: "train-ai=n, Search=y", wantErr: true},
		{in: "TRAIN-AI=y", wantErr: true},
		// Values that are not the Tokens y or n.
		{in: "train-ai", str: ""},
		{in: `train-ai="n"`, str: ""},
		{in: "train-ai=1", str: ""},
		{in: "train-ai=0.5", str: ""},
		{in: "train-ai=?0", str: ""},
		{in: "train-ai=:bg==:", str: ""},
		{in: "train-ai=(n)", str: ""},
		{in: "train-ai=N, search=Y", str: ""},
		{in: "train-ai=yes, search=no", str: ""},
		{in: `train-ai=%"n"`, str: ""},
		// Parameters on a Token value are ignored.
		{in: "train-ai=n;q=1;x, search=y;why=\"because\"", want: map[string]Pref{"train-ai": D, "search": A}, str: "train-ai=n, search=y"},
		// Duplicates: the last one wins, whichever it is.
		{in: "train-ai=n, train-ai=y", want: map[string]Pref{"train-ai": A}, str: "train-ai=y"},
		{in: "train-ai=y, train-ai=n", want: map[string]Pref{"train-ai": D}, str: "train-ai=n"},
		{in: "train-ai=y, train-ai=\"n\"", str: ""},
		// Unknown keys are ignored; canonical order is the vocabulary's.
		{in: "foo=n, search=y, ai-train=n, train-ai=n, *x=y", want: map[string]Pref{"train-ai": D, "search": A}, str: "train-ai=n, search=y"},
		// Whitespace RFC 9651 allows.
		{in: "  search=y,train-ai=n", want: map[string]Pref{"train-ai": D, "search": A}, str: "train-ai=n, search=y"},
		{in: "search=y ,\ttrain-ai=n  ", want: map[string]Pref{"train-ai": D, "search": A}, str: "train-ai=n, search=y"},
		// Empty is the empty set; malformed Dictionaries fail as a whole.
		{in: "", str: ""},
		{in: "train-ai=n,", wantErr: true},
		{in: "train-ai=n search=y", wantErr: true},
		// "; " starts a parameter (RFC 9651 allows SP after ";"): search=y is a
		// parameter of train-ai, not a preference.
		{in: "train-ai=n; search=y", want: map[string]Pref{"train-ai": D}, str: "train-ai=n"},
		{in: "\ttrain-ai=n", wantErr: true},
		{in: "train-ai=n, search=y, ", wantErr: true},
		{in: "train_ai=n, tr@in=y", wantErr: true},
	})
}

// TestParseContentSignal: Cloudflare's lines read as Dictionaries with Token values
// yes/no, as strictly as Content-Usage.
func TestParseContentSignal(t *testing.T) {
	A, D := Allow, Disallow
	checkParse(t, ContentSignal, []parseCase{
		{in: "search=yes, ai-input=yes, ai-train=no", want: map[string]Pref{"search": A, "ai-input": A, "ai-train": D}, str: "search=yes, ai-input=yes, ai-train=no"},
		{in: "ai-train=no,search=yes", want: map[string]Pref{"search": A, "ai-train": D}, str: "search=yes, ai-train=no"},
		{in: "ai-train=no", want: map[string]Pref{"ai-train": D}, str: "ai-train=no"},
		{in: "ai-train=n, search=y", str: ""},
		{in: `ai-train="no"`, str: ""},
		{in: "ai-train=No, search=YES", str: ""},
		{in: "ai-train", str: ""},
		{in: "train-ai=no", str: ""},
		{in: "ai-train=yes, ai-train=no", want: map[string]Pref{"ai-train": D}, str: "ai-train=no"},
		{in: "Search=yes, ai-train=no", wantErr: true},
		{in: "search=yes ai-train=no", wantErr: true},
		{in: "search = yes", wantErr: true},
	})
}

// TestParseDuplicateKeysHttpsfv pins the httpsfv behaviour Parse relies on: a repeated
// Dictionary key keeps its last value (RFC 9651 4.2.2), at its first position.
func TestParseDuplicateKeysHttpsfv(t *testing.T) {
	d, err := httpsfv.UnmarshalDictionary([]string{"a=1, b=2, a=3"})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := d.Get("a")
	if got := m.(httpsfv.Item).Value; got != int64(3) {
		t.Errorf("a = %v, want 3", got)
	}
	if got := strings.Join(d.Names(), ","); got != "a,b" {
		t.Errorf("names = %s, want a,b", got)
	}
	// Across field lines too.
	p, err := ContentUsage.parse([]string{"train-ai=n", "train-ai=y"})
	if err != nil || p.Get("train-ai") != Allow {
		t.Errorf("two lines: %v, %v; want allow", p, err)
	}
}

func TestParseErrorMessage(t *testing.T) {
	_, err := ContentUsage.Parse("Train-AI=n")
	if err == nil {
		t.Fatal("no error")
	}
	if !errors.Is(err, httpsfv.ErrInvalidKeyFormat) {
		t.Errorf("error %v does not wrap httpsfv.ErrInvalidKeyFormat", err)
	}
	for _, want := range []string{"Content-Usage", `"Train-AI=n"`, "unknown"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	_, err = ContentUsage.Parse(strings.Repeat("A", 10000))
	if err == nil || len(err.Error()) > 400 {
		t.Errorf("long value: error %d bytes, want a short one", len(err.Error()))
	}
}

func TestParseLine(t *testing.T) {
	for _, c := range []struct {
		v       Vocab
		in      string
		path    string
		str     string
		wantErr bool
	}{
		{ContentUsage, "train-ai=n", "", "train-ai=n", false},
		{ContentUsage, "/ai-ok/ train-ai=y", "/ai-ok/", "train-ai=y", false},
		{ContentUsage, "  /ai-ok/\t \ttrain-ai=y, search=n  ", "/ai-ok/", "train-ai=y, search=n", false},
		{ContentUsage, "/a%20b/*.pdf$ train-ai=n # a comment", "/a%20b/*.pdf$", "train-ai=n", false},
		{ContentUsage, "train-ai=n#comment", "", "train-ai=n", false},
		{ContentUsage, "train-ai=n\r\n", "", "train-ai=n", false},
		{ContentUsage, "/only-path", "/only-path", "", false},
		{ContentUsage, "/only-path   ", "/only-path", "", false},
		{ContentUsage, "/", "/", "", false},
		{ContentUsage, "", "", "", false},
		{ContentUsage, "# all comment", "", "", false},
		// A path with no preferences after it but a second word that is not SF.
		{ContentUsage, "/x Train-AI=n", "/x", "", true},
		{ContentUsage, "/x train-ai=n, search", "/x", "train-ai=n", false},
		// Not starting with "/": all of it is preference, and a path-like word fails.
		{ContentUsage, "*.pdf train-ai=n", "", "", true},
		{ContentUsage, "x/ train-ai=n", "", "", true},
		{ContentSignal, "search=yes, ai-input=yes, ai-train=no", "", "search=yes, ai-input=yes, ai-train=no", false},
		{ContentSignal, "/blog/ ai-train=no, search=yes", "/blog/", "search=yes, ai-train=no", false},
	} {
		path, p, err := c.v.ParseLine(c.in)
		if path != c.path || p.String() != c.str || (err != nil) != c.wantErr {
			t.Errorf("%v.ParseLine(%q) = %q, %q, %v; want %q, %q, error %v", c.v, c.in, path, p, err, c.path, c.str, c.wantErr)
		}
	}
}

func TestFormatLine(t *testing.T) {
	p := mustArgs(t, ContentUsage, "search=y", "train-ai=n")
	for _, c := range []struct {
		path string
		p    Prefs
		want string
	}{
		{"", p, "train-ai=n, search=y"},
		{"/open-data/", p, "/open-data/ train-ai=n, search=y"},
		{"/x", Prefs{}, "/x"},
		{"", Prefs{}, ""},
	} {
		got := FormatLine(c.path, c.p)
		if got != c.want {
			t.Errorf("FormatLine(%q, %q) = %q, want %q", c.path, c.p, got, c.want)
		}
		path, q, err := ContentUsage.ParseLine(got)
		if err != nil || path != c.path || q.String() != c.p.String() {
			t.Errorf("ParseLine(%q) = %q, %q, %v; want %q, %q", got, path, q, err, c.path, c.p)
		}
	}
}

// TestMergeHeader: the keys the route knows combine, every other member of the backend's
// field is kept as sent (value and parameters), in the backend's order after the route's
// keys; a field that does not parse keeps only its members with the value n, and says what
// it left out.
func TestMergeHeader(t *testing.T) {
	route := mustArgs(t, ContentUsage, "train-ai=n")
	ext := mustArgs(t, ContentUsage, "train-ai=y", "+foo=y")
	for _, c := range []struct {
		route   Prefs
		lines   []string
		want    string
		wantErr string // a part of the error, "" for none
	}{
		{route, nil, "train-ai=n", ""},
		{route, []string{}, "train-ai=n", ""},
		{route, []string{""}, "train-ai=n", ""},
		{route, []string{"train-ai=y"}, "train-ai=n", ""},
		{route, []string{"search=y"}, "train-ai=n, search=y", ""},
		{route, []string{"search=y", "search=n"}, "train-ai=n, search=n", ""},
		{route, []string{"search=n, search=y"}, "train-ai=n, search=y", ""},
		// Members the route does not combine: kept as sent, parameters included, in order.
		{route, []string{"search=y;p=1, foo=n"}, "train-ai=n, search=y;p=1, foo=n", ""},
		{route, []string{"zeta=1, alpha=?0, search=y, ai-input=n;src=\"cms\""}, "train-ai=n, search=y, zeta=1, alpha=?0, ai-input=n;src=\"cms\"", ""},
		{route, []string{"x=(a \"b, c\");q=1, train-ai=y"}, "train-ai=n, x=(a \"b, c\");q=1", ""},
		{route, []string{"foo=1, bar=2, foo=3"}, "train-ai=n, foo=3, bar=2", ""}, // last value, first place
		{route, []string{"foo=1", "bar;x", "search=n", "baz=:AAE=:"}, "train-ai=n, search=n, foo=1, bar;x, baz=:AAE=:", ""},
		{route, []string{"d=@1700000000, s=%\"caf%c3%a9\", n=-1.5"}, "train-ai=n, d=@1700000000, s=%\"caf%c3%a9\", n=-1.5", ""},
		// A vocabulary key: the backend's member as sent when its value is the combined one.
		{route, []string{"train-ai=n;src=cms"}, "train-ai=n;src=cms", ""},
		{route, []string{"train-ai=y;src=cms"}, "train-ai=n", ""},
		{route, []string{`search="y"`}, `train-ai=n, search="y"`, ""}, // not a value the vocabulary defines
		{route, []string{"train-ai=y, train-ai, search=n, search=\"n\""}, "train-ai=n, search=\"n\"", ""},
		{mustArgs(t, ContentUsage, "search=y"), []string{`search="n"`}, "search=y", ""},
		// Extension keys the route states combine like the vocabulary's.
		{mustArgs(t, ContentUsage, "train-ai=y", "+ai-use=n"), []string{"train-ai=n, ai-use=y"}, "train-ai=n, ai-use=n", ""},
		{ext, []string{"foo=n, search=n"}, "train-ai=y, search=n, foo=n", ""},
		{mustArgs(t, ContentUsage, "+foo=y"), []string{"foo=y, bar=n"}, "foo=y, bar=n", ""},
		{mustArgs(t, ContentUsage, "+foo=n"), []string{"foo=y"}, "foo=n", ""},
		{mustArgs(t, ContentUsage, "+foo=y"), []string{`foo="n"`}, "foo=y", ""},
		{mustArgs(t, ContentSignal, "ai-train=no"), []string{"search=yes, ai-train=yes, x=no"}, "search=yes, ai-train=no, x=no", ""},
		// No route preferences: the backend's field, re-serialised.
		{Prefs{}, []string{"search=n, train-ai=y"}, "train-ai=y, search=n", ""},
		{Prefs{}, []string{"nonsense"}, "nonsense", ""},
		// Unparsable: to a reader every preference in it is unknown; its n values are kept
		// (a lenient reader may see them), nothing else, and the error says what was left.
		{route, []string{"Search=n"}, "train-ai=n, search=n", "is not a Structured Field Dictionary"},
		{route, []string{"search=n,"}, "train-ai=n, search=n", "is not a Structured Field Dictionary"},
		{route, []string{"search=n", "Train-AI=y"}, "train-ai=n, search=n", `left out "Train-AI=y"`},
		{route, []string{"search=n", ""}, "train-ai=n, search=n", "is not a Structured Field Dictionary"},
		{route, []string{"FOO=n, bar=n, baz=y, X"}, "train-ai=n, bar=n", `left out "FOO=n", "baz=y", "X"`},
		{route, []string{"foo=y, Bar=1"}, "train-ai=n", `left out "foo=y", "Bar=1"`},
		{route, []string{`foo="a, Train-AI=y, search=n", X`}, "train-ai=n", `left out "foo=\"a, Train-AI=y, search=n\"", "X"`},
		// A quote never closed is no quoted string (RFC 9110 section 5.6.4 needs the closing
		// DQUOTE), so it hides no comma: the n after it is kept. (The reading before
		// httplex ran the quote to the end and lost the n.) So with a Display String, where
		// a backslash escapes nothing (RFC 9651 section 3.3.8).
		{route, []string{`"x, search=n`}, "train-ai=n, search=n", `left out "\"x"`},
		{route, []string{`X=%"\", search=n`}, "train-ai=n, search=n", `left out "X=%\"\\\""`},
		{route, []string{"search=n;Note=1, Q"}, "train-ai=n", "left out"},
		{mustArgs(t, ContentUsage, "train-ai=y"), []string{"Train-AI=n"}, "train-ai=n", "is not a Structured Field Dictionary"},
		{ext, []string{"FOO=n, Search=y"}, "train-ai=y, foo=n", `left out "Search=y"`},
		{ext, []string{"train-ai=n;p=1, Bar"}, "train-ai=n;p=1, foo=y", `left out "Bar"`},
		{mustArgs(t, ContentSignal, "ai-train=no"), []string{"Search=no, ai-input=yes,"}, "search=no, ai-train=no", `left out "ai-input=yes"`},
		{Prefs{}, []string{"N"}, "", `left out "N"`},
	} {
		got, err := MergeHeader(c.route, c.lines)
		if got != c.want || (err != nil) != (c.wantErr != "") || err != nil && !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("MergeHeader(%q, %q) = %q, %v; want %q, error with %q", c.route, c.lines, got, err, c.want, c.wantErr)
			continue
		}
		if got == "" {
			continue
		}
		// httpsfv is the witness: the result is one valid Dictionary.
		if _, err := httpsfv.UnmarshalDictionary([]string{got}); err != nil {
			t.Errorf("MergeHeader(%q, %q) = %q, which httpsfv refuses: %v", c.route, c.lines, got, err)
		}
	}
}

// TestMergeHeaderFieldSize: a combination over 8 KiB leaves out the backend's other members
// that are not n first (last first), then parameters, then the backend's other n members
// (last first), then extension y values, then extension n values, and never a vocabulary
// key; the result is a valid Dictionary within the limit, and the error names what went.
func TestMergeHeaderFieldSize(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	route := mustArgs(t, ContentUsage, "train-ai=n")
	cases := []struct {
		name    string
		route   Prefs
		lines   []string
		want    []string // members the result must hold, serialised
		notWant []string // members (or parts) it must not
		leftOut string
	}{
		{
			name:    "other members last first",
			route:   route,
			lines:   []string{`search=n;note="` + long(3000) + `", big1="` + long(3000) + `", keep=n, big2="` + long(3000) + `"`},
			want:    []string{"train-ai=n", `search=n;note="` + long(3000) + `"`, `big1="` + long(3000) + `"`, "keep=n"},
			notWant: []string{"big2"},
			leftOut: `left out "big2=`,
		},
		{
			name:    "then parameters",
			route:   route,
			lines:   []string{`search=n;note="` + long(5000) + `", a=n;p="` + long(4000) + `"`},
			want:    []string{"train-ai=n", "search=n", `a=n;p="` + long(4000) + `"`},
			notWant: []string{"note="},
			leftOut: `"search's parameters"`,
		},
		{
			name:    "then other n members",
			route:   route,
			lines:   []string{"search=y, " + members(2000, "k", "n")},
			want:    []string{"train-ai=n", "search=y", "k0000=n", "k0500=n"},
			notWant: []string{"k1999=n"},
			leftOut: `left out "k1999=n"`,
		},
		{
			name:    "then extension y, then extension n",
			route:   bigExt(t, 818, "y", "n"),
			lines:   []string{`search=n, other=?1;p="` + long(100) + `"`},
			want:    []string{"train-ai=n", "search=n", "x-0001=n", "x-0817=n", "x-0002=y"},
			notWant: []string{"other=", "x-0000=y"},
			leftOut: `"x-0000=y"`,
		},
		{
			name:    "extension n values last",
			route:   bigExt(t, 818, "n"),
			lines:   []string{"search=n, foo=y"},
			want:    []string{"train-ai=n", "search=n", "x-0001=n", "x-0817=n"},
			notWant: []string{"foo=y", "x-0000=n"},
			leftOut: `left out "foo=y", "x-0000=n"`,
		},
	}
	for _, c := range cases {
		got, err := MergeHeader(c.route, c.lines)
		if len(got) > MaxFieldSize {
			t.Errorf("%s: %d bytes", c.name, len(got))
		}
		d, perr := httpsfv.UnmarshalDictionary([]string{got})
		if perr != nil {
			t.Fatalf("%s: httpsfv refuses the result: %v", c.name, perr)
		}
		for _, w := range c.want {
			key, _, _ := strings.Cut(w, "=")
			m, ok := d.Get(key)
			one := httpsfv.NewDictionary()
			if ok {
				one.Add(key, m)
			}
			if s, _ := httpsfv.Marshal(one); s != w {
				t.Errorf("%s: member %.40q is %.40q", c.name, w, s)
			}
		}
		for _, w := range c.notWant {
			if strings.Contains(got, w) {
				t.Errorf("%s: %q still in the result", c.name, w)
			}
		}
		if err == nil || !strings.Contains(err.Error(), c.leftOut) || !strings.Contains(err.Error(), "over the 8192") {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.leftOut)
		}
		if len(err.Error()) > 1000 {
			t.Errorf("%s: error of %d bytes", c.name, len(err.Error()))
		}
	}
}

// members returns n members prefix0000=value, prefix0001=value, ...
func members(n int, prefix, value string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s%04d=%s", prefix, i, value)
	}
	return b.String()
}

// bigExt returns preferences with n extension keys +x-0000 ..., taking values in turn.
func bigExt(t *testing.T, n int, values ...string) Prefs {
	m := map[string]string{"train-ai": "n"}
	for i := range n {
		m[fmt.Sprintf("+x-%04d", i)] = values[i%len(values)]
	}
	p, err := ContentUsage.FromConfig(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.String()) > MaxFieldSize || len(p.String()) < MaxFieldSize-200 {
		t.Fatalf("route field is %d bytes", len(p.String()))
	}
	return p
}
