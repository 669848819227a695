package caddymodule

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/policycheck/cli"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/rsl"
)

// A generated Caddyfile is made of valid lines (fill) with invalid values (bad) among them,
// each a value the core refuses (not the adapter, which stops at the first): the error must
// come from the one mapping of field paths to lines.
var (
	robotsTxtFill = []string{"comment a comment", "sitemap /s%d.xml", "license /l%d.xml", "sitemap https://example.com/m%d.xml"}
	robotsTxtBad  = []string{"sitemap sitemap%d.xml", "sitemap ftp://example.com/s%d.xml", "record Disallow /x%d", `record "Bad Key" x%d`, "max_age 500ms", "max_age 2d", "license ftp://example.com/l%d.xml"}
	groupFill     = []string{"disallow /p%d/", "allow /q%d/", "user_agent ExampleBot", "disallow /*.pdf$", "content_usage /c%d/ train-ai=n"}
	groupBad      = []string{"user_agent Bot.%d", "purpose has.dot%d", "allow private%d", `disallow "/a#b%d"`, "disallow /100%%zz%d", "record Host example%d.com", "preset ai-serch", "content_usage /u%d/ train-ai=maybe"}
	groupHeadBad  = []string{"group Bad/Bot%d {", "group Googlebot 2.%d {"}
	robotsTagFill = []string{"agent GPTBot nofollow", "agent ExampleBot noarchive", "license /t%d.xml", "agent * nosnippet"}
	robotsTagBad  = []string{"agent GPTBot noindex nosnipet%d", "agent Bad.Bot%d noindex", "agent robots noindex", "agent GPTBot max-snippet=lots%d", "license ftp://example.com/t%d.xml", "content_usage train-ai=maybe"}
	crawlersFill  = []string{"max_age 7d", "fetch_timeout 20s", "dns_timeout 3s", "dns_wait 1s", "signatures_skew 30s"}
	crawlersBad   = []string{"refresh 1s", "signature_agent http://agent%d.example openai-crawler", "signature_agent https://agent%d.example GPTBott"}
)

// caddyfileLines builds a Caddyfile from its lines, and returns it with the numbers of the
// lines marked bad.
type caddyfileLines struct {
	lines []string
	bad   []int
}

func (c *caddyfileLines) add(line string, bad bool) {
	c.lines = append(c.lines, line)
	if bad {
		c.bad = append(c.bad, len(c.lines))
	}
}

// body adds n lines of fill and bad (a bad one with probability 1/4 while fewer than
// maxBad are in), each with a number of its own.
func (c *caddyfileLines) body(r *rand.Rand, indent string, n, maxBad int, fill, bad []string, badDone *int) {
	for range n {
		list, isBad := fill, false
		if *badDone < maxBad && r.IntN(4) == 0 {
			list, isBad = bad, true
			*badDone++
		}
		line := list[r.IntN(len(list))]
		if strings.Contains(line, "%d") {
			line = fmt.Sprintf(line, len(c.lines))
		}
		c.add(indent+line, isBad)
	}
}

// genCaddyfile is a Caddyfile with one robots_txt, robots_tag or crawlers block of random
// lines with at least one bad value in it.
func genCaddyfile(r *rand.Rand) *caddyfileLines {
	kind := r.IntN(3)
	for {
		c := &caddyfileLines{}
		for _, l := range strings.Split(strings.TrimSuffix(globals(), "}\n"), "\n") {
			c.add(l, false) // the global options block, left open
		}
		badDone, maxBad := 0, 1+r.IntN(3)
		if kind == 2 {
			c.add("\tcrawlers {", false)
			c.body(r, "\t\t", 1+r.IntN(6), maxBad, crawlersFill, crawlersBad, &badDone)
			c.add("\t}", false)
		}
		c.add("}", false)
		c.add(fmt.Sprintf("http://localhost:%d {", sitePort), false)
		switch kind {
		case 0:
			c.add("\trobots_txt {", false)
			for range 1 + r.IntN(3) {
				c.body(r, "\t\t", r.IntN(4), maxBad, robotsTxtFill, robotsTxtBad, &badDone)
				head := "group GPTBot {"
				if badDone < maxBad && r.IntN(5) == 0 {
					head = fmt.Sprintf(groupHeadBad[r.IntN(len(groupHeadBad))], len(c.lines))
					badDone++
					c.add("\t\t"+head, true)
				} else {
					c.add("\t\t"+head, false)
				}
				c.body(r, "\t\t\t", 1+r.IntN(5), maxBad, groupFill, groupBad, &badDone)
				c.add("\t\t}", false)
			}
			c.add("\t}", false)
		case 1:
			c.add("\trobots_tag noindex {", false)
			c.body(r, "\t\t", 1+r.IntN(6), maxBad, robotsTagFill, robotsTagBad, &badDone)
			c.add("\t}", false)
		default:
			c.add("\trespond 1", false)
		}
		c.add("}", false)
		if len(c.bad) > 0 {
			return c
		}
	}
}

