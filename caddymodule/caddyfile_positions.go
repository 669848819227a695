package caddymodule

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/sitepolicy/caddy-robots/configerr"
)

// positions is the one mapping from a handler's (or the crawlers app's) JSON field paths to
// the Caddyfile lines they come from: as the adapter reads the Caddyfile into the config, it
// records the line of each field it fills, and a config error of the core, which names a
// field by its path (configerr), is reported at that field's line (report). The adapter names
// no path itself: it gives a pointer to the field in the config it fills (root), and the path
// is found from the config's JSON names (fieldPath), so that the paths cannot drift from the
// schema.
type positions struct {
	directive string
	file      string
	line      int
	root      any // a pointer to the config the JSON paths are relative to
	byPath    map[string]position
	// written are the values as the Caddyfile wrote them, and their sub-directives, for the
	// fields the adapter converts (a duration, a number): the core's errors show the
	// converted value ("48h0m0s" for 2d), and a message must show what the user wrote.
	written map[string][2]string
	d       *caddyfile.Dispenser
}

type position struct {
	file string
	line int
}

// newPositions starts the positions of directive, whose config is root, at the current
// token of d.
func newPositions(d *caddyfile.Dispenser, directive string, root any) *positions {
	p := &positions{directive: directive, file: d.File(), line: d.Line(), root: root, byPath: map[string]position{}, written: map[string][2]string{}, d: d}
	notePositions(d, p)
	return p
}

// entry names the entry key of the map field m (a pointer to it) for mark.
type entry struct {
	m   any
	key string
}

// mark records that the field (a pointer into the config, or an entry) comes from the
// current token.
func (p *positions) mark(field any) {
	p.byPath[p.path(field)] = position{p.d.File(), p.d.Line()}
}

// markWritten is mark for a field whose value the adapter converted from text, the argument
// of sub.
func (p *positions) markWritten(field any, sub, text string) {
	p.mark(field)
	p.written[p.path(field)] = [2]string{sub, text}
}

// path is the JSON path of field in the config. A field outside the config is the adapter's
// mistake, which TestRecordedPathsNameFields and TestFieldPath catch.
func (p *positions) path(field any) string {
	if e, ok := field.(entry); ok {
		return configerr.Key(p.path(e.m), e.key)
	}
	path, ok := fieldPath(p.root, field)
	if !ok {
		// Named so that it matches no error, and TestRecordedPathsNameFields fails on it.
		return fmt.Sprintf("(%T: not a field of the config)", field)
	}
	return path
}

// fieldPath is the JSON path, in the config root points to, of the value field points to,
// and whether root holds it: "groups[1].rules[0]", `rules["*"][2]`. A struct embedded
// without a JSON name is inline, as encoding/json reads it.
func fieldPath(root, field any) (string, bool) {
	f := reflect.ValueOf(field)
	if f.Kind() != reflect.Pointer || f.IsNil() {
		return "", false
	}
	return findField(reflect.ValueOf(root), "", f.Pointer(), f.Type().Elem())
}

func findField(v reflect.Value, path string, addr uintptr, typ reflect.Type) (string, bool) {
	if v.CanAddr() && v.UnsafeAddr() == addr && v.Type() == typ {
		return path, true
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			return findField(v.Elem(), path, addr, typ)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			sf := v.Type().Field(i)
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if !sf.IsExported() || name == "-" {
				continue
			}
			fp := path
			if !sf.Anonymous || name != "" {
				fp = configerr.JoinPath(path, cmp.Or(name, sf.Name))
			}
			if s, ok := findField(v.Field(i), fp, addr, typ); ok {
				return s, true
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			if s, ok := findField(v.Index(i), configerr.Index(path, i), addr, typ); ok {
				return s, true
			}
		}
	case reflect.Map:
		// A map's values are not addressable, but the elements of a slice value are.
		for it := v.MapRange(); it.Next(); {
			if it.Key().Kind() == reflect.String {
				if s, ok := findField(it.Value(), configerr.Key(path, it.Key().String()), addr, typ); ok {
					return s, true
				}
			}
		}
	}
	return "", false
}

// report maps each of the core's errors to the line of the field it names (the nearest
// marked parent field, else the directive). Errors about a value with a placeholder, and
// whole-config errors while a placeholder is pending, wait for Provision, which checks the
// replaced values.
func (p *positions) report(err error, pending bool) error {
	var errs []error
	for _, e := range configerr.All(err) {
		if strings.Contains(e.Value, "{") || strings.Contains(e.Path, "{") || (pending && !p.marked(e.Path)) {
			continue
		}
		pos := p.lineOf(e.Path)
		c, msg := *e, p.directive+": "
		if w, ok := p.written[c.Path]; ok && c.Value != "" {
			msg += w[0] + " "
			c.Value = w[1]
		}
		errs = append(errs, &parseError{msg: msg + c.Message(), at: fmt.Sprintf("%s:%d", pos.file, pos.line), file: pos.file, line: pos.line, problem: c})
	}
	return errors.Join(errs...)
}

// lineOf is the position of the field at path: of the nearest marked parent field, else of
// the directive.
func (p *positions) lineOf(path string) position {
	for ; path != ""; path = configerr.ParentPath(path) {
		if q, ok := p.byPath[path]; ok {
			return q
		}
	}
	return position{p.file, p.line}
}

// marked reports whether path or a parent of it names a field the Caddyfile set.
func (p *positions) marked(path string) bool {
	for ; path != ""; path = configerr.ParentPath(path) {
		if _, ok := p.byPath[path]; ok {
			return true
		}
	}
	return false
}
