package caddymodule

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/policycheck"
	"github.com/sitepolicy/caddy-robots/policycheck/cli"
)

// parseError is an error of the robots directives at a place in a Caddyfile. Error is the
// message as Caddy prints it ("robots_txt: ..., at Caddyfile:12"). Caddy wraps a directive's
// error with %v, so nothing of its structure reaches the caller of the adapter: while a
// "caddy robots" command adapts its config, noteHandler keeps the problem for the command's
// --format json.
type parseError struct {
	msg  string // the message
	at   string // what follows ", at ": file:line, and the import chain when there is one
	file string
	line int
	// problem is the message for a program: Path names the handler's field when the problem
	// is about one, Value is the token or value at fault.
	problem configerr.Error
}

func (e *parseError) Error() string { return e.msg + ", at " + e.at }

// parseErrorf returns the error at the current token of d, with value the token or value at
// fault and suggestion the name it most likely meant ("" for none). The place is written as
// Caddy's own Dispenser.Errf writes it.
func parseErrorf(d *caddyfile.Dispenser, value, suggestion, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	at := strings.TrimPrefix(d.WrapErr(errors.New("")).Error(), ", at ")
	return &parseError{msg: msg, at: at, file: d.File(), line: d.Line(),
		problem: configerr.Error{Value: value, Problem: msg, Suggestion: suggestion}}
}

// errf is parseErrorf with the current token as the value at fault.
func errf(d *caddyfile.Dispenser, format string, args ...any) error {
	return parseErrorf(d, d.Val(), "", format, args...)
}

// problemsOf returns the problems of an error of the directive parsers, for caddy robots
// --format json.
func problemsOf(err error) []cli.Problem {
	var out []cli.Problem
	var walk func(error)
	walk = func(err error) {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		var pe *parseError
		if !errors.As(err, &pe) {
			out = append(out, cli.Problem{Problem: err.Error()})
			return
		}
		p := pe.problem
		out = append(out, cli.Problem{Path: p.Path, Value: p.Value, Problem: p.Problem, Suggestion: p.Suggestion,
			Location: &policycheck.Location{File: pe.file, Line: pe.line}})
	}
	walk(err)
	return out
}

// caddyLocation reads the place out of a Caddyfile error of Caddy's own ("Caddyfile:3:
// unrecognized directive: robots_txtt", "..., at Caddyfile:3"), for the errors that do not
// come from the robots directives; ok is false when the message names none.
func caddyLocation(msg string) (p cli.Problem, ok bool) {
	if m := unrecognizedDirective.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[2])
		return cli.Problem{Value: m[3], Problem: msg, Location: &policycheck.Location{File: m[1], Line: line}}, true
	}
	if m := wrappedAt.FindAllStringSubmatch(msg, -1); m != nil {
		last := m[len(m)-1]
		line, _ := strconv.Atoi(last[2])
		return cli.Problem{Problem: msg, Location: &policycheck.Location{File: last[1], Line: line}}, true
	}
	return p, false
}

var (
	unrecognizedDirective = regexp.MustCompile(`(\S+):(\d+): unrecognized directive: (\S+)`)
	wrappedAt             = regexp.MustCompile(`, at (\S+):(\d+)(?: import chain|$|\n)`)
)
