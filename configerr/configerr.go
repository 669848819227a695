// Package configerr is the error every caddy-robots check reports about a configuration: the
// path of the field, the value found there, the problem, and a suggestion when there is one.
//
// Every front end reads the same config structs and returns these errors: the JSON front ends
// (Caddy's JSON, nethttp.NewFromJSON) print the path, e.g.
//
//	robots_txt.groups[2].rules[0].path "/a#b": a pattern must not contain "#" (it starts a comment); write %23
//
// and the Caddyfile adapter maps the path back to the line that produced the field.
package configerr

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Error is one problem in a configuration.
type Error struct {
	// Path names the field in the JSON form of the config, e.g. "groups[2].rules[0].path"
	// or `rules["googlebot"][1]`; "" for the config as a whole.
	Path string
	// Value is the offending value as written; "" when the problem is a missing value or
	// concerns the whole field.
	Value string
	// Problem says what is wrong and what is allowed.
	Problem string
	// Suggestion is a likely intended value (a known rule close to a mistyped one), or "".
	Suggestion string
}

// Error formats e as `path "value": problem (did you mean "suggestion"?)`, leaving out what
// is empty.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Value != "" {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Quote(e.Value))
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.Problem)
	if e.Suggestion != "" {
		b.WriteString(" (did you mean ")
		b.WriteString(strconv.Quote(e.Suggestion))
		b.WriteString("?)")
	}
	return b.String()
}

// Message is the problem without the path: what a front end that names the place its own
// way (a Caddyfile line) prints.
func (e *Error) Message() string {
	c := *e
	c.Path = ""
	return c.Error()
}

// New returns an *Error.
func New(path, value, problem string) *Error {
	return &Error{Path: path, Value: value, Problem: problem}
}

// Join combines errors as errors.Join does (nil if there are none).
func Join(errs ...error) error { return errors.Join(errs...) }

// Prefix returns err with every *Error in it re-rooted under prefix: "groups[0]" under
// "robots_txt" becomes "robots_txt.groups[0]", "[1].rules" under "robots_tag" becomes
// "robots_tag[1].rules". An error of another type is wrapped as an *Error at prefix. It
// returns nil for a nil err.
func Prefix(prefix string, err error) error {
	return mapPaths(err, func(p string) string { return JoinPath(prefix, p) })
}

// Reroot returns err with the *Errors whose path is under from (from itself, or from
// followed by "." or "[") moved under to, e.g. "robots_tag[1].rules" from "robots_tag[1]" to
// "routes[3].handle[0]" becomes "routes[3].handle[0].rules"; "robots_tag[10]" is not under
// "robots_tag[1]". Other errors keep their paths; an error of another type becomes an *Error
// with no path, as All says. It returns nil for a nil err.
func Reroot(err error, from, to string) error {
	return mapPaths(err, rerooter(from, to))
}

// RerootAll returns copies of es with their paths moved as Reroot moves them: for lists of
// warnings, which are not joined into an error.
func RerootAll(es []*Error, from, to string) []*Error {
	return mapAll(es, rerooter(from, to))
}

// mapAll returns copies of es with f applied to their paths.
func mapAll(es []*Error, f func(string) string) []*Error {
	out := make([]*Error, len(es))
	for i, e := range es {
		c := *e
		c.Path = f(c.Path)
		out[i] = &c
	}
	return out
}

func rerooter(from, to string) func(string) string {
	return func(p string) string {
		if rest, ok := under(p, from); ok {
			return JoinPath(to, rest)
		}
		return p
	}
}

// mapPaths returns copies of the *Errors in err (All) with f applied to their paths, joined;
// nil for a nil err.
func mapPaths(err error, f func(string) string) error {
	if err == nil {
		return nil
	}
	all := mapAll(All(err), f)
	out := make([]error, len(all))
	for i, e := range all {
		out[i] = e
	}
	return errors.Join(out...)
}

