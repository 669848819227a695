package policycheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/configerr"
)

// TestWriteErrorJSON: a FileError reports its problems with their locations; other errors
// report their configerr.Errors by field path; anything else is one problem.
func TestWriteErrorJSON(t *testing.T) {
	fileProblems := []Problem{
		{Value: "dissallow", Problem: "unknown sub-directive", Suggestion: "disallow", Location: &Location{File: "Caddyfile", Line: 4}},
		{Path: "max_age", Value: "2d", Problem: "at most 24h", Location: &Location{File: "Caddyfile", Line: 7}},
	}
	for _, c := range []struct {
		name string
		err  error
		want []Problem
	}{
		{"file error", fmt.Errorf("loading: %w", &FileError{Err: errors.New("adapting config: ..., at Caddyfile:4"), Problems: fileProblems}), fileProblems},
		{"field errors", configerr.Join(&configerr.Error{Path: `robots_tag[0].rules["*"][0]`, Value: "noindx", Problem: "unknown rule", Suggestion: "noindex"}, configerr.New("robots_txt.max_age", "48h0m0s", "at most 24h")),
			[]Problem{{Path: `robots_tag[0].rules["*"][0]`, Value: "noindx", Problem: "unknown rule", Suggestion: "noindex"}, {Path: "robots_txt.max_age", Value: "48h0m0s", Problem: "at most 24h"}}},
		{"file error without problems", &FileError{Err: errors.New("open Caddyfile: no such file")}, []Problem{{Problem: "open Caddyfile: no such file"}}},
		{"plain error", errors.New("--url is required"), []Problem{{Problem: "--url is required"}}},
	} {
		var b bytes.Buffer
		if err := WriteErrorJSON(&b, c.err); err != nil {
			t.Fatal(err)
		}
		var r ErrorReport
		dec := json.NewDecoder(&b)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if r.Error != c.err.Error() {
			t.Errorf("%s: error %q, want %q", c.name, r.Error, c.err.Error())
		}
		got, _ := json.Marshal(r.Problems)
		want, _ := json.Marshal(c.want)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: problems\n%s\nwant\n%s", c.name, got, want)
		}
	}
	// Without a location the member is left out, as the Go doc of Problem says.
	var b bytes.Buffer
	_ = WriteErrorJSON(&b, errors.New("x"))
	if strings.Contains(b.String(), "location") {
		t.Errorf("a problem without a location has one: %s", b.String())
	}
}

func TestCheckFormat(t *testing.T) {
	for format, want := range map[string]string{
		"text": "", "json": "",
		"jsno":  `--format "jsno": want text or json (did you mean "json"?)`,
		"JSON":  `--format "JSON": want text or json (did you mean "json"?)`,
		"txt":   `--format "txt": want text or json (did you mean "text"?)`,
		"xml":   `--format "xml": want text or json`,
		"yaml!": `--format "yaml!": want text or json`,
	} {
		err := CheckFormat(format)
		if got := fmt.Sprint(err); (want == "" && err != nil) || (want != "" && got != want) {
			t.Errorf("CheckFormat(%q) = %v, want %q", format, err, want)
		}
	}
}
