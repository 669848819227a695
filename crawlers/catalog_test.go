package crawlers_test

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/crawlers/internal/gen"
)

// The committed table is what the generator makes of the committed data: a
// hand edit of catalog_gen.go, or a data or table change without go
// generate, fails here.
func TestCatalogIsGenerated(t *testing.T) {
	checkGenerated(t, gen.Generate, "data/robots.json", "data/LICENSE", "catalog_gen.go")
}

// checkGenerated fails unless out is what generate writes from the data and licence files.
func checkGenerated(t *testing.T, generate func(data, license []byte, source string) ([]byte, error), data, license, out string) {
	t.Helper()
	d, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	var lic []byte
	if license != "" { // "": the project's own data, without a licence
		if lic, err = os.ReadFile(license); err != nil {
			t.Fatal(err)
		}
	}
	want, err := generate(d, lic, data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not the generator's output for %s: run go generate ./crawlers/", out, data)
	}
}

// The generator's category names, classes and respect values are the
// package's.
func TestGeneratorAgreesWithPackage(t *testing.T) {
	data, _ := os.ReadFile("data/robots.json")
	entries, err := gen.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	all := crawlers.All()
	if len(entries) != len(all) {
		t.Fatalf("generator parses %d entries, All has %d", len(entries), len(all))
	}
	for i, e := range entries {
		c := all[i]
		want := append([]string{crawlers.AIAll}, e.Categories...)
		if c.Name != e.Name || c.Operator != e.Operator || c.Respects.String() != e.Respect ||
			c.Token.String() != e.Class || !slices.Equal(c.Categories, want) {
			t.Errorf("entry %d: package has %+v, generator %+v", i, c, e)
		}
		if crawlers.Classify(c.Name) != c.Token {
			t.Errorf("%s: Classify = %v, table says %v", c.Name, crawlers.Classify(c.Name), c.Token)
		}
	}
}

func TestCatalogFacts(t *testing.T) {
	all := crawlers.All()
	if len(all) != 166 {
		t.Errorf("All has %d entries, the snapshot 166", len(all))
	}
	for _, tc := range []struct {
		name, operator string
		cats           []string
		respects       crawlers.Respect
		token          crawlers.TokenClass
	}{
		{"GPTBot", "OpenAI", []string{"ai-all", "ai-training"}, crawlers.RespectYes, crawlers.TokenProduct},
		{"ChatGPT Agent", "OpenAI", []string{"ai-all", "ai-assistants"}, crawlers.RespectYes, crawlers.TokenUAOnly},
		{"AI2Bot", "Ai2", []string{"ai-all", "ai-training"}, crawlers.RespectYes, crawlers.TokenDigits},
		{"Bytespider", "ByteDance", []string{"ai-all", "ai-training"}, crawlers.RespectNo, crawlers.TokenProduct},
		{"Perplexity-User", "Perplexity", []string{"ai-all", "ai-assistants"}, crawlers.RespectNo, crawlers.TokenProduct},
		{"atlassian-bot", "Atlassian", []string{"ai-all", "ai-assistants", "ai-search"}, crawlers.RespectYes, crawlers.TokenProduct},
		{"YouBot", "You", []string{"ai-all", "ai-search", "ai-training"}, crawlers.RespectYes, crawlers.TokenProduct},
		{"OpenAI", "OpenAI", []string{"ai-all"}, crawlers.RespectYes, crawlers.TokenProduct},
		{"facebookexternalhit", "Meta", []string{"ai-all"}, crawlers.RespectNo, crawlers.TokenProduct},
		{"Claude-Web", "Anthropic", []string{"ai-all"}, crawlers.RespectUnknown, crawlers.TokenProduct},
		{"AddSearchBot", "", []string{"ai-all", "ai-search"}, crawlers.RespectUnknown, crawlers.TokenProduct},
		{"FriendlyCrawler", "", []string{"ai-all", "ai-training"}, crawlers.RespectYes, crawlers.TokenProduct},
		{"Diffbot", "Diffbot", []string{"ai-all", "ai-search", "ai-training"}, crawlers.RespectUnknown, crawlers.TokenProduct},
		{"kagi-fetcher", "Kagi", []string{"ai-all", "ai-assistants"}, crawlers.RespectUnknown, crawlers.TokenProduct},
		{"bigsur.ai", "Big Sur AI", []string{"ai-all", "ai-assistants"}, crawlers.RespectUnknown, crawlers.TokenUAOnly},
		{"Bravebot", "Brave", []string{"ai-all", "ai-search", "ai-training"}, crawlers.RespectYes, crawlers.TokenProduct},
		{"Brightbot 1.0", "Bright Data", []string{"ai-all", "ai-training"}, crawlers.RespectUnknown, crawlers.TokenUAOnly},
		{"Lightpanda", "", []string{"ai-all", "ai-training"}, crawlers.RespectUnknown, crawlers.TokenProduct},
		{"iaskspider/2.0", "iAsk", []string{"ai-all", "ai-search"}, crawlers.RespectNo, crawlers.TokenUAOnly},
	} {
		c, ok := crawlers.Lookup(tc.name)
		if !ok {
			t.Errorf("Lookup(%q) found nothing", tc.name)
			continue
		}
		if c.Name != tc.name || c.Operator != tc.operator || !slices.Equal(c.Categories, tc.cats) || c.Respects != tc.respects || c.Token != tc.token {
			t.Errorf("Lookup(%q) = %+v, want %+v", tc.name, c, tc)
		}
	}
	for _, c := range all {
		// Facts only: an operator is a name, never a description, URL or "Unclear".
		if len(c.Operator) > 60 || strings.ContainsAny(c.Operator, "[]()/:,…") || strings.Contains(c.Operator, " that ") ||
			strings.HasPrefix(c.Operator, "Unclear") || c.Operator == "Unknown" {
			t.Errorf("%s: operator %q is not a name", c.Name, c.Operator)
		}
		if len(c.Categories) == 0 || c.Categories[0] != crawlers.AIAll {
			t.Errorf("%s: categories %v do not start with ai-all", c.Name, c.Categories)
		}
	}
}