// under reports whether path is from or below it, and the rest of path after from.
func under(path, from string) (string, bool) {
	rest, ok := strings.CutPrefix(path, from)
	switch {
	case !ok:
		return "", false
	case from == "" || rest == "":
		return rest, true
	case rest[0] == '.':
		return rest[1:], true
	case rest[0] == '[':
		return rest, true
	}
	return "", false
}

// JoinPath appends a field path to a parent path.
func JoinPath(parent, path string) string {
	switch {
	case parent == "":
		return path
	case path == "":
		return parent
	case path[0] == '[':
		return parent + path
	}
	return parent + "." + path
}

// Key formats a map key as a path element, e.g. Key("rules", "*") is `rules["*"]`.
func Key(path, key string) string { return path + "[" + strconv.Quote(key) + "]" }

// Index formats a list index as a path element, e.g. Index("groups", 2) is "groups[2]".
func Index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// All returns every *Error in err, in order, looking through errors.Join trees and
// wrapping. An error that is not (and wraps no) *Error becomes an *Error with no path
// whose Problem is its text.
func All(err error) []*Error {
	var out []*Error
	var walk func(error)
	walk = func(err error) {
		if err == nil {
			return
		}
		if e, ok := err.(*Error); ok {
			out = append(out, e)
			return
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		var e *Error
		if errors.As(err, &e) {
			out = append(out, e)
			return
		}
		out = append(out, &Error{Problem: err.Error()})
	}
	walk(err)
	return out
}

// PrefixAll returns copies of es re-rooted under prefix, as Prefix does: for lists of
// warnings, which are not joined into an error.
func PrefixAll(prefix string, es []*Error) []*Error {
	return mapAll(es, func(p string) string { return JoinPath(prefix, p) })
}

// ParentPath drops the last element of a field path: "groups[1].rules[0]" ->
// "groups[1].rules" -> "groups[1]" -> "groups" -> "".
func ParentPath(path string) string {
	if strings.HasSuffix(path, "]") {
		if i := strings.LastIndexByte(path, '['); i >= 0 {
			return path[:i]
		}
	}
	if i := strings.LastIndexAny(path, ".["); i >= 0 {
		return path[:i]
	}
	return ""
}

// Resolve returns the value a field path names in a decoded JSON document (the value
// encoding/json decodes into an any): "groups[2].rules[0].path", `rules["*"][1]`. Tests
// use it to check that the paths of errors and records name real fields.
func Resolve(doc any, path string) (any, error) {
	cur := doc
	for rest := path; rest != ""; {
		switch {
		case strings.HasPrefix(rest, `["`):
			end := strings.Index(rest, `"]`)
			for end > 0 && rest[end-1] == '\\' {
				next := strings.Index(rest[end+1:], `"]`)
				if next < 0 {
					end = -1
					break
				}
				end += 1 + next
			}
			if end < 0 {
				return nil, fmt.Errorf("unterminated key in %q", path)
			}
			key, err := strconv.Unquote(rest[1 : end+1])
			if err != nil {
				return nil, fmt.Errorf("key %s: %w", rest[1:end+1], err)
			}
			obj, ok := cur.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%q is not an object", key)
			}
			if cur, ok = obj[key]; !ok {
				return nil, fmt.Errorf("no key %q", key)
			}
			rest = rest[end+2:]
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("unterminated index in %q", path)
			}
			i, err := strconv.Atoi(rest[1:end])
			if err != nil {
				return nil, err
			}
			list, ok := cur.([]any)
			if !ok || i < 0 || i >= len(list) {
				return nil, fmt.Errorf("no element %d", i)
			}
			cur, rest = list[i], rest[end+1:]
		default:
			rest = strings.TrimPrefix(rest, ".")
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			obj, ok := cur.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%q: not an object", rest[:end])
			}
			if cur, ok = obj[rest[:end]]; !ok {
				return nil, fmt.Errorf("no field %q", rest[:end])
			}
			rest = rest[end:]
		}
	}
	return cur, nil
}
