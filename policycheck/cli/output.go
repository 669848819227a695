package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/policycheck"
)

// LintResult is the JSON output of lint.
type LintResult struct {
	// Findings are the findings, sorted by place; [] when there are none.
	Findings []policycheck.Finding `json:"findings"`
	// Failed is true when a finding is a warning or an error (lint exits 1).
	Failed bool `json:"failed"`
}

// newLintResult wraps findings.
func newLintResult(findings []policycheck.Finding) LintResult {
	r := LintResult{Findings: findings}
	if r.Findings == nil {
		r.Findings = []policycheck.Finding{}
	}
	for _, f := range findings {
		r.Failed = r.Failed || f.Severity.AtLeastWarning()
	}
	return r
}

// writeText writes one finding per paragraph, then a count.
func (r LintResult) writeText(w io.Writer) error {
	var b strings.Builder
	counts := map[policycheck.Severity]int{}
	for _, f := range r.Findings {
		b.WriteString(f.String())
		b.WriteString("\n")
		counts[f.Severity]++
	}
	if len(r.Findings) == 0 {
		b.WriteString("no findings\n")
	} else {
		fmt.Fprintf(&b, "%s, %s, %s\n", plural(counts[policycheck.SeverityError], "error"), plural(counts[policycheck.SeverityWarning], "warning"), plural(counts[policycheck.SeverityInfo], "info"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeJSON writes the result as indented JSON.
func (r LintResult) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// ErrorReport is what check and lint print on standard output with --format json when they
// fail with status 2, so that a script reading their output always gets JSON.
type ErrorReport struct {
	// Error is the whole message, as printed on standard error.
	Error string `json:"error"`
	// Problems are the errors in it: one per config error, with its field path
	// (configerr.Error) or, for a Caddyfile, its line; a usage error or an unreadable file is
	// one problem with neither.
	Problems []Problem `json:"problems"`
}

// Problem is one config error of an ErrorReport.
type Problem struct {
	// Path names the field at fault in the JSON form of the config, e.g.
	// "robots_txt.groups[0].user_agents[1]". For a Caddyfile it is the field of the
	// directive's handler (as "caddy adapt" writes the handler), e.g. "groups[0].rules[1].path",
	// when the problem concerns one; "" otherwise (an unknown sub-directive, a missing
	// argument).
	Path string `json:"path"`
	// Value is the offending value as written: for a Caddyfile, the token at fault (the
	// misspelt sub-directive, the argument that is not a duration); "" when the problem is a
	// missing value or concerns the whole field.
	Value string `json:"value"`
	// Problem says what is wrong and what is allowed.
	Problem string `json:"problem"`
	// Suggestion is a likely intended value (the closest known name to a misspelt one), if
	// there is one.
	Suggestion string `json:"suggestion,omitempty"`
	// Location is where in the config file the problem is, for a config with lines (a
	// Caddyfile): the file as given and the line (json_path is absent, as the adapter
	// produced no JSON). Absent for JSON, whose Path says where.
	Location *policycheck.Location `json:"location,omitempty"`
}

// FileError is a config error whose problems the loader of a config file (the Caddyfile
// adapter) knew one by one with their lines, although its message does not carry them:
// WriteErrorJSON reports Problems instead of reading the message.
type FileError struct {
	Err      error
	Problems []Problem
}

func (e *FileError) Error() string { return e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// WriteErrorJSON writes err as an ErrorReport.
func WriteErrorJSON(w io.Writer, err error) error {
	r := ErrorReport{Error: err.Error(), Problems: []Problem{}}
	var fe *FileError
	if errors.As(err, &fe) && len(fe.Problems) > 0 {
		r.Problems = append(r.Problems, fe.Problems...)
	} else {
		for _, e := range configerr.All(err) {
			r.Problems = append(r.Problems, Problem{Path: e.Path, Value: e.Value, Problem: e.Problem, Suggestion: e.Suggestion})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