func TestCategories(t *testing.T) {
	if got, want := crawlers.Categories(), []string{"ai-all", "ai-assistants", "ai-search", "ai-training"}; !slices.Equal(got, want) {
		t.Errorf("Categories() = %v, want %v", got, want)
	}
	crawlers.Categories()[0] = "changed"
	if crawlers.Categories()[0] != "ai-all" {
		t.Error("Categories returns shared storage")
	}
	all := crawlers.All()
	union := map[string]bool{}
	for _, name := range crawlers.Categories() {
		if !crawlers.IsCategory(name) || !crawlers.IsCategory(strings.ToUpper(name)) {
			t.Errorf("IsCategory(%q) is false", name)
		}
		cs, err := crawlers.Category(strings.ToUpper(name))
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, c := range all {
			if c.In(name) {
				want = append(want, c.Name)
			}
		}
		var got []string
		for _, c := range cs {
			got = append(got, c.Name)
			if name != crawlers.AIAll {
				union[c.Name] = true
			}
		}
		if !slices.Equal(got, want) || len(got) == 0 {
			t.Errorf("Category(%q) = %v, want %v", name, got, want)
		}
		if _, ok := crawlers.Lookup(name); ok {
			t.Errorf("a crawler is named like the category %q", name)
		}
	}
	if cs, _ := crawlers.Category(crawlers.AIAll); len(cs) != len(all) {
		t.Errorf("ai-all has %d crawlers, All %d", len(cs), len(all))
	}
	// Exactly the entries decided to be only in ai-all are outside every
	// named category.
	var only []string
	for _, c := range all {
		if !union[c.Name] {
			only = append(only, c.Name)
		}
	}
	want := []string{"Aranet-SearchBot", "Claude-Web", "Crawl4AI", "facebookexternalhit", "iAskBot", "iaskspider", "KunatoCrawler", "OpenAI", "Reflectionbot", "WRTNBot"}
	if !slices.Equal(only, want) {
		t.Errorf("crawlers only in ai-all: %v, want %v", only, want)
	}
	_, err := crawlers.Category("ai-scrapers")
	if err == nil || !strings.Contains(err.Error(), `"ai-scrapers"`) || !strings.Contains(err.Error(), "ai-all, ai-assistants, ai-search, ai-training") {
		t.Errorf("Category(unknown) error = %v, want it to name the input and the known categories", err)
	}
	if crawlers.IsCategory("GPTBot") || crawlers.IsCategory("") {
		t.Error("IsCategory accepts a non-category")
	}
}

func TestLookupIgnoresCase(t *testing.T) {
	for in, want := range map[string]string{
		"gptbot":             "GPTBot",
		"CHATGPT AGENT":      "ChatGPT Agent",
		"Meta-ExternalAgent": "Meta-ExternalAgent", // the exact spelling wins
		"meta-externalagent": "meta-externalagent",
		"META-EXTERNALAGENT": "Meta-ExternalAgent", // else the first in All's order
	} {
		c, ok := crawlers.Lookup(in)
		if !ok || c.Name != want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", in, c.Name, ok, want)
		}
	}
	if _, ok := crawlers.Lookup("GPTBot2"); ok {
		t.Error("Lookup found a name not in the catalogue")
	}
}

func TestResultsAreCopies(t *testing.T) {
	a := crawlers.All()
	a[0].Categories[0] = "changed"
	a[0].Name = "changed"
	if b := crawlers.All(); b[0].Name == "changed" || b[0].Categories[0] != crawlers.AIAll {
		t.Error("All returns shared storage")
	}
}

