package prom_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/metrics/prom"
)

const dashboardFile = "../../docs/grafana/crawl-to-refer.json"

// promQLWords are the PromQL functions, aggregations and keywords the dashboard may use, and
// Grafana's variable query function; any other name in a query must be a metric we export.
var promQLWords = []string{"sum", "by", "without", "increase", "rate", "irate", "on", "ignoring", "group_left", "group_right", "label_values", "max", "min", "avg", "topk", "clamp_min", "offset", "and", "or", "unless"}

// exprs collects every PromQL text of a dashboard: panel targets' expr, variable queries
// (definition and query.query).
func exprs(v any, key string, out *[]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && (k == "expr" || k == "definition" || key == "query" && k == "query" || k == "query" && strings.Contains(s, "(")) {
				*out = append(*out, s)
				continue
			}
			exprs(x, k, out)
		}
	case []any:
		for _, x := range v {
			exprs(x, key, out)
		}
	}
}

var (
	quoted    = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	matchers  = regexp.MustCompile(`\{([^}]*)\}`)
	grouping  = regexp.MustCompile(`\b(?:by|without)\s*\(([^)]*)\)`)
	ranges    = regexp.MustCompile(`\[[^\]]*\]`)
	variables = regexp.MustCompile(`\$\{?[A-Za-z_]+\}?`)
	ident     = regexp.MustCompile(`[A-Za-z_:][A-Za-z0-9_:]*`)
	labelName = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)`)
)

// TestGrafanaDashboard: docs/grafana/crawl-to-refer.json is a dashboard Grafana can import
// (JSON with a title, a uid, a Prometheus datasource variable and panels with queries), every
// name its PromQL uses is a PromQL word or a metric this package exports, every label it
// matches or groups by is a label of those metrics as a registry serves them, and the ratio
// panel divides crawled pages by referred visits per platform.
func TestGrafanaDashboard(t *testing.T) {
	data, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	for _, k := range []string{"title", "uid", "panels", "templating", "schemaVersion"} {
		if d[k] == nil {
			t.Errorf("%s has no %s", dashboardFile, k)
		}
	}
	panels, _ := d["panels"].([]any)
	if len(panels) == 0 {
		t.Fatal("no panels")
	}

	// The labels of our metrics, as a registry serves them: count one of each.
	c := metrics.NewCounters()
	c.CrawledHTML(0, identity.Verified)
	c.Referred(0)
	c.Request(metrics.CrawlerOf("google-crawler"), identity.Verified, metrics.Allowed)
	c.RobotsTxt(metrics.CrawlerOf("google-crawler"))
	reg := prometheus.NewRegistry()
	if err := prom.Register(reg, prom.NewCollector(c)); err != nil {
		t.Fatal(err)
	}
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]bool{}
	for _, f := range fams {
		for _, l := range f.Metric[0].Label {
			labels[l.GetName()] = true
		}
	}

	var all []string
	exprs(d, "", &all)
	if len(all) < 5 {
		t.Fatalf("%d queries found: %q", len(all), all)
	}
	used := map[string]bool{}
	for _, e := range all {
		var labelsUsed []string
		for _, m := range matchers.FindAllStringSubmatch(e, -1) {
			for _, l := range labelName.FindAllStringSubmatch(m[1], -1) {
				labelsUsed = append(labelsUsed, l[1])
			}
		}
		for _, m := range grouping.FindAllStringSubmatch(e, -1) {
			for _, l := range strings.Split(m[1], ",") {
				labelsUsed = append(labelsUsed, strings.TrimSpace(l))
			}
		}
		// label_values(metric, label): the label.
		if i := strings.Index(e, "label_values("); i >= 0 {
			if _, l, ok := strings.Cut(e[i:], ","); ok {
				labelsUsed = append(labelsUsed, strings.Trim(strings.TrimSpace(l), ")"))
			}
		}
		for _, l := range labelsUsed {
			if !labels[l] {
				t.Errorf("query %q: label %q is none of our metrics' (%v)", e, l, labels)
			}
		}
		rest := quoted.ReplaceAllString(e, "")
		rest = matchers.ReplaceAllString(rest, "")
		rest = grouping.ReplaceAllString(rest, "")
		rest = ranges.ReplaceAllString(rest, "")
		rest = variables.ReplaceAllString(rest, "")
		if i := strings.Index(rest, "label_values("); i >= 0 {
			// The label after the metric was checked above.
			if j := strings.LastIndex(rest, ","); j > i {
				rest = rest[:j] + ")"
			}
		}
		for _, name := range ident.FindAllString(rest, -1) {
			switch {
			case slices.Contains(prom.Names(), name):
				used[name] = true
			case slices.Contains(promQLWords, name):
			default:
				t.Errorf("query %q: %q is neither a PromQL word nor a metric of prom.Names()", e, name)
			}
		}
	}
	for _, name := range []string{prom.CrawledHTMLName, prom.ReferredName} {
		if !used[name] {
			t.Errorf("the dashboard never uses %s", name)
		}
	}
	// The ratio: crawled pages over referred visits, both summed by platform.
	ratio := regexp.MustCompile(`(?s)sum by \(platform\) \(increase\(` + prom.CrawledHTMLName + `\{[^}]*\}\[\$__range\]\)\)\s*/\s*sum by \(platform\) \(increase\(` + prom.ReferredName + `\{[^}]*\}\[\$__range\]\)\)`)
	found := false
	for _, e := range all {
		found = found || ratio.MatchString(e)
	}
	if !found {
		t.Error("no query divides crawled HTML pages by referred visits per platform over the selected window ($__range)")
	}
}
