package usage

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/configerr"
)

// fe mirrors configerr.Error, for table literals.
type fe struct{ Path, Value, Problem, Suggestion string }

func errs(t *testing.T, err error) []fe {
	t.Helper()
	var out []fe
	for _, e := range configerr.All(err) {
		out = append(out, fe(*e))
	}
	return out
}

const (
	cuKeys    = "not a Content-Usage key: the keys are train-ai, ai-use, search, and an extension is written +name"
	csKeys    = "not a Content-Signal key: the keys are search, ai-input, ai-train, and an extension is written +name"
	cuValues  = "Content-Usage values are y (allow) and n (disallow)"
	csValues  = "Content-Signal values are yes (allow) and no (disallow)"
	extSyntax = "an extension is written + then a Structured Field key: a lower-case letter or *, then lower-case letters, digits, _, -, . or *"
	noCommas  = "; give one key=value per argument, without commas"
)

func TestFromConfig(t *testing.T) {
	type E = fe
	for _, c := range []struct {
		v    Vocab
		in   string // JSON
		want string
		errs []E
	}{
		{ContentUsage, `{"train-ai": "n", "search": "y"}`, "train-ai=n, search=y", nil},
		{ContentUsage, `{}`, "", nil},
		{ContentUsage, `null`, "", nil},
		{ContentUsage, `{"+ai-use": "n", "+*x": "y", "search": "n"}`, "ai-use=n, search=n, *x=y", nil},
		// ai-use is vocab-08's key; "+ai-use", its extension before, reads as the key.
		{ContentUsage, `{"ai-use": "n", "train-ai": "y"}`, "train-ai=y, ai-use=n", nil},
		{ContentUsage, `{"ai-use": "y", "+ai-use": "n"}`, "ai-use=n", nil},
		{ContentSignal, `{"search": "yes", "ai-input": "yes", "ai-train": "no"}`, "search=yes, ai-input=yes, ai-train=no", nil},
		{ContentUsage, `{"train-ia": "n"}`, "", []E{{`["train-ia"]`, "train-ia", cuKeys, "train-ai"}}},
		{ContentUsage, `{"serach": "y"}`, "", []E{{`["serach"]`, "serach", cuKeys, "search"}}},
		{ContentUsage, `{"Train-AI": "n"}`, "", []E{{`["Train-AI"]`, "Train-AI", cuKeys + " (keys are lower case)", "train-ai"}}},
		{ContentUsage, `{"ai-train": "n"}`, "", []E{{`["ai-train"]`, "ai-train", cuKeys + "; Content-Signal's ai-train is train-ai in Content-Usage", "train-ai"}}},
		{ContentUsage, `{"ai-input": "n"}`, "", []E{{`["ai-input"]`, "ai-input", cuKeys + "; Content-Usage has no ai-input: its nearest category is ai-use (input to a generative AI model that the user did not provide); use Content-Signal for ai-input itself, or +ai-input to emit it as an extension", ""}}},
		{ContentSignal, `{"train-ai": "no"}`, "", []E{{`["train-ai"]`, "train-ai", csKeys + "; Content-Usage's train-ai is ai-train in Content-Signal", "ai-train"}}},
		{ContentSignal, `{"ai-inptu": "no"}`, "", []E{{`["ai-inptu"]`, "ai-inptu", csKeys, "ai-input"}}},
		{ContentUsage, `{"foo": "n"}`, "", []E{{`["foo"]`, "foo", cuKeys, ""}}},
		{ContentUsage, `{"train-ai": "yes"}`, "", []E{{`["train-ai"]`, "yes", cuValues, "y"}}},
		{ContentUsage, `{"train-ai": "N"}`, "", []E{{`["train-ai"]`, "N", cuValues, "n"}}},
		{ContentUsage, `{"train-ai": "maybe"}`, "", []E{{`["train-ai"]`, "maybe", cuValues, ""}}},
		{ContentUsage, `{"train-ai": ""}`, "", []E{{`["train-ai"]`, "", cuValues, ""}}},
		{ContentSignal, `{"ai-train": "n"}`, "", []E{{`["ai-train"]`, "n", csValues, "no"}}},
		{ContentUsage, `{"+train-ai": "n"}`, "", []E{{`["+train-ai"]`, "+train-ai", "train-ai is a Content-Usage key, not an extension: write it without +", "train-ai"}}},
		{ContentUsage, `{"+Foo": "n"}`, "", []E{{`["+Foo"]`, "+Foo", extSyntax, "+foo"}}},
		{ContentUsage, `{"+": "n", "+1a": "y"}`, "", []E{{`["+"]`, "+", extSyntax, ""}, {`["+1a"]`, "+1a", extSyntax, ""}}},
		// Every mistake, in key order; a bad key with a bad value gets both.
		{ContentUsage, `{"search": "x", "a": "y", "zz": "q"}`, "", []E{
			{`["a"]`, "a", cuKeys, ""},
			{`["search"]`, "x", cuValues, ""},
			{`["zz"]`, "q", cuValues, ""},
			{`["zz"]`, "zz", cuKeys, ""}}},
	} {
		var m map[string]string
		if err := json.Unmarshal([]byte(c.in), &m); err != nil {
			t.Fatal(err)
		}
		p, err := c.v.FromConfig(m)
		if p.String() != c.want {
			t.Errorf("%v.FromConfig(%s) = %q, want %q", c.v, c.in, p, c.want)
		}
		if got := errs(t, err); !reflect.DeepEqual(got, c.errs) {
			t.Errorf("%v.FromConfig(%s) errors:\n got %#v\nwant %#v", c.v, c.in, got, c.errs)
		}
	}
}