func TestRobotsTxtNames(t *testing.T) {
	cs := []crawlers.Crawler{
		{Name: "GPTBot"}, {Name: "AI2Bot"}, {Name: "ChatGPT Agent"}, {Name: "gptbot"},
		{Name: "iaskspider/2.0"}, {Name: "Meta-ExternalAgent"}, {Name: "meta-externalagent"},
	}
	w, u := crawlers.RobotsTxtNames(cs)
	if want := []string{"GPTBot", "AI2Bot", "Meta-ExternalAgent"}; !slices.Equal(w, want) {
		t.Errorf("writable = %v, want %v", w, want)
	}
	if want := []string{"ChatGPT Agent", "iaskspider/2.0"}; !slices.Equal(u, want) {
		t.Errorf("uaOnly = %v, want %v", u, want)
	}
	w, u = crawlers.RobotsTxtNames(crawlers.All())
	if len(w)+len(u) != 166-3 { // three names repeat but for case
		t.Errorf("%d writable + %d UA-only, want 163 in all", len(w), len(u))
	}
	for _, n := range w {
		if !crawlers.Classify(n).Writable() {
			t.Errorf("%q is listed writable", n)
		}
	}
}

func TestTokenClass(t *testing.T) {
	for in, want := range map[string]crawlers.TokenClass{
		"GPTBot": crawlers.TokenProduct, "Factset_spyderbot": crawlers.TokenProduct, "Claude-User": crawlers.TokenProduct,
		"AI2Bot": crawlers.TokenDigits, "360Spider": crawlers.TokenDigits,
		"ChatGPT Agent": crawlers.TokenUAOnly, "iaskspider/2.0": crawlers.TokenUAOnly, "quillbot.com": crawlers.TokenUAOnly,
		"": crawlers.TokenUAOnly, "Bötchen": crawlers.TokenUAOnly,
	} {
		if got := crawlers.Classify(in); got != want {
			t.Errorf("Classify(%q) = %v, want %v", in, got, want)
		}
	}
	if !crawlers.TokenProduct.Writable() || !crawlers.TokenDigits.Writable() || crawlers.TokenUAOnly.Writable() || crawlers.TokenClass(0).Writable() {
		t.Error("Writable is wrong")
	}
	if crawlers.TokenClass(0).String() != "TokenClass(0)" || crawlers.RespectNo.String() != "no" {
		t.Error("String is wrong")
	}
}

// The class lists in the package documentation are the catalogue's.
func TestDocListsTokenClasses(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	paragraphs := map[string]string{}
	for _, p := range strings.Split(f.Doc.Text(), "\n\n") {
		if label, list, ok := strings.Cut(strings.ReplaceAll(p, "\n", " "), ": "); ok {
			paragraphs[label] = strings.TrimSpace(list)
		}
	}
	for _, class := range []crawlers.TokenClass{crawlers.TokenDigits, crawlers.TokenUAOnly} {
		label := map[crawlers.TokenClass]string{crawlers.TokenDigits: "TokenDigits", crawlers.TokenUAOnly: "TokenUAOnly"}[class]
		list, ok := paragraphs[label]
		if !ok {
			t.Fatalf("doc.go has no paragraph %q", label+": ...")
		}
		var want []string
		for _, c := range crawlers.All() {
			if c.Token == class {
				want = append(want, c.Name)
			}
		}
		if got := strings.Join(want, ", ") + "."; list != got {
			t.Errorf("doc.go lists\n%s: %s\nthe catalogue has\n%s: %s", label, list, label, got)
		}
	}
}

// docs/crawlers.md lists the same names as doc.go, in its section on names that are not RFC
// 9309 product tokens: each bullet's parenthesised list is one class.
func TestREADMEListsTokenClasses(t *testing.T) {
	b, err := os.ReadFile("../docs/crawlers.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Names that are not RFC 9309 product tokens\n")
	if !ok {
		t.Fatal("docs/crawlers.md has no section on names that are not product tokens")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	bullets := strings.Split(sec, "\n- ")[1:]
	if len(bullets) != 2 {
		t.Fatalf("want 2 bullets, found %d", len(bullets))
	}
	for i, class := range []crawlers.TokenClass{crawlers.TokenDigits, crawlers.TokenUAOnly} {
		start := strings.Index(bullets[i], "(`")
		end := strings.Index(bullets[i], "`):")
		if start < 0 || end < start {
			t.Fatalf("bullet %d has no (`name`, ...): list", i)
		}
		var got []string
		for _, n := range strings.Split(strings.ReplaceAll(bullets[i][start+1:end+1], "\n", " "), ",") {
			got = append(got, strings.Trim(strings.TrimSpace(n), "`"))
		}
		var want []string
		for _, c := range crawlers.All() {
			if c.Token == class {
				want = append(want, c.Name)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("docs/crawlers.md lists for %v\n%q\nthe catalogue has\n%q", class, got, want)
		}
	}
}
