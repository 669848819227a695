package usage

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// fieldErrors unpacks the joined errors of FromConfig / FromArgs.
func fieldErrors(t *testing.T, err error) []FieldError {
	t.Helper()
	if err == nil {
		return nil
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	var out []FieldError
	for _, e := range errs {
		var fe *FieldError
		if !errors.As(e, &fe) {
			t.Fatalf("error %v is not a *FieldError", e)
		}
		out = append(out, *fe)
	}
	return out
}

func TestFromConfig(t *testing.T) {
	for _, c := range []struct {
		v    Vocab
		in   string // JSON
		want string
		errs []FieldError
	}{
		{ContentUsage, `{"train-ai": "n", "search": "y"}`, "train-ai=n, search=y", nil},
		{ContentUsage, `{}`, "", nil},
		{ContentUsage, `null`, "", nil},
		{ContentUsage, `{"+ai-use": "n", "+*x": "y", "search": "n"}`, "search=n, *x=y, ai-use=n", nil},
		{ContentSignal, `{"search": "yes", "ai-input": "yes", "ai-train": "no"}`, "search=yes, ai-input=yes, ai-train=no", nil},
		{ContentUsage, `{"train-ia": "n"}`, "", []FieldError{{"preferences.train-ia", "train-ia", "unknown Content-Usage key", "did you mean train-ai? (an extension key is written +train-ia)"}}},
		{ContentUsage, `{"serach": "y"}`, "", []FieldError{{"preferences.serach", "serach", "unknown Content-Usage key", "did you mean search? (an extension key is written +serach)"}}},
		{ContentUsage, `{"Train-AI": "n"}`, "", []FieldError{{"preferences.Train-AI", "Train-AI", "unknown Content-Usage key", "keys are lower case: write train-ai"}}},
		{ContentUsage, `{"ai-train": "n"}`, "", []FieldError{{"preferences.ai-train", "ai-train", "unknown Content-Usage key", `Content-Signal writes "ai-train"; Content-Usage writes "train-ai"`}}},
		{ContentSignal, `{"train-ai": "no"}`, "", []FieldError{{"preferences.train-ai", "train-ai", "unknown Content-Signal key", `Content-Usage writes "train-ai"; Content-Signal writes "ai-train"`}}},
		{ContentSignal, `{"ai-inptu": "no"}`, "", []FieldError{{"preferences.ai-inptu", "ai-inptu", "unknown Content-Signal key", "did you mean ai-input? (an extension key is written +ai-inptu)"}}},
		{ContentUsage, `{"foo": "n"}`, "", []FieldError{{"preferences.foo", "foo", "unknown Content-Usage key", "Content-Usage keys are train-ai, search; an extension key is written +foo"}}},
		{ContentUsage, `{"train-ai": "yes"}`, "", []FieldError{{"preferences.train-ai", "yes", "Content-Usage values are y (allow) or n (disallow)", "write y to allow"}}},
		{ContentUsage, `{"train-ai": "N"}`, "", []FieldError{{"preferences.train-ai", "N", "Content-Usage values are y (allow) or n (disallow)", "write n to disallow"}}},
		{ContentUsage, `{"train-ai": "maybe"}`, "", []FieldError{{"preferences.train-ai", "maybe", "Content-Usage values are y (allow) or n (disallow)", ""}}},
		{ContentSignal, `{"ai-train": "n"}`, "", []FieldError{{"preferences.ai-train", "n", "Content-Signal values are yes (allow) or no (disallow)", "write no to disallow"}}},
		{ContentUsage, `{"+train-ai": "n"}`, "", []FieldError{{"preferences.+train-ai", "+train-ai", "train-ai is a Content-Usage key, not an extension", "write it without the +"}}},
		{ContentUsage, `{"+Foo": "n"}`, "", []FieldError{{"preferences.+Foo", "+Foo", "an extension key must be a Structured Field key: a lower-case letter or *, then lower-case letters, digits, _, -, . or *", "keys are lower case: write +foo"}}},
		{ContentUsage, `{"+": "n", "+1a": "y"}`, "", []FieldError{
			{"preferences.+", "+", "an extension key must be a Structured Field key: a lower-case letter or *, then lower-case letters, digits, _, -, . or *", ""},
			{"preferences.+1a", "+1a", "an extension key must be a Structured Field key: a lower-case letter or *, then lower-case letters, digits, _, -, . or *", ""}}},
		// Every mistake, in key order; a bad key with a bad value gets both.
		{ContentUsage, `{"search": "x", "a": "y", "zz": "q"}`, "", []FieldError{
			{"preferences.a", "a", "unknown Content-Usage key", "Content-Usage keys are train-ai, search; an extension key is written +a"},
			{"preferences.search", "x", "Content-Usage values are y (allow) or n (disallow)", ""},
			{"preferences.zz", "q", "Content-Usage values are y (allow) or n (disallow)", ""},
			{"preferences.zz", "zz", "unknown Content-Usage key", "Content-Usage keys are train-ai, search; an extension key is written +zz"}}},
	} {
		var m map[string]string
		if err := json.Unmarshal([]byte(c.in), &m); err != nil {
			t.Fatal(err)
		}
		p, err := c.v.FromConfig("preferences", m)
		if p.String() != c.want {
			t.Errorf("%v.FromConfig(%s) = %q, want %q", c.v, c.in, p, c.want)
		}
		if got := fieldErrors(t, err); !reflect.DeepEqual(got, c.errs) {
			t.Errorf("%v.FromConfig(%s) errors:\n got %#v\nwant %#v", c.v, c.in, got, c.errs)
		}
	}
}

func TestFromArgs(t *testing.T) {
	for _, c := range []struct {
		v    Vocab
		args string
		want string
		errs []FieldError
	}{
		{ContentUsage, "train-ai=n search=y", "train-ai=n, search=y", nil},
		{ContentUsage, "search=y train-ai=n +ai-use=y", "train-ai=n, search=y, ai-use=y", nil},
		{ContentUsage, "", "", nil},
		{ContentSignal, "ai-train=no search=yes", "search=yes, ai-train=no", nil},
		{ContentUsage, "train-ai", "", []FieldError{{"train-ai", "train-ai", "a preference is written key=value", "write train-ai=y to allow or train-ai=n to disallow"}}},
		{ContentUsage, "train-ai=n train-ai=y", "", []FieldError{{"train-ai", "train-ai=y", "key given twice", "keep one of them"}}},
		{ContentUsage, "train-ai=n, search=y", "", []FieldError{{"train-ai", "n,", "Content-Usage values are y (allow) or n (disallow)", "give one key=value per preference, without commas"}}},
		{ContentUsage, "train-ai=n,search=y", "", []FieldError{{"train-ai", "n,search=y", "Content-Usage values are y (allow) or n (disallow)", "give one key=value per preference, without commas"}}},
		{ContentUsage, "train-ai=", "", []FieldError{{"train-ai", "", "Content-Usage values are y (allow) or n (disallow)", ""}}},
		{ContentUsage, "=n", "", []FieldError{{"", "", "unknown Content-Usage key", "Content-Usage keys are train-ai, search"}}},
		{ContentUsage, "Serach=n", "", []FieldError{{"Serach", "Serach", "unknown Content-Usage key", "did you mean search? (an extension key is written +serach)"}}},
		{ContentUsage, "tr@in-ai=n", "", []FieldError{{"tr@in-ai", "tr@in-ai", "unknown Content-Usage key", "did you mean train-ai?"}}},
		{ContentUsage, "a_b!=n", "", []FieldError{{"a_b!", "a_b!", "unknown Content-Usage key", "Content-Usage keys are train-ai, search"}}},
	} {
		p, err := c.v.FromArgs(strings.Fields(c.args))
		if p.String() != c.want {
			t.Errorf("%v.FromArgs(%s) = %q, want %q", c.v, c.args, p, c.want)
		}
		if got := fieldErrors(t, err); !reflect.DeepEqual(got, c.errs) {
			t.Errorf("%v.FromArgs(%s) errors:\n got %#v\nwant %#v", c.v, c.args, got, c.errs)
		}
	}
}

func TestFieldErrorMessage(t *testing.T) {
	_, err := ContentUsage.FromConfig("routes[0].preferences", map[string]string{"train-ia": "n"})
	want := `routes[0].preferences.train-ia: unknown Content-Usage key: "train-ia"; did you mean train-ai? (an extension key is written +train-ia)`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant %s", err, want)
	}
	e := &FieldError{Value: "x", Problem: "bad"}
	if e.Error() != `bad: "x"` {
		t.Errorf("no path, no suggestion: %q", e.Error())
	}
}

// TestRuleJSON: the JSON shape of a robots.txt rule.
func TestRuleJSON(t *testing.T) {
	var rules []Rule
	in := `[{"preferences": {"train-ai": "n"}}, {"path": "/open-data/", "preferences": {"train-ai": "y", "search": "y"}}]`
	if err := json.Unmarshal([]byte(in), &rules); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range rules {
		p, err := ContentUsage.FromConfig("preferences", r.Preferences)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, FormatLine(r.Path, p))
	}
	if got := strings.Join(lines, "\n"); got != "train-ai=n\n/open-data/ train-ai=y, search=y" {
		t.Errorf("lines = %q", got)
	}
	out, _ := json.Marshal(Rule{Preferences: map[string]string{"search": "y"}})
	if string(out) != `{"preferences":{"search":"y"}}` {
		t.Errorf("marshal = %s", out)
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"train-ai", "train-ai", 0},
		{"train-ia", "train-ai", 1}, {"serach", "search", 1}, {"trainai", "train-ai", 1},
		{"kitten", "sitting", 3}, {"ca", "abc", 3},
	} {
		if got := editDistance(c.a, c.b); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}
