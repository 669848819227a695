package configerr_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/sitepolicy/caddy-robots/configerr"
)

func TestErrorFormat(t *testing.T) {
	cases := []struct {
		e    configerr.Error
		want string
	}{
		{configerr.Error{Path: "groups[0].rules[1].path", Value: "/a#b", Problem: "no #"}, `groups[0].rules[1].path "/a#b": no #`},
		{configerr.Error{Path: `rules["*"][0]`, Value: "noindx", Problem: "unknown rule", Suggestion: "noindex"}, `rules["*"][0] "noindx": unknown rule (did you mean "noindex"?)`},
		{configerr.Error{Path: "groups[1]", Problem: "needs an agent"}, `groups[1]: needs an agent`},
		{configerr.Error{Problem: "too big"}, `too big`},
	}
	for _, c := range cases {
		if got := c.e.Error(); got != c.want {
			t.Errorf("got %s, want %s", got, c.want)
		}
	}
	e := configerr.Error{Path: "max_age", Value: "2d", Problem: "at most 24h"}
	if got := e.Message(); got != `"2d": at most 24h` {
		t.Errorf("Message() = %s", got)
	}
}

func TestPrefixAndAll(t *testing.T) {
	err := errors.Join(
		configerr.New("groups[0]", "", "a"),
		fmt.Errorf("wrapped: %w", configerr.New("[2].rules", "x", "b")),
		errors.New("plain"),
	)
	got := configerr.All(configerr.Prefix("robots_txt", err))
	want := []string{"robots_txt.groups[0]", "robots_txt[2].rules", "robots_txt"}
	if len(got) != len(want) {
		t.Fatalf("got %d errors", len(got))
	}
	for i, e := range got {
		if e.Path != want[i] {
			t.Errorf("error %d path %q, want %q", i, e.Path, want[i])
		}
	}
	if got[2].Problem != "plain" {
		t.Errorf("a plain error became %+v", got[2])
	}
	if configerr.Prefix("x", nil) != nil {
		t.Error("Prefix(nil) is not nil")
	}
	var fe *configerr.Error
	if !errors.As(configerr.Prefix("a", configerr.New("b", "", "c")), &fe) || fe.Path != "a.b" {
		t.Errorf("errors.As on a prefixed error: %+v", fe)
	}
	if got := configerr.Key(configerr.Index("robots_tag", 1)+".rules", "*"); got != `robots_tag[1].rules["*"]` {
		t.Errorf("path helpers: %s", got)
	}
}

func TestRerootAll(t *testing.T) {
	ws := []*configerr.Error{{Path: "robots_tag[1].rules"}, {Path: "robots_tag[10].rules"}, {Path: "robots_tag[1]"}}
	got := configerr.RerootAll(ws, "robots_tag[1]", "")
	if got[0].Path != "rules" || got[1].Path != "robots_tag[10].rules" || got[2].Path != "" || ws[0].Path != "robots_tag[1].rules" {
		t.Errorf("RerootAll: %q %q %q (input %q)", got[0].Path, got[1].Path, got[2].Path, ws[0].Path)
	}
}

func TestResolve(t *testing.T) {
	var doc any
	if err := json.Unmarshal([]byte(`{"groups": [{"rules": [{"path": "/a"}]}], "rules": {"*": ["noindex"], "a\"]b": ["x"]}}`), &doc); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]any{
		"groups[0].rules[0].path": "/a",
		`rules["*"][0]`:           "noindex",
		`rules["a\"]b"][0]`:       "x",
	} {
		if got, err := configerr.Resolve(doc, path); err != nil || got != want {
			t.Errorf("Resolve(%s) = %v, %v; want %v", path, got, err, want)
		}
	}
	for _, path := range []string{"groups[1]", "groups[0].rule", `rules["x"]`, "groups[x]", `rules["*"`, "groups.rules", "groups[-1]"} {
		if got, err := configerr.Resolve(doc, path); err == nil {
			t.Errorf("Resolve(%s) = %v, want an error", path, got)
		}
	}
}
