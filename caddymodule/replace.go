package caddymodule

import (
	"strings"

	"github.com/caddyserver/caddy/v2"

	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// replaceFile returns a copy of f with the global placeholders ({env.*}, {system.*}, ...)
// replaced in every string. Unknown placeholders are left as they are, so the validation that
// follows reports them instead of silently dropping text. f itself is not modified: the
// handler keeps the config as written.
func replaceFile(repl *caddy.Replacer, f robotsgen.File) robotsgen.File {
	out := robotsgen.File{
		Comments: replaceAll(repl, f.Comments),
		Sitemaps: replaceAll(repl, f.Sitemaps),
		Records:  replaceRecords(repl, f.Records),
	}
	if f.Groups != nil {
		out.Groups = make([]robotsgen.Group, len(f.Groups))
	}
	for i, g := range f.Groups {
		ng := robotsgen.Group{
			UserAgents: replaceAll(repl, g.UserAgents),
			Purposes:   replaceAll(repl, g.Purposes),
			CrawlDelay: g.CrawlDelay,
			Records:    replaceRecords(repl, g.Records),
		}
		if g.Rules != nil {
			ng.Rules = make([]robotsgen.Rule, len(g.Rules))
		}
		for j, r := range g.Rules {
			ng.Rules[j] = robotsgen.Rule{Type: r.Type, Path: replace(repl, r.Path)}
		}
		out.Groups[i] = ng
	}
	return out
}

func replace(repl *caddy.Replacer, s string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	return repl.ReplaceKnown(s, "")
}

func replaceAll(repl *caddy.Replacer, in []string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = replace(repl, s)
	}
	return out
}

func replaceRecords(repl *caddy.Replacer, in []robotsgen.Record) []robotsgen.Record {
	if in == nil {
		return nil
	}
	out := make([]robotsgen.Record, len(in))
	for i, r := range in {
		out[i] = robotsgen.Record{Key: replace(repl, r.Key), Value: replace(repl, r.Value)}
	}
	return out
}
