package caddymodule

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types/ref"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
)

func init() {
	caddy.RegisterModule(MatchCrawler{})
}

// MatchCrawler matches requests by the crawler they come from, as the crawlers app
// verifies it: which bot of the catalogue the User-Agent names, and whether the claim holds.
// A request matches when its status is one of Statuses (any status but none when Statuses is
// empty) and, when Bots or Categories are given, its bot is one of Bots or the crawler's
// name its User-Agent carries has one of Categories (that name's, crawlers.BotName: not
// those of the other names of its bot's entry).
//
// Finding the identity also sets the {http.crawler.*} placeholders for the rest of the
// request.
type MatchCrawler struct {
	// Bots are bots of the catalogue, by ID ("google-crawler") or by a name they send
	// ("Googlebot"), compared without regard to case; a name several bots send stands for
	// each of them. A crawler only the AI catalogue knows is named by its name
	// ("Claude-User").
	Bots []string `json:"bots,omitempty"`
	// Categories are categories of the bot catalogue ("search-engine", "ai", "monitor", ...)
	// or of the AI catalogue ("ai-training", "ai-search", "ai-assistants", "ai-all").
	Categories []string `json:"categories,omitempty"`
	// Statuses are what is known of the claim: "verified", "impostor", "unverifiable",
	// "pending", "signed" (a valid Web Bot Auth signature from an agent the config does not
	// know), or "none" (the User-Agent names no bot of the catalogue).
	Statuses []string `json:"statuses,omitempty"`

	app      *Crawlers
	bots     map[string]bool // IDs
	names    map[string]bool // names of crawlers only the AI catalogue knows, as it spells them
	cats     map[string]bool
	statuses map[identity.Status]bool
}

// CaddyModule returns the Caddy module information.
func (MatchCrawler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.matchers.crawler",
		New: func() caddy.Module { return new(MatchCrawler) },
	}
}

// UnmarshalCaddyfile reads
//
//	crawler [<status>|<category>|<bot>...]
//
// Each argument is a status (verified, impostor, unverifiable, pending, none), a category
// of the bot catalogue (search-engine, ai, seo, monitor, ...) or of the AI catalogue
// (ai-training, ai-search, ai-assistants, ai-all), or a bot by its ID or a name it sends
// (Googlebot, GPTBot). For example:
//
//	@fake   crawler impostor
//	@ai     crawler ai-training
//	@google crawler Googlebot verified
//
// The matcher may be given more than once in a named matcher set; its arguments are joined.
func (m *MatchCrawler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	for d.Next() {
		for d.NextArg() {
			if err := m.add(d.Val()); err != nil {
				return d.Err(err.Error())
			}
		}
		if d.NextBlock(0) {
			return d.Err("crawler takes no block")
		}
	}
	return nil
}

// add files one argument of the Caddyfile or CEL form under Statuses, Categories or Bots.
func (m *MatchCrawler) add(arg string) error {
	switch kind, value, err := classifyCrawlerArg(arg); {
	case err != nil:
		return err
	case kind == "status":
		m.Statuses = append(m.Statuses, value)
	case kind == "category":
		m.Categories = append(m.Categories, value)
	default:
		m.Bots = append(m.Bots, value)
	}
	return nil
}

// CELLibrary makes the matcher available in CEL expressions, with the Caddyfile form's
// arguments:
//
//	expression crawler('impostor')
//	expression crawler('Googlebot', 'verified') || crawler('ai-training')
func (MatchCrawler) CELLibrary(ctx caddy.Context) (cel.Library, error) {
	return caddyhttp.CELMatcherImpl(
		"crawler",
		"crawler_request_list",
		[]*cel.Type{cel.ListType(cel.StringType)},
		func(data ref.Val) (caddyhttp.RequestMatcherWithError, error) {
			args, err := data.ConvertToNative(reflect.TypeFor[[]string]())
			if err != nil {
				return nil, err
			}
			m := &MatchCrawler{}
			for _, a := range args.([]string) {
				if err := m.add(a); err != nil {
					return nil, err
				}
			}
			if err := m.Provision(ctx); err != nil {
				return nil, err
			}
			return m, nil
		},
	)
}

// classifyCrawlerArg says what a crawler matcher argument is.
func classifyCrawlerArg(arg string) (kind, value string, err error) {
	if st, ok := identity.ParseStatus(arg); ok {
		return "status", st.String(), nil
	}
	if c, ok := findFold(allCategories(), arg); ok {
		return "category", c, nil
	}
	if _, ok := aiOnlyName(arg); ok || len(botIDs(arg)) > 0 {
		return "bot", arg, nil
	}
	return "", "", fmt.Errorf("crawler %q: not a status (%s), a category (%s) or a bot of the catalogue%s",
		arg, strings.Join(statusNames(), ", "), strings.Join(allCategories(), ", "), suggest(arg))
}

