package caddymodule

import (
	"errors"
	"strings"

	"github.com/caddyserver/caddy/v2"

	"github.com/sitepolicy/caddy-robots/robotsgen"

	"github.com/sitepolicy/caddy-robots/configerr"
)

// placeholders replaces the global placeholders ({env.*}, {system.*}, ...) in config strings
// when a handler is provisioned. The values are used ahead of any request (robots.txt is
// rendered and the Robots-Tag values serialised at load), so a placeholder that is unknown
// then, such as a request placeholder, is an error naming the field, rather than text that
// would silently end up in the output. A literal brace is written \{.
type placeholders struct {
	repl *caddy.Replacer
	errs []error
}

func newPlaceholders() *placeholders { return &placeholders{repl: caddy.NewReplacer()} }

// err returns the problems found so far, nil if none.
func (p *placeholders) err() error { return errors.Join(p.errs...) }

// str replaces the placeholders in s; place names the field for an error.
func (p *placeholders) str(place, s string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	out, err := p.repl.ReplaceOrErr(s, false, true)
	if err != nil {
		p.errs = append(p.errs, configerr.New(place, s, err.Error()+" (only global placeholders such as {env.NAME} are known when the config is loaded)"))
		return s
	}
	return out
}

func (p *placeholders) strs(place string, in []string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = p.str(configerr.Index(place, i), s)
	}
	return out
}

func (p *placeholders) records(place string, in []robotsgen.Record) []robotsgen.Record {
	if in == nil {
		return nil
	}
	out := make([]robotsgen.Record, len(in))
	for i, r := range in {
		rp := configerr.Index(place, i)
		out[i] = robotsgen.Record{Key: p.str(rp+".key", r.Key), Value: p.str(rp+".value", r.Value)}
	}
	return out
}

// file returns a copy of f with the placeholders replaced in every string. f itself is not
// modified: the handler keeps the config as written.
func (p *placeholders) file(f robotsgen.File) robotsgen.File {
	out := robotsgen.File{
		Comments: p.strs("comments", f.Comments),
		Sitemaps: p.strs("sitemaps", f.Sitemaps),
		Records:  p.records("records", f.Records),
	}
	if f.Groups != nil {
		out.Groups = make([]robotsgen.Group, len(f.Groups))
	}
	for i, g := range f.Groups {
		gp := configerr.Index("groups", i)
		ng := robotsgen.Group{
			UserAgents: p.strs(gp+".user_agents", g.UserAgents),
			Presets:    p.strs(gp+".presets", g.Presets),
			Purposes:   p.strs(gp+".purposes", g.Purposes),
			CrawlDelay: g.CrawlDelay,
			Records:    p.records(gp+".records", g.Records),
		}
		ng.ContentUsage = p.usageRules(gp+".content_usage", g.ContentUsage)
		ng.ContentSignal = p.usageRules(gp+".content_signal", g.ContentSignal)
		if g.Rules != nil {
			ng.Rules = make([]robotsgen.Rule, len(g.Rules))
		}
		for j, r := range g.Rules {
			ng.Rules[j] = robotsgen.Rule{Type: r.Type, Path: p.str(configerr.Index(gp+".rules", j)+".path", r.Path)}
		}
		out.Groups[i] = ng
	}
	return out
}

// rules returns a copy of a robots_tag rule map with the placeholders replaced in tokens and
// rules. Two tokens that become one after replacement have their rules joined.
func (p *placeholders) rules(in map[string][]string) map[string][]string {
	out := make(map[string][]string, len(in))
	for tok, list := range in {
		rtok := p.str(configerr.Key("rules", tok), tok)
		out[rtok] = append(out[rtok], p.strs(configerr.Key("rules", tok), list)...)
	}
	return out
}
