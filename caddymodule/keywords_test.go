package caddymodule

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
)

// misplacedCaddyfiles are sub-directives a new user misspells or puts in the wrong block, in
// each block of both directives. The marked line is the one the error must name; want are
// parts of the message.
var misplacedCaddyfiles = []struct {
	name, site string
	want       []string
}{
	// robots_txt's block: misspellings.
	{"robots_txt sitmap", "robots_txt {\n\tsitmap /s.xml # <-\n}", []string{`robots_txt: unknown sub-directive "sitmap" (want comment, sitemap, group, preset, record, max_age, enforce, merge_file, merge_upstream, license, license_document, pay, metrics or log_violations) (did you mean "sitemap"?)`}},
	{"robots_txt grup", "robots_txt {\n\tgrup * { # <-\n\t\tdisallow /\n\t}\n}", []string{`unknown sub-directive "grup"`, `(did you mean "group"?)`}},
	{"robots_txt max-age", "robots_txt {\n\tmax-age 1h # <-\n}", []string{`unknown sub-directive "max-age"`, `(did you mean "max_age"?)`}},
	{"robots_txt Max_Age", "robots_txt {\n\tMax_Age 1h # <-\n}", []string{`unknown sub-directive "Max_Age"`, `(did you mean "max_age"?)`}},
	{"robots_txt merge_upstrem", "robots_txt {\n\tmerge_upstrem # <-\n}", []string{`(did you mean "merge_upstream"?)`}},
	{"robots_txt comments", "robots_txt {\n\tcomments hello # <-\n}", []string{`(did you mean "comment"?)`}},
	{"robots_txt unrelated word", "robots_txt {\n\tfrobnicate # <-\n}", []string{`unknown sub-directive "frobnicate" (want comment, sitemap, group, preset, record, max_age, enforce, merge_file, merge_upstream, license, license_document, pay, metrics or log_violations), at`}},
	// robots_txt's block: a group's sub-directives, spelt right or not.
	{"robots_txt disallow", "robots_txt {\n\tdisallow /private/ # <-\n}", []string{`robots_txt: disallow goes inside a group, which names the crawlers it applies to: e.g. for every crawler, a line "group * {", then "disallow /private/", then "}"`}},
	{"robots_txt allow", "robots_txt {\n\tallow /a /b # <-\n}", []string{`allow goes inside a group`, `"allow /a /b"`}},
	{"robots_txt crawl_delay", "robots_txt {\n\tcrawl_delay 5 # <-\n}", []string{`crawl_delay goes inside a group`, `"crawl_delay 5"`}},
	{"robots_txt content_usage", "robots_txt {\n\tcontent_usage train-ai=n # <-\n}", []string{`content_usage goes inside a group`, `"content_usage train-ai=n"`}},
	{"robots_txt content_signal", "robots_txt {\n\tcontent_signal ai-train=no # <-\n}", []string{`content_signal goes inside a group`}},
	{"robots_txt user_agent", "robots_txt {\n\tuser_agent GPTBot # <-\n}", []string{`user_agent goes inside a group`}},
	{"robots_txt purpose", "robots_txt {\n\tpurpose search # <-\n}", []string{`purpose goes inside a group`}},
	{"robots_txt dissallow", "robots_txt {\n\tdissallow /x # <-\n}", []string{`unknown sub-directive "dissallow"`, `(did you mean "disallow"? disallow goes inside a group, which names the crawlers it applies to: e.g. for every crawler, a line "group * {", then "disallow /x", then "}")`}},
	{"robots_txt contentusage", "robots_txt {\n\tcontentusage train-ai=n # <-\n}", []string{`(did you mean "content_usage"? content_usage goes inside a group`, `"content_usage train-ai=n"`}},
	{"robots_txt agent", "robots_txt {\n\tagent GPTBot noindex # <-\n}", []string{`agent is a robots_tag sub-directive, which sets response headers: put "agent GPTBot noindex" in a robots_tag block`}},
	// A group's block.
	{"group alow", "robots_txt {\n\tgroup * {\n\t\talow /a # <-\n\t}\n}", []string{`robots_txt: group: unknown sub-directive "alow" (want user_agent, preset, except, purpose, allow, disallow, crawl_delay, record, content_usage or content_signal) (did you mean "allow"?)`}},
	{"group dissallow", "robots_txt {\n\tgroup * {\n\t\tdissallow /a # <-\n\t}\n}", []string{`(did you mean "disallow"?)`}},
	{"group Disallow", "robots_txt {\n\tgroup * {\n\t\tDisallow /a # <-\n\t}\n}", []string{`unknown sub-directive "Disallow"`, `(did you mean "disallow"?)`}},
	{"group crawl-delay", "robots_txt {\n\tgroup * {\n\t\tcrawl-delay 5 # <-\n\t}\n}", []string{`(did you mean "crawl_delay"?)`}},
	{"group contentusage", "robots_txt {\n\tgroup * {\n\t\tcontentusage train-ai=n # <-\n\t}\n}", []string{`(did you mean "content_usage"?)`}},
	{"group useragent", "robots_txt {\n\tgroup * {\n\t\tuseragent GPTBot # <-\n\t}\n}", []string{`(did you mean "user_agent"?)`}},
	{"group sitemap", "robots_txt {\n\tgroup * {\n\t\tsitemap /s.xml # <-\n\t}\n}", []string{`robots_txt: group: sitemap applies to the whole robots.txt, not to one group: put "sitemap /s.xml" in robots_txt's block, after this group's closing "}"`}},
	{"group max_age", "robots_txt {\n\tgroup * {\n\t\tmax_age 1h # <-\n\t}\n}", []string{`max_age applies to the whole robots.txt`}},
	{"group sitmap", "robots_txt {\n\tgroup * {\n\t\tsitmap /s.xml # <-\n\t}\n}", []string{`(did you mean "sitemap"? sitemap applies to the whole robots.txt, not to one group: put "sitemap /s.xml" in robots_txt's block`}},
	{"group in a group", "robots_txt {\n\tgroup * {\n\t\tgroup GPTBot { # <-\n\t\t}\n\t}\n}", []string{`groups do not nest`}},
	{"preset block dissallow", "robots_txt {\n\tpreset ai-training {\n\t\tdissallow / # <-\n\t}\n}", []string{`robots_txt: preset: unknown sub-directive "dissallow"`, `(did you mean "disallow"?)`}},
	{"group meta", "robots_txt {\n\tgroup * {\n\t\tmeta # <-\n\t}\n}", []string{`meta is a robots_tag sub-directive`}},
	// robots_tag's block.
	{"robots_tag agnet", "robots_tag {\n\tagnet GPTBot noindex # <-\n}", []string{`robots_tag: unknown sub-directive "agnet" (want agent, preset, except, meta, x_robots_tag, content_usage, license or tdm) (did you mean "agent"?)`}},
	{"robots_tag x-robots-tag", "robots_tag noindex {\n\tx-robots-tag # <-\n}", []string{`(did you mean "x_robots_tag"?)`}},
	{"robots_tag metta", "robots_tag noindex {\n\tmetta # <-\n}", []string{`(did you mean "meta"?)`}},
	{"robots_tag contentusage", "robots_tag {\n\tcontentusage train-ai=n # <-\n}", []string{`(did you mean "content_usage"?)`}},
	{"robots_tag presets", "robots_tag {\n\tpresets ai-training noindex # <-\n}", []string{`(did you mean "preset"?)`}},
	{"robots_tag disallow", "robots_tag {\n\tdisallow /x # <-\n}", []string{`robots_tag: disallow is a robots.txt sub-directive, and robots_tag sets response headers: put "disallow /x" in a group of robots_txt`}},
	{"robots_tag sitemap", "robots_tag {\n\tsitemap /s.xml # <-\n}", []string{`put "sitemap /s.xml" in robots_txt's block`}},
	{"robots_tag record", "robots_tag {\n\trecord Host example.com # <-\n}", []string{`put "record Host example.com" in robots_txt's block`}},
	{"robots_tag rule in the block", "robots_tag {\n\tnoindex # <-\n}", []string{`unknown sub-directive "noindex"`, `noindex is a rule: rules for every accessor go on the directive's line (robots_tag [<matcher>] noindex ...), and rules for one crawler in the block as agent <token> noindex`}},
	{"robots_tag valued rule in the block", "robots_tag {\n\tmax-snippet=5 # <-\n}", []string{`max-snippet=5 is a rule`}},
}