func statusNames() []string {
	var out []string
	for st := identity.None; st <= identity.MaxStatus; st++ {
		out = append(out, st.String())
	}
	return out
}

// allCategories are the bot catalogue's categories and the AI catalogue's.
func allCategories() []string {
	return slices.Concat(crawlers.BotCategories(), crawlers.Categories())
}

func findFold(list []string, s string) (string, bool) {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return x, true
		}
	}
	return "", false
}

// botIDs are the bots with the ID s or a name s, without regard to case: a name may belong to
// several bots of the catalogue (Twitterbot is Twitter's crawler and a part of Apple's link
// previews), and the matcher matches each.
func botIDs(s string) []string {
	var out []string
	for _, b := range crawlers.Bots() {
		if _, named := findFold(b.Names, s); named || strings.EqualFold(b.ID, s) {
			out = append(out, b.ID)
		}
	}
	return out
}

// aiOnlyName is the name of the crawler only the AI catalogue knows that s names, without
// regard to case, as the catalogue spells it.
func aiOnlyName(s string) (string, bool) {
	for _, bn := range crawlers.BotNames() {
		if bn.ID == "" && strings.EqualFold(bn.Name, s) {
			return bn.Name, true
		}
	}
	return "", false
}

// suggest names the closest bot name or category, if one is close.
func suggest(s string) string {
	var names []string
	for _, b := range crawlers.Bots() {
		names = append(names, b.ID)
		names = append(names, b.Names...)
	}
	for _, bn := range crawlers.BotNames() {
		if bn.ID == "" {
			names = append(names, bn.Name)
		}
	}
	names = append(append(names, allCategories()...), statusNames()...)
	if c := configerr.Closest(s, names); c != "" {
		return fmt.Sprintf("; did you mean %q?", c)
	}
	return ""
}

// Provision checks the arguments (JSON configs are not read by UnmarshalCaddyfile) and loads
// the crawlers app.
func (m *MatchCrawler) Provision(ctx caddy.Context) error {
	if err := usePlaceholderCheck(ctx); err != nil {
		return err
	}
	m.bots, m.names, m.cats, m.statuses = map[string]bool{}, map[string]bool{}, map[string]bool{}, map[identity.Status]bool{}
	for i, b := range m.Bots {
		ids := botIDs(b)
		if n, ok := aiOnlyName(b); ok {
			m.names[n] = true
			continue
		}
		if len(ids) == 0 {
			if kind, _, err := classifyCrawlerArg(b); err == nil {
				return fmt.Errorf("bots[%d] %q: not a bot of the catalogue but a %s: put it in %s", i, b, kind, map[string]string{"status": "statuses", "category": "categories"}[kind])
			}
			return fmt.Errorf("bots[%d] %q: not a bot of the catalogue%s", i, b, suggest(b))
		}
		for _, id := range ids {
			m.bots[id] = true
		}
	}
	for i, c := range m.Categories {
		cat, ok := findFold(allCategories(), c)
		if !ok {
			return fmt.Errorf("categories[%d] %q: not a category (%s)%s", i, c, strings.Join(allCategories(), ", "), suggest(c))
		}
		m.cats[cat] = true
	}
	for i, s := range m.Statuses {
		st, ok := identity.ParseStatus(s)
		if !ok {
			return fmt.Errorf("statuses[%d] %q: not a status (%s)", i, s, strings.Join(statusNames(), ", "))
		}
		m.statuses[st] = true
	}
	app, err := crawlersApp(ctx)
	if err != nil {
		return err
	}
	m.app = app
	return nil
}

// MatchWithError reports whether r comes from one of the crawlers the matcher names, in one
// of its statuses.
func (m *MatchCrawler) MatchWithError(r *http.Request) (bool, error) {
	ci := m.app.identify(r)
	if len(m.statuses) > 0 {
		if !m.statuses[ci.id.Status] {
			return false, nil
		}
	} else if ci.id.Status == identity.None {
		return false, nil
	}
	if len(m.bots) == 0 && len(m.names) == 0 && len(m.cats) == 0 {
		return true, nil
	}
	if m.bots[ci.id.Bot] || ci.id.Bot == "" && m.names[ci.id.Name] {
		return true, nil
	}
	for c := range m.cats {
		if ci.categories[c] {
			return true, nil
		}
	}
	return false, nil
}

// Match is MatchWithError for the matchers that ask without an error.
func (m *MatchCrawler) Match(r *http.Request) bool {
	ok, _ := m.MatchWithError(r)
	return ok
}

// Interface guards.
var (
	_ caddy.Provisioner                 = (*MatchCrawler)(nil)
	_ caddyhttp.RequestMatcherWithError = (*MatchCrawler)(nil)
	_ caddyfile.Unmarshaler             = (*MatchCrawler)(nil)
	_ caddyhttp.CELLibraryProducer      = (*MatchCrawler)(nil)
)
