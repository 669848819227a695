package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/format"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Bot is what the generator keeps of one entry of well-known-bots.json: the id, the names a
// User-Agent header is searched for, the operator, the categories, and how the operator
// lets a site verify the bot.
type Bot struct {
	ID         string
	Names      []string
	Excludes   []string // the data's forbidden patterns: a header naming one of these is not this bot
	Operator   string   // from a vendor category (Operators of Bots); "" when the data has none
	Categories []string // the data's other categories, sorted
	URL        string
	IPRanges   []IPRangeSource
	HostMasks  []string // reverse-DNS host name masks, "*" per label character group as the data writes them
	IPs        []string // fixed addresses or prefixes
}

// IPRangeSource is where an operator publishes its address ranges.
type IPRangeSource struct {
	URL      string
	Format   string // "json", "text" or "csv"
	Selector string // for "json": the data's JSONPath selector of the prefixes
}

// vendorOperators maps the data's vendor categories to operator names: they say who runs a
// bot, not what it does.
var vendorOperators = map[string]string{
	"amazon": "Amazon", "apple": "Apple", "google": "Google", "meta": "Meta",
	"microsoft": "Microsoft", "slack": "Slack", "vercel": "Vercel", "yahoo": "Yahoo",
}

// BotCategories are the data's categories that say what a bot does, each a category of
// package crawlers' bot catalogue under the data's own name.
var BotCategories = []string{
	"academic", "advertising", "ai", "archive", "feedfetcher", "monitor", "optimizer", "preview",
	"programmatic", "search-engine", "social", "tool", "unknown", "webhook",
}

type rawBot struct {
	ID         *string  `json:"id"`
	Categories []string `json:"categories"`
	Pattern    struct {
		Accepted  []string `json:"accepted"`
		Forbidden []string `json:"forbidden"`
	} `json:"pattern"`
	URL          string `json:"url"`
	Verification []struct {
		Type    string `json:"type"`
		Sources []struct {
			Type     string `json:"type"`
			URL      string `json:"url"`
			Selector string `json:"selector"`
		} `json:"sources"`
		Masks []string `json:"masks"`
		IPs   []string `json:"ips"`
	} `json:"verification"`
	Instances struct {
		Accepted []string `json:"accepted"`
		Rejected []string `json:"rejected"`
	} `json:"instances"`
}

// literal matches a pattern that, once its escapes are undone, is a plain name.
var literal = regexp.MustCompile(`^[A-Za-z0-9_-](?:[ -~]*[A-Za-z0-9_-])?$`)

// PatternName returns the name a pattern of the data looks for, when the pattern is a
// literal (escapes aside) with at most these decorations: a leading "^" or "(^| )", a
// trailing "/", "\s" or "([^-]|$)" (the project's matcher requires word boundaries
// anyway). ok is false for anything else: BotNames must name such a bot.
func PatternName(p string) (name string, ok bool) {
	p = strings.TrimSuffix(p, `([^-]|$)`)
	p = strings.TrimSuffix(p, `\s`)
	p = strings.TrimPrefix(p, `(^| )`)
	p = strings.TrimPrefix(p, "^")
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p) && strings.IndexByte(`/.- ()'!:+`, p[i+1]) >= 0:
			i++
			b.WriteByte(p[i])
		case strings.IndexByte(`\[](){}*+?|$^`, c) >= 0:
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	name = strings.TrimRight(b.String(), "/")
	if !literal.MatchString(name) || strings.Contains(name, "://") || strings.Contains(name, "@") {
		return "", false
	}
	return name, true
}

