package logreport_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestJSONSchemaDocumented: every field of a report's JSON, at every depth, is named in the
// row of docs/report.md's JSON schema table for its top-level field, and every top-level
// field the table names is in the JSON. The report has every kind of row (crawlers, tools,
// impostors, violations, unreadable lines, notes).
func TestJSONSchemaDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/report.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "### JSON schema")
	if !ok {
		t.Fatal("docs/report.md has no JSON schema section")
	}
	rows := map[string]string{} // top-level field -> its row
	name := regexp.MustCompile("`([a-z_]+)")
	for _, l := range strings.Split(table, "\n") {
		cells := strings.Split(l, "|")
		if len(cells) < 3 || !strings.Contains(cells[1], "`") {
			continue
		}
		for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
			rows[m[1]] += l
		}
	}
	site := loadSite(t, true)
	reqs := generate(5, 3000, time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), 72*time.Hour, true)
	log, _ := render(reqs, "caddy")
	rep := build(t, site, "", map[string][]byte{"access.log": append(log, "not a log line\n"...)}, "access.log")
	rep.Notes = []string{"a note"}
	rep.Site.Hosts = []string{"example.com"}
	if len(rep.Tools) == 0 || len(rep.Impostors) == 0 || rep.Totals.Violations == 0 || rep.Unreadable.Count == 0 {
		t.Fatalf("the traffic lacks a kind of row: %d tools, %d impostors, %+v", len(rep.Tools), len(rep.Impostors), rep.Totals)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	for top, val := range v {
		row, ok := rows[top]
		if !ok {
			t.Errorf("JSON field %q has no row in docs/report.md's schema", top)
			continue
		}
		for _, k := range keys(val, nil) {
			if !strings.Contains(row, "`"+k+"`") && !strings.Contains(row, "`"+k+"[]`") && !strings.Contains(row, "`"+top+"."+k+"`") {
				t.Errorf("JSON field %s.…%s is not named in its row of docs/report.md's schema", top, k)
			}
		}
	}
	for top := range rows {
		if _, ok := v[top]; !ok {
			t.Errorf("docs/report.md's schema names %q, which the JSON does not have", top)
		}
	}
}

// keys are the object keys under v at every depth, but those of maps keyed by data
// (statuses, formats: their keys are statuses and format names).
func keys(v any, out []string) []string {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
			if k != "statuses" && k != "formats" {
				out = keys(e, out)
			}
		}
	case []any:
		for _, e := range v {
			out = keys(e, out)
		}
	}
	return out
}
