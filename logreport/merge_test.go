package logreport_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/logreport"
	"github.com/sitepolicy/caddy-robots/policycheck"
)

// TestMergeEveryField: every field of a report is counted in the generated fleet's logs (not
// zero in any of its rows), and the report of workers that each read a part, merged, is the
// sequential run's. A field added to the report or to what a Builder counts, and not merged
// (Builder.merge and the merge methods of its parts), fails here; so does one the generator
// does not exercise: extend fleetLogs (gen_test.go's generator) to count it.
func TestMergeEveryField(t *testing.T) {
	n := 2000
	if raceEnabled {
		n = 400
	}
	files := fleetLogs(n)
	site := loadSite(t, true)
	rp, err := policycheck.NewReplay(site, "https://example.com")
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	seq, seqOut, _ := reportWith(t, rp, "example.com", memLogs(files), 1)
	// Fields a report's reading does not fill: the site is the command's to describe.
	notCounted := map[string]bool{"Report.Site": true, "Report.Notes": true}
	for _, f := range zeroFields(reflect.ValueOf(seq).Elem(), notCounted) {
		t.Errorf("%s is zero wherever it is in the generated logs' report: make fleetLogs count it, and merge it", f)
	}
	// Small chunks, so that each worker reads parts of every log.
	defer logreport.SetChunkSize(2048, 512)()
	for workers := 2; workers <= 4; workers++ {
		par, parOut, _ := reportWith(t, rp, "example.com", memLogs(files), workers)
		if !reflect.DeepEqual(par, seq) {
			for _, f := range diffFields(reflect.ValueOf(par).Elem(), reflect.ValueOf(seq).Elem(), "") {
				t.Errorf("%d workers: %s differs from the sequential run's: not merged?", workers, f)
			}
		}
		if parOut != seqOut {
			t.Errorf("%d workers: the outputs differ from the sequential run's", workers)
		}
	}
}

// zeroFields are the fields (as Type.Field) of the structs of v's type, through pointers,
// slices and structs (maps, times and other values are leaves), that are zero wherever they
// occur in v, less those of skip. A type in two places (Report.Crawlers and Report.Tools
// are both of Crawler) has its fields set when they are in one.
func zeroFields(v reflect.Value, skip map[string]bool) []string {
	set := map[string]bool{}
	isStruct := func(t reflect.Type) bool { return t.Kind() == reflect.Struct && t != reflect.TypeFor[time.Time]() }
	var all []string
	seen := map[reflect.Type]bool{}
	var types func(t reflect.Type)
	types = func(t reflect.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		for f := range t.Fields() {
			name := t.Name() + "." + f.Name
			if !f.IsExported() || skip[name] {
				continue
			}
			all = append(all, name)
			ft := f.Type
			for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
				ft = ft.Elem()
			}
			if isStruct(ft) {
				types(ft)
			}
		}
	}
	types(v.Type())
	var values func(v reflect.Value)
	values = func(v reflect.Value) {
		switch {
		case v.Kind() == reflect.Pointer:
			if !v.IsNil() {
				values(v.Elem())
			}
		case v.Kind() == reflect.Slice:
			for i := range v.Len() {
				values(v.Index(i))
			}
		case isStruct(v.Type()):
			for i := range v.NumField() {
				f := v.Type().Field(i)
				if !f.IsExported() {
					continue
				}
				name := v.Type().Name() + "." + f.Name
				fv := v.Field(i)
				set[name] = set[name] || !fv.IsZero() && !(fv.Kind() == reflect.Map || fv.Kind() == reflect.Slice) || (fv.Kind() == reflect.Map || fv.Kind() == reflect.Slice) && fv.Len() > 0
				values(fv)
			}
		}
	}
	values(v)
	var zero []string
	for _, name := range all {
		if !set[name] {
			zero = append(zero, name)
		}
	}
	slices.Sort(zero)
	return zero
}

// diffFields are the paths of the leaves where a and b differ.
func diffFields(a, b reflect.Value, path string) []string {
	switch {
	case a.Kind() == reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return []string{path}
			}
			return nil
		}
		return diffFields(a.Elem(), b.Elem(), path)
	case a.Kind() == reflect.Slice && a.Len() == b.Len():
		var out []string
		for i := range a.Len() {
			out = append(out, diffFields(a.Index(i), b.Index(i), path+"[]")...)
		}
		return out
	case a.Kind() == reflect.Struct && a.Type() != reflect.TypeFor[time.Time]():
		var out []string
		for i := range a.NumField() {
			if f := a.Type().Field(i); f.IsExported() {
				out = append(out, diffFields(a.Field(i), b.Field(i), strings.TrimPrefix(path+"."+f.Name, "."))...)
			}
		}
		return out
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		return []string{path}
	}
	return nil
}