// ParseBots reads well-known-bots.json. It fails, naming them all, on duplicate or missing
// ids, on categories that are neither in BotCategories nor vendors, on patterns that are not
// a plain name and have no BotNames row, on BotNames rows for bots the data does not have,
// and on verification entries of a kind it does not know. Bots are sorted by id.
func ParseBots(data []byte) ([]Bot, error) {
	var raws []rawBot
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raws); err != nil {
		return nil, fmt.Errorf("well-known-bots.json: %w", err)
	}
	var errs []error
	seen := map[string]bool{}
	var bots []Bot
	for i, r := range raws {
		if r.ID == nil || *r.ID == "" {
			errs = append(errs, fmt.Errorf("entry %d: no id", i))
			continue
		}
		id := *r.ID
		if seen[id] {
			errs = append(errs, fmt.Errorf("bot %q: duplicate id", id))
			continue
		}
		seen[id] = true
		b := Bot{ID: id, URL: r.URL}
		for _, c := range r.Categories {
			switch {
			case vendorOperators[c] != "":
				if b.Operator != "" {
					errs = append(errs, fmt.Errorf("bot %q: two vendors", id))
				}
				b.Operator = vendorOperators[c]
			case slices.Contains(BotCategories, c):
				b.Categories = append(b.Categories, c)
			default:
				errs = append(errs, fmt.Errorf("bot %q: category %q is neither in BotCategories nor a vendor: review it", id, c))
			}
		}
		slices.Sort(b.Categories)
		if names, ok := BotNames[id]; ok {
			b.Names = names
		} else {
			for _, p := range r.Pattern.Accepted {
				n, ok := PatternName(p)
				if !ok {
					errs = append(errs, fmt.Errorf("bot %q: pattern %q is not a plain name: add the names to look for to BotNames in crawlers/internal/gen/botnames.go", id, p))
					continue
				}
				b.Names = append(b.Names, n)
			}
		}
		b.Names = append(b.Names, BotExtraNames[id]...)
		for _, p := range r.Pattern.Forbidden {
			n, ok := PatternName(p)
			if !ok {
				errs = append(errs, fmt.Errorf("bot %q: forbidden pattern %q is not a plain name", id, p))
				continue
			}
			b.Excludes = append(b.Excludes, n)
		}
		for _, n := range append(slices.Clone(b.Names), b.Excludes...) {
			if err := checkName(n); err != nil {
				errs = append(errs, fmt.Errorf("bot %q: %w", id, err))
			}
		}
		for _, v := range r.Verification {
			// "cidr" entries list documents of prefixes, "ip" entries documents of addresses
			// or the addresses themselves: both are address documents to the verifier.
			n := 0
			switch v.Type {
			case "cidr", "ip":
				for _, s := range v.Sources {
					f, ok := map[string]string{"http-json": "json", "http-text": "text", "http-csv": "csv"}[s.Type]
					if !ok {
						errs = append(errs, fmt.Errorf("bot %q: address source type %q unknown", id, s.Type))
						continue
					}
					b.IPRanges = append(b.IPRanges, IPRangeSource{URL: s.URL, Format: f, Selector: s.Selector})
					n++
				}
				b.IPs = append(b.IPs, v.IPs...)
				n += len(v.IPs)
			case "dns":
				b.HostMasks = append(b.HostMasks, v.Masks...)
				n += len(v.Masks)
			default:
				errs = append(errs, fmt.Errorf("bot %q: verification type %q unknown", id, v.Type))
				continue
			}
			if n == 0 {
				errs = append(errs, fmt.Errorf("bot %q: a %q verification entry with nothing the generator reads", id, v.Type))
			}
		}
		bots = append(bots, b)
	}
	for _, t := range []struct {
		name string
		rows map[string][]string
	}{{"BotNames", BotNames}, {"BotExtraNames", BotExtraNames}} {
		for _, id := range slices.Sorted(maps.Keys(t.rows)) {
			if !seen[id] {
				errs = append(errs, fmt.Errorf("%s has %q, which the data does not: remove it", t.name, id))
			}
		}
	}
	// A name several bots have needs a reviewed owner, which a header naming it is
	// identified as first (the others where the owner's Excludes rule it out).
	owners := map[string][]string{}
	for _, b := range bots {
		for _, n := range b.Names {
			k := strings.ToLower(n)
			if !slices.Contains(owners[k], b.ID) {
				owners[k] = append(owners[k], b.ID)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(owners)) {
		ids := owners[k]
		owner, ok := BotNameOwners[k]
		switch {
		case len(ids) > 1 && !ok:
			errs = append(errs, fmt.Errorf("name %q is a name of %s: say which bot it identifies in BotNameOwners", k, strings.Join(ids, " and ")))
		case ok && !slices.Contains(ids, owner):
			errs = append(errs, fmt.Errorf("BotNameOwners gives %q to %q, which does not have that name", k, owner))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(BotNameOwners)) {
		if len(owners[k]) < 2 {
			errs = append(errs, fmt.Errorf("BotNameOwners has %q, which no two bots share: remove it", k))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	slices.SortFunc(bots, func(a, b Bot) int { return strings.Compare(a.ID, b.ID) })
	return bots, nil
}

// GenerateBots returns the gofmt'd Go source of bots_gen.go for well-known-bots.json data,
// with its MIT licence in the header; source names the committed copy.
func GenerateBots(data, license []byte, source string) ([]byte, error) {
	bots, err := ParseBots(data)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := header(&b, license, source, "well-known-bots.json of the arcjet/well-known-bots project", "https://github.com/arcjet/well-known-bots"); err != nil {
		return nil, err
	}
	q := func(ss []string) string {
		if len(ss) == 0 {
			return "nil"
		}
		parts := make([]string, len(ss))
		for i, s := range ss {
			parts[i] = strconv.Quote(s)
		}
		return "[]string{" + strings.Join(parts, ", ") + "}"
	}
	b.WriteString("// botCategories are the categories of the bot catalogue (the reviewed list of the generator).\n")
	fmt.Fprintf(&b, "var botCategories = %s\n\n", q(BotCategories))
	fmt.Fprintf(&b, "// bots holds the %d bots of %s, sorted by id.\n", len(bots), source)
	b.WriteString("var bots = [...]Bot{\n")
	for _, bot := range bots {
		fmt.Fprintf(&b, "\t{ID: %s, Names: %s, Operator: %s, Categories: %s, URL: %s",
			strconv.Quote(bot.ID), q(bot.Names), strconv.Quote(bot.Operator), q(bot.Categories), strconv.Quote(bot.URL))
		if len(bot.Excludes) > 0 {
			fmt.Fprintf(&b, ", Excludes: %s", q(bot.Excludes))
		}
		if len(bot.IPRanges)+len(bot.HostMasks)+len(bot.IPs) > 0 {
			b.WriteString(", Verification: Verification{")
			var parts []string
			if len(bot.IPRanges) > 0 {
				srcs := make([]string, len(bot.IPRanges))
				for i, s := range bot.IPRanges {
					srcs[i] = fmt.Sprintf("{URL: %s, Format: %s, Selector: %s}", strconv.Quote(s.URL), strconv.Quote(s.Format), strconv.Quote(s.Selector))
				}
				parts = append(parts, "IPRanges: []IPRangeSource{"+strings.Join(srcs, ", ")+"}")
			}
			if len(bot.HostMasks) > 0 {
				parts = append(parts, "HostMasks: "+q(bot.HostMasks))
			}
			if len(bot.IPs) > 0 {
				parts = append(parts, "IPs: "+q(bot.IPs))
			}
			b.WriteString(strings.Join(parts, ", ") + "}")
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n\n")
	b.WriteString("// nameOwners gives, for a name several bots have (folded), the bot it identifies first.\n")
	b.WriteString("var nameOwners = map[string]string{\n")
	for _, k := range slices.Sorted(maps.Keys(BotNameOwners)) {
		fmt.Fprintf(&b, "\t%s: %s,\n", strconv.Quote(k), strconv.Quote(BotNameOwners[k]))
	}
	b.WriteString("}\n")
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting generated code: %w", err)
	}
	return out, nil
}