func TestFromArgs(t *testing.T) {
	type E = fe
	for _, c := range []struct {
		v    Vocab
		args string
		want string
		errs []E
	}{
		{ContentUsage, "train-ai=n search=y", "train-ai=n, search=y", nil},
		{ContentUsage, "search=y train-ai=n +ai-use=y", "train-ai=n, ai-use=y, search=y", nil},
		{ContentUsage, "ai-use=n", "ai-use=n", nil},
		{ContentUsage, "", "", nil},
		{ContentSignal, "ai-train=no search=yes", "search=yes, ai-train=no", nil},
		{ContentUsage, "train-ai", "", []E{{"", "train-ai", "a preference is written key=value (train-ai=y allows, train-ai=n disallows)", ""}}},
		{ContentSignal, "search", "", []E{{"", "search", "a preference is written key=value (search=yes allows, search=no disallows)", ""}}},
		{ContentUsage, "train-ai=n train-ai=y", "", []E{{`["train-ai"]`, "train-ai=y", "key given more than once; keep one", ""}}},
		{ContentUsage, "train-ai=n, search=y", "", []E{{`["train-ai"]`, "n,", cuValues + noCommas, "n"}}},
		{ContentUsage, "train-ai=n,search=y", "", []E{{`["train-ai"]`, "n,search=y", cuValues + noCommas, "n"}}},
		{ContentUsage, "train-ai=x,search=y", "", []E{{`["train-ai"]`, "x,search=y", cuValues + noCommas, ""}}},
		{ContentUsage, "train-ai=", "", []E{{`["train-ai"]`, "", cuValues, ""}}},
		{ContentUsage, "=n", "", []E{{`[""]`, "", cuKeys, ""}}},
		{ContentUsage, "Serach=n", "", []E{{`["Serach"]`, "Serach", cuKeys, "search"}}},
		{ContentUsage, "tr@in-ai=n", "", []E{{`["tr@in-ai"]`, "tr@in-ai", cuKeys, "train-ai"}}},
	} {
		p, err := c.v.FromArgs(strings.Fields(c.args))
		if p.String() != c.want {
			t.Errorf("%v.FromArgs(%s) = %q, want %q", c.v, c.args, p, c.want)
		}
		if got := errs(t, err); !reflect.DeepEqual(got, c.errs) {
			t.Errorf("%v.FromArgs(%s) errors:\n got %#v\nwant %#v", c.v, c.args, got, c.errs)
		}
	}
}

// TestErrorPaths: errors re-root under the caller's field with configerr.Prefix.
func TestErrorPaths(t *testing.T) {
	_, err := ContentUsage.FromConfig(map[string]string{"train-ia": "n"})
	err = configerr.Prefix("content_usage[0].preferences", err)
	want := `content_usage[0].preferences["train-ia"] "train-ia": ` + cuKeys + ` (did you mean "train-ai"?)`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant %s", err, want)
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
		p, err := ContentUsage.FromConfig(r.Preferences)
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
