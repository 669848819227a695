package policy

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/sitepolicy/caddy-robots/configerr"
)

// ReplaceStrings returns a copy of v (a Config or any part of one) in which every string of
// its JSON form (field values, list elements, map keys and map values) is what f returns
// for it, e.g. with environment variables expanded. v itself is not modified. f is given
// the string's field path as configerr names it ("groups[2].rules[0].path",
// `rules["*"][1]`; a map key has the path of its entry, `content_usage["train-ai"]`).
//
// Walking the types rather than naming their fields means that a field added to the config
// is replaced too, without anyone remembering to. Fields outside the JSON form (Route.Match)
// are copied as they are. When f makes two keys of a map equal, their lists are joined (two
// rule tokens become one); for values that are not lists, that is an error. The errors f
// returns are joined, each wrapped with its path unless it is a *configerr.Error.
func ReplaceStrings[T any](v T, f func(path, s string) (string, error)) (T, error) {
	r := replacer{f: f}
	out := r.value("", reflect.ValueOf(&v).Elem())
	var res T
	reflect.ValueOf(&res).Elem().Set(out)
	return res, errors.Join(r.errs...)
}

type replacer struct {
	f    func(path, s string) (string, error)
	errs []error
}

func (r *replacer) str(path, s string) string {
	out, err := r.f(path, s)
	if err != nil {
		var ce *configerr.Error
		if !errors.As(err, &ce) {
			err = configerr.New(path, s, err.Error())
		}
		r.errs = append(r.errs, err)
		return s
	}
	return out
}

// value returns a copy of v with its strings replaced; path is v's field path.
func (r *replacer) value(path string, v reflect.Value) reflect.Value {
	out := reflect.New(v.Type()).Elem()
	switch v.Kind() {
	case reflect.String:
		out.SetString(r.str(path, v.String()))
	case reflect.Pointer:
		if v.IsNil() {
			return out
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(r.value(path, v.Elem()))
		out.Set(p)
	case reflect.Interface:
		if v.IsNil() {
			return out
		}
		out.Set(r.value(path, v.Elem()))
	case reflect.Slice:
		if v.IsNil() {
			return out
		}
		out.Set(reflect.MakeSlice(v.Type(), v.Len(), v.Len()))
		for i := range v.Len() {
			out.Index(i).Set(r.value(configerr.Index(path, i), v.Index(i)))
		}
	case reflect.Array:
		for i := range v.Len() {
			out.Index(i).Set(r.value(configerr.Index(path, i), v.Index(i)))
		}
	case reflect.Map:
		r.mapValue(path, v, out)
	case reflect.Struct:
		// Unexported fields and those outside the JSON form are copied as they are.
		out.Set(v)
		t := v.Type()
		for i := range t.NumField() {
			sf := t.Field(i)
			name, ok := jsonName(sf)
			if !ok {
				continue
			}
			p := path
			if name != "" {
				p = configerr.JoinPath(path, name)
			}
			out.Field(i).Set(r.value(p, v.Field(i)))
		}
	default:
		out.Set(v)
	}
	return out
}

// mapValue fills out, a new map, with v's entries, keys and values replaced, in key order so
// that joined lists come out the same every time.
func (r *replacer) mapValue(path string, v, out reflect.Value) {
	if v.IsNil() {
		return
	}
	out.Set(reflect.MakeMapWithSize(v.Type(), v.Len()))
	keys := v.MapKeys()
	slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	for _, k := range keys {
		entry := configerr.Key(path, fmt.Sprint(k))
		nk := k
		if k.Kind() == reflect.String {
			nk = reflect.New(k.Type()).Elem()
			nk.SetString(r.str(entry, k.String()))
		}
		nv := r.value(entry, v.MapIndex(k))
		if prev := out.MapIndex(nk); prev.IsValid() {
			if nv.Kind() != reflect.Slice {
				r.errs = append(r.errs, configerr.New(entry, k.String(), fmt.Sprintf("becomes the key %q, which the object already has", nk.String())))
				continue
			}
			nv = reflect.AppendSlice(prev, nv)
		}
		out.SetMapIndex(nk, nv)
	}
}

// jsonName is the name of sf in the JSON form: "" for an embedded struct whose fields are
// inlined, ok false for a field the JSON form does not have.
func jsonName(sf reflect.StructField) (name string, ok bool) {
	if !sf.IsExported() {
		return "", false
	}
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return "", false
	}
	name, _, _ = strings.Cut(tag, ",")
	if name == "" && !sf.Anonymous {
		name = sf.Name
	}
	return name, true
}