// TestCaddyfileErrorLinesProperty: every config error a Caddyfile with invalid values
// produces names the line of an invalid value, and each invalid value's line is named
// when the core reports every problem it finds (it does for independent fields).
func TestCaddyfileErrorLinesProperty(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 33))
	n := 400
	if raceEnabled {
		n = 80
	}
	adapter := caddyconfig.GetAdapter("caddyfile")
	named := 0
	for range n {
		c := genCaddyfile(r)
		cfg := strings.Join(c.lines, "\n") + "\n"
		_, err := recordSources("Caddyfile", func() error {
			_, _, err := adapter.Adapt([]byte(cfg), map[string]any{"filename": "Caddyfile"})
			return err
		})
		var fe *cli.FileError
		if !errors.As(err, &fe) || len(fe.Problems) == 0 {
			t.Fatalf("adapted with %v, want errors at lines %v:\n%s", err, c.bad, numbered(c.lines))
		}
		var lines []int
		for _, p := range fe.Problems {
			if p.Location == nil || !slices.Contains(c.bad, p.Location.Line) {
				t.Fatalf("problem %q at %v, want one of the lines %v:\n%s", p.Problem, p.Location, c.bad, numbered(c.lines))
			}
			lines = append(lines, p.Location.Line)
		}
		if slices.Equal(slices.Compact(slices.Sorted(slices.Values(lines))), c.bad) {
			named++
		}
	}
	// The core reports problems of independent fields together: most files have every bad line
	// named (a file whose bad values depend on each other may have one hide another).
	t.Logf("%d of %d files with every bad line named", named, n)
	if named < n/2 {
		t.Errorf("only %d of %d files have every bad line named", named, n)
	}
}

func numbered(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%3d %s\n", i+1, l)
	}
	return b.String()
}

// TestFieldPath: the JSON path of a field is found from the config's JSON names, through
// embedded structs, pointers, slices and the slices held in maps.
func TestFieldPath(t *testing.T) {
	h := &RobotsTxt{}
	h.Groups = []robotsgen.Group{{}, {Rules: []robotsgen.Rule{{}, {}}}}
	h.Enforce = &policy.Enforce{Impostors: &policy.Impostors{}}
	h.LicenseDocuments = []rsl.Document{{Content: []rsl.Content{{Payment: &rsl.Payment{}}}}}
	tag := &RobotsTag{}
	tag.Rules = map[string][]string{"*": {"noindex", "nofollow"}}
	app := &Crawlers{Lists: &CrawlerLists{}, Signatures: &CrawlerSignatures{Agents: []SignatureAgent{{}}}}
	for _, c := range []struct {
		root, field any
		want        string
	}{
		{&h.RobotsTxt, &h.Groups[1].Rules[1], "groups[1].rules[1]"},
		{&h.RobotsTxt, &h.Groups[1], "groups[1]"},
		{&h.RobotsTxt, &h.Groups[1].CrawlDelay, "groups[1].crawl_delay"},
		{&h.RobotsTxt, &h.Enforce.Impostors.Status, "enforce.impostors.status"},
		{&h.RobotsTxt, &h.Enforce, "enforce"},
		{&h.RobotsTxt, &h.MergeUpstreamTimeout, "merge_upstream_timeout"},
		{&h.RobotsTxt, &h.LicenseDocuments[0].Content[0].Payment.Type, "license_documents[0].content[0].payment.type"},
		{&tag.Tags, &tag.Rules["*"][1], `rules["*"][1]`},
		{&tag.Tags, &tag.Rules, "rules"},
		{app, &app.Lists.Timeout, "lists.timeout"},
		{app, &app.Signatures.Agents[0].KeyFile, "signatures.agents[0].key_file"},
	} {
		if got, ok := fieldPath(c.root, c.field); !ok || got != c.want {
			t.Errorf("fieldPath(%T) = %q, %v; want %q", c.field, got, ok, c.want)
		}
	}
	var outside int
	if got, ok := fieldPath(&h.RobotsTxt, &outside); ok {
		t.Errorf("a variable outside the config has the path %q", got)
	}
}
