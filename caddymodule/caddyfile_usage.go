package caddymodule

import (
	"strings"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/usage"
)

// AI usage preferences in the Caddyfile:
//
//	group ... {
//		content_usage [<path>] <key>=<value>...    # Content-Usage: [path ]train-ai=n, search=y
//		content_signal [<path>] <key>=<value>...   # Content-Signal: [path ]search=yes, ai-train=no
//	}
//	robots_tag ... {
//		content_usage <key>=<value>...             # response header Content-Usage
//	}
//
// A first argument starting with "/" is the rule's path. The adapter only splits key=value
// arguments into the JSON object; the core checks keys and values.

// parseUsageArgs reads "key=value..." arguments into their JSON object (usage.Vocab.Args),
// saying in the Caddyfile's terms what the object cannot hold (an argument without "=", a key
// given twice). what names the sub-directive for errors.
func parseUsageArgs(d *caddyfile.Dispenser, what string, v usage.Vocab, args []string, into map[string]string) error {
	m, err := v.Args(args)
	if err == nil {
		for key, value := range m {
			if _, dup := into[key]; dup {
				return errf(d, "%s: key %q given more than once; keep one", what, key)
			}
			into[key] = value
		}
		return nil
	}
	e := configerr.All(err)[0]
	if e.Path != "" {
		key, _, _ := strings.Cut(e.Value, "=")
		return errf(d, "%s: key %q given more than once; keep one", what, key)
	}
	arg := e.Value
	k := v.Keys()[0]
	allow, disallow := "y", "n"
	if v == usage.ContentSignal {
		allow, disallow = "yes", "no"
	}
	where := "a path goes first and starts with /"
	if strings.HasPrefix(what, "robots_tag") {
		where = "robots_tag takes no path here: the route's matcher chooses the paths"
		if strings.HasPrefix(arg, "/") {
			return errf(d, "%s: %q: %s (robots_tag %s* { content_usage ... })", what, arg, where, strings.TrimSuffix(arg, "*"))
		}
	}
	return errf(d, "%s: %q: a preference is written key=value, e.g. %s=%s (allow) or %s=%s (disallow); %s", what, arg, k, allow, k, disallow, where)
}

// parseGroupUsage reads "content_usage [<path>] key=value..." or "content_signal ..." in
// group g; the cursor is on the sub-directive, block names the group in errors.
func parseGroupUsage(d *caddyfile.Dispenser, at *positions, block string, g *robotsgen.Group) error {
	sub := d.Val()
	v, list := usage.ContentUsage, &g.ContentUsage
	if sub == "content_signal" {
		v, list = usage.ContentSignal, &g.ContentSignal
	}
	what := block + ": " + sub
	args := d.RemainingArgs()
	if d.NextBlock(d.Nesting()) {
		return errf(d, "%s takes no block", what)
	}
	r := usage.Rule{Preferences: map[string]string{}}
	if len(args) > 0 && strings.HasPrefix(args[0], "/") {
		r.Path, args = args[0], args[1:]
	}
	if len(args) == 0 && r.Path == "" {
		return errf(d, "%s needs preferences, e.g. %s %s", what, sub, map[usage.Vocab]string{usage.ContentUsage: "train-ai=n search=y", usage.ContentSignal: "search=yes ai-train=no"}[v])
	}
	if err := parseUsageArgs(d, what, v, args, r.Preferences); err != nil {
		return err
	}
	*list = append(*list, r)
	at.mark(last(*list))
	return nil
}

// parseTagUsage reads "content_usage key=value..." in a robots_tag block.
func parseTagUsage(d *caddyfile.Dispenser, at *positions, h *RobotsTag) error {
	args := d.RemainingArgs()
	if len(args) == 0 {
		return errf(d, "robots_tag: content_usage needs preferences, e.g. content_usage train-ai=n")
	}
	if d.NextBlock(d.Nesting()) {
		return errf(d, "robots_tag: content_usage takes no block")
	}
	if h.ContentUsage == nil {
		h.ContentUsage = map[string]string{}
	}
	at.mark(&h.ContentUsage)
	for _, arg := range args {
		key, _, _ := strings.Cut(arg, "=")
		at.mark(entry{&h.ContentUsage, key})
	}
	return parseUsageArgs(d, "robots_tag: content_usage", usage.ContentUsage, args, h.ContentUsage)
}