func TestMisplacedSubdirectives(t *testing.T) {
	adapter := caddyconfig.GetAdapter("caddyfile")
	for _, c := range misplacedCaddyfiles {
		t.Run(c.name, func(t *testing.T) {
			cfg, line := badCaddyfile(t, c.site)
			_, _, err := adapter.Adapt([]byte(cfg), map[string]any{"filename": "Caddyfile"})
			if err == nil {
				t.Fatalf("adapted without error:\n%s", cfg)
			}
			msg := err.Error()
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if !strings.Contains(msg, fmt.Sprintf(", at Caddyfile:%d", line)) {
				t.Errorf("error %q does not name the line Caddyfile:%d", msg, line)
			}
		})
	}
}

// parserSubdirectives reads the sub-directives that the parsers' switches accept, by block:
// the string cases of the "switch sub" statements of the functions that parse each block.
func parserSubdirectives(t *testing.T) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	byFunc := map[string][]string{}
	for _, file := range []string{"caddyfile.go", "caddyfile_crawlers.go", "caddyfile_store.go", "caddyfile_pay.go"} {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			name := fn.Name.Name
			if fn.Recv != nil {
				name = types(fn.Recv.List[0].Type) + "." + name
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				sw, ok := n.(*ast.SwitchStmt)
				if !ok {
					return true
				}
				if id, ok := sw.Tag.(*ast.Ident); !ok || id.Name != "sub" {
					return true
				}
				for _, st := range sw.Body.List {
					for _, e := range st.(*ast.CaseClause).List {
						if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
							s, _ := strconv.Unquote(lit.Value)
							byFunc[name] = append(byFunc[name], s)
						}
					}
				}
				return true
			})
		}
	}
	out := map[string][]string{
		"robots_txt":       byFunc["RobotsTxt.unmarshalSub"],
		"group":            byFunc["parseGroupSub"],
		"robots_tag":       byFunc["RobotsTag.unmarshalSub"],
		"enforce":          byFunc["parseEnforce"],
		"license_document": byFunc["parseLicenseDocument"],
		"content":          byFunc["parseLicenseContent"],
		"crawlers":         byFunc["crawlersOption.parse"],
		"store":            byFunc["crawlersOption.parseStore"],
		"tls":              byFunc["crawlersOption.parseStoreTLS"],
		"pay":              byFunc["parsePay"],
		"price":            byFunc["parsePrice"],
	}
	for block, subs := range out {
		if len(subs) < 4 && block != "enforce" && block != "license_document" && block != "tls" || len(subs) == 0 {
			t.Fatalf("found only %v in the parser of %s", subs, block)
		}
	}
	return out
}

func types(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	return e.(*ast.Ident).Name
}

// TestSubdirectiveLists: the lists that errors name and suggest from are exactly what the
// parsers accept.
func TestSubdirectiveLists(t *testing.T) {
	lists := map[string][]string{"robots_txt": robotsTxtSubdirectives, "group": groupSubdirectives, "robots_tag": robotsTagSubdirectives, "enforce": enforceSubdirectives, "crawlers": crawlersSubdirectives, "license_document": licenseDocumentSubdirectives, "content": licenseContentSubdirectives, "store": storeSubdirectives, "tls": storeTLSSubdirectives, "pay": paySubdirectives, "price": priceSubdirectives}
	for block, accepted := range parserSubdirectives(t) {
		a, l := slices.Sorted(slices.Values(accepted)), slices.Sorted(slices.Values(lists[block]))
		if !slices.Equal(a, l) {
			t.Errorf("%s: the parser accepts %v, the error messages list %v", block, a, l)
		}
	}
}
