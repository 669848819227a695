// Package fieldcover tells which fields of a config type a test generator never sets, so that
// a field added to the config later cannot be left out of the property tests unnoticed.
package fieldcover

import (
	"reflect"
	"slices"
)

// Set records the fields that are set in generated values.
type Set map[string]bool

// Add records every field of v (a struct or a pointer to one, followed through pointers,
// slices, arrays and maps) that holds a value other than its zero value, by its path from
// v's type ("File.Groups.Rules.Path").
func (s Set) Add(v any) {
	rv := reflect.ValueOf(v)
	t := rv.Type()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s.add(t.String(), rv)
}

func (s Set) add(path string, v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			s.add(path, v.Elem())
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			s.add(path, v.Index(i))
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			s.add(path, it.Value())
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			fv := v.Field(i)
			p := path
			if !f.Anonymous {
				p = path + "." + f.Name
				if !fv.IsZero() {
					s[p] = true
				}
			}
			s.add(p, fv)
		}
	}
}

// Missing returns the paths of the exported fields of t (as Add names them) that Add never
// saw set, sorted. Embedded structs count as their fields.
func (s Set) Missing(t reflect.Type) []string {
	var out []string
	var walk func(path string, t reflect.Type, seen []reflect.Type)
	walk = func(path string, t reflect.Type, seen []reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || slices.Contains(seen, t) {
			return
		}
		seen = append(seen, t)
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			if f.Anonymous {
				walk(path, f.Type, seen)
				continue
			}
			p := path + "." + f.Name
			if !s[p] {
				out = append(out, p)
			}
			walk(p, f.Type, seen)
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	walk(t.String(), t, nil)
	slices.Sort(out)
	return out
}
