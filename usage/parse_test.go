package usage

import (
	"errors"
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

func TestMergeHeader(t *testing.T) {
	route := mustArgs(t, ContentUsage, "train-ai=n")
	for _, c := range []struct {
		route   Prefs
		lines   []string
		want    string
		wantErr bool
	}{
		{route, nil, "train-ai=n", false},
		{route, []string{}, "train-ai=n", false},
		{route, []string{""}, "train-ai=n", false},
		{route, []string{"train-ai=y"}, "train-ai=n", false},
		{route, []string{"search=y"}, "train-ai=n, search=y", false},
		{route, []string{"search=y", "search=n"}, "train-ai=n, search=n", false},
		{route, []string{"search=n, search=y"}, "train-ai=n, search=y", false},
		{route, []string{"search=y;p=1, foo=n"}, "train-ai=n, search=y", false},
		{route, []string{`search="y"`}, "train-ai=n", false},
		// Unparsable: contributes nothing, reported.
		{route, []string{"Search=n"}, "train-ai=n", true},
		{route, []string{"search=n,"}, "train-ai=n", true},
		// One bad line spoils the field: RFC 9651 parses the lines as one value.
		{route, []string{"search=n", "Train-AI=y"}, "train-ai=n", true},
		{route, []string{"search=n", ""}, "train-ai=n", true},
		// No route preferences.
		{Prefs{}, []string{"search=n, train-ai=y"}, "train-ai=y, search=n", false},
		{Prefs{}, []string{"nonsense"}, "", false},
		{Prefs{}, []string{"N"}, "", true},
		{mustArgs(t, ContentUsage, "train-ai=y", "+ai-use=n"), []string{"train-ai=n, ai-use=y"}, "train-ai=n, ai-use=n", false},
		{mustArgs(t, ContentSignal, "ai-train=no"), []string{"search=yes, ai-train=yes"}, "search=yes, ai-train=no", false},
		// An extension key the route states combines with the backend's (found by review: the
		// route's +foo=y overrode the backend's foo=n); other extensions are ignored.
		{mustArgs(t, ContentUsage, "train-ai=y", "+foo=y"), []string{"foo=n, search=n"}, "train-ai=y, search=n, foo=n", false},
		{mustArgs(t, ContentUsage, "+foo=y"), []string{"foo=y, bar=n"}, "foo=y", false},
		{mustArgs(t, ContentUsage, "+foo=n"), []string{"foo=y"}, "foo=n", false},
		{mustArgs(t, ContentUsage, "+foo=y"), []string{`foo="n"`}, "foo=y", false},
	} {
		got, err := MergeHeader(c.route, c.lines)
		if got != c.want || (err != nil) != c.wantErr {
			t.Errorf("MergeHeader(%q, %q) = %q, %v; want %q, error %v", c.route, c.lines, got, err, c.want, c.wantErr)
		}
	}
}
