package gen

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
)

func readData(t *testing.T) ([]byte, []byte) {
	t.Helper()
	data, err := os.ReadFile("../../data/robots.json")
	if err != nil {
		t.Fatal(err)
	}
	lic, err := os.ReadFile("../../data/LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	return data, lic
}

// The table is reviewed against the snapshot: it maps exactly the function
// strings the committed data uses, so a stale row is noticed when an update
// drops a string.
func TestFunctionsCoverSnapshotExactly(t *testing.T) {
	data, _ := readData(t)
	var m map[string]struct{ Function string }
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, e := range m {
		used[e.Function] = true
	}
	for f := range used {
		if _, ok := Functions[f]; !ok {
			t.Errorf("snapshot function %q is not in Functions", f)
		}
	}
	for f, cats := range Functions {
		if !used[f] {
			t.Errorf("Functions has %q, which the snapshot no longer uses: remove it", f)
		}
		for _, c := range cats {
			if c != training && c != search && c != assistants {
				t.Errorf("Functions[%q] names unknown category %q", f, c)
			}
		}
		if len(slices.Compact(slices.Sorted(slices.Values(cats)))) != len(cats) {
			t.Errorf("Functions[%q] repeats a category: %v", f, cats)
		}
	}
}

func TestUnmappedFunctionFailsNamingIt(t *testing.T) {
	in := `{
 "GoodBot": {"operator": "X", "respect": "Yes", "function": "AI Data Scrapers"},
 "NewBot": {"operator": "X", "respect": "Yes", "function": "Brand new wording."},
 "OtherBot": {"operator": "X", "respect": "Yes", "function": "Brand new wording."},
 "ThirdBot": {"operator": "X", "respect": "Yes", "function": "Another one"}
}`
	_, err := Generate([]byte(in), []byte("Permission is hereby granted"), "x.json")
	if err == nil {
		t.Fatal("no error for unmapped function strings")
	}
	for _, want := range []string{`"Brand new wording."`, "NewBot, OtherBot", `"Another one"`, "ThirdBot", "functions.go"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"duplicate key", `{"A": {"operator":"","respect":"","function":"AI Agents"}, "A": {"operator":"","respect":"","function":"AI Agents"}}`, "duplicate"},
		{"missing function", `{"A": {"operator":"","respect":""}}`, "needs operator, respect and function"},
		{"leading space", `{" A": {"operator":"","respect":"","function":"AI Agents"}}`, "must start and end"},
		{"trailing slash", `{"A/": {"operator":"","respect":"","function":"AI Agents"}}`, "must start and end"},
		{"non-ASCII", `{"Bötchen": {"operator":"","respect":"","function":"AI Agents"}}`, "printable ASCII"},
		{"empty", `{"": {"operator":"","respect":"","function":"AI Agents"}}`, "empty"},
		{"not an object", `[]`, "JSON object"},
		{"trailing data", `{} {}`, "after the object"},
	} {
		if _, err := Parse([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", tc.name, err, tc.want)
		}
	}
	if _, err := Generate([]byte(`{}`), []byte("not a licence"), "x"); err == nil {
		t.Error("Generate accepted a licence text that is not MIT")
	}
}

func TestParseRespect(t *testing.T) {
	for in, want := range map[string]string{
		"Yes": "yes", "yes": "yes", " Yes.": "yes", "Yes, see docs": "yes",
		"[Yes](https://platform.openai.com/docs/bots)": "yes",
		"No": "no", "[No](https://laion.ai/faq/)": "no", "No.": "no",
		"Not documented": "unknown", "Nobody knows": "unknown", "Yesterday": "unknown",
		"Unclear at this time.": "unknown", "At the discretion of Diffbot users.": "unknown",
		"At the [discretion](https://example.com) of Lightpanda users.": "unknown",
		"[Nope](x)": "unknown", "": "unknown",
	} {
		if got := ParseRespect(in); got != want {
			t.Errorf("ParseRespect(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOperatorName(t *testing.T) {
	for in, want := range map[string]string{
		"[OpenAI](https://openai.com)":                                          "OpenAI",
		"[Large-scale Artificial Intelligence Open Network](https://laion.ai/)": "Large-scale Artificial Intelligence Open Network",
		"[The Agent Times](https://theagenttimes.com/about)":                    "The Agent Times",
		"[Velen Crawler](https://velen.io)":                                     "Velen", // a row overrides a link
		"Unclear at this time.":                                                 "",
		"Unknown":                                                               "",
		"Meta/Facebook":                                                         "Meta",
		"https://brightdata.com/brightbot":                                      "Bright Data",
		"Kagi that fetches web content to answer user queries through Kagi AI, their suite of AI-powered tools including Assistant, Res\u2026": "Kagi",
	} {
		got, err := OperatorName(in)
		if err != nil || got != want {
			t.Errorf("OperatorName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	// Nothing is taken as a name without a row, but a single link; and no link text that
	// reads as a description passes.
	for in, want := range map[string]string{
		"NewCo":                                                      "has no row",
		"Unclear at this time":                                       "has no row",
		"NewCo, a company that scrapes":                              "has no row",
		"https://example.com/bot":                                    "has no row",
		"[A](u) and [B](v)":                                          "has no row",
		"[NewCo that fetches pages](https://x)":                      "reads as a description",
		"[NewCo](https://x) [Other](https://y)":                      "has no row",
		"[https://newco.example](https://x)":                         "which a name here does not",
		"[NewCo, a company based somewhere in the world](https://x)": "too long",
	} {
		got, err := OperatorName(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("OperatorName(%q) = %q, %v; want an error with %q", in, got, err, want)
		}
	}
}

// The operator table is reviewed against the snapshot: every row is used by
// the committed data, every row's name passes the name check, and each
// operator value of the data gives a name.
func TestOperatorsCoverSnapshotExactly(t *testing.T) {
	data, _ := readData(t)
	var m map[string]struct{ Operator string }
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for name, e := range m {
		used[e.Operator] = true
		if _, err := OperatorName(e.Operator); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for raw, name := range Operators {
		if !used[raw] {
			t.Errorf("Operators has %q, which the snapshot no longer uses: remove it", raw)
		}
		if err := checkOperatorName(name); err != nil {
			t.Errorf("Operators[%q]: %v", raw, err)
		}
	}
}

func TestUnreviewedOperatorFailsNamingIt(t *testing.T) {
	in := `{
 "GoodBot": {"operator": "[X](https://x)", "respect": "Yes", "function": "AI Data Scrapers"},
 "NewBot": {"operator": "NewCo that crawls the web for its AI", "respect": "Yes", "function": "AI Data Scrapers"}
}`
	_, err := Generate([]byte(in), []byte("Permission is hereby granted"), "x.json")
	if err == nil {
		t.Fatal("no error for an operator value without a row")
	}
	for _, want := range []string{`"NewBot"`, `"NewCo that crawls the web for its AI"`, "operators.go"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}

func TestClassify(t *testing.T) {
	for in, want := range map[string]string{
		"GPTBot": "product", "Claude-User": "product", "Factset_spyderbot": "product",
		"AI2Bot": "digits", "360Spider": "digits", "img2dataset": "digits",
		"ChatGPT Agent": "uaonly", "iaskspider/2.0": "uaonly", "panscient.com": "uaonly", "": "uaonly",
	} {
		if got := Classify(in); got != want {
			t.Errorf("Classify(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGenerateDeterministicAndOrderIndependent(t *testing.T) {
	data, lic := readData(t)
	a, err := Generate(data, lic, "data/robots.json")
	if err != nil {
		t.Fatal(err)
	}
	// The same entries in reverse order give the same bytes.
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	keys := slices.Sorted(maps.Keys(m))
	slices.Reverse(keys)
	var buf bytes.Buffer
	buf.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			buf.WriteString(",")
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteString(":")
		buf.Write(m[k])
	}
	buf.WriteString("}")
	b, err := Generate(buf.Bytes(), lic, "data/robots.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("output depends on the order of entries in robots.json")
	}
	if !bytes.HasPrefix(a, []byte("// Code generated ")) || !bytes.Contains(a, []byte("DO NOT EDIT.\n")) {
		t.Error("missing the generated-code marker")
	}
	if !bytes.Contains(a, []byte("// Permission is hereby granted")) || !bytes.Contains(a, []byte("// Copyright (c) 2024 ai.robots.txt")) {
		t.Error("the MIT notice is not in the header")
	}
	for _, s := range []string{"description", "frequency", "knownagents.com"} {
		if bytes.Contains(a, []byte(s)) {
			t.Errorf("generated table carries %q: only facts belong there", s)
		}
	}
}
