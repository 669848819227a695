package caddymodule

import (
	"strings"

	"github.com/caddyserver/caddy/v2"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/policy"
)

// replacePlaceholders returns a copy of a handler's config with the global placeholders
// ({env.*}, {system.*}, ...) replaced in every string, when the handler is provisioned; the
// handler keeps the config as written. The values are used ahead of any request (robots.txt
// is rendered and the Robots-Tag values serialised at load), so a placeholder that is
// unknown then, such as a request placeholder, is an error naming the field, rather than
// text that would silently end up in the output. A literal brace is written \{.
func replacePlaceholders[T any](v T) (T, error) {
	repl := caddy.NewReplacer()
	return policy.ReplaceStrings(v, func(path, s string) (string, error) {
		if !strings.Contains(s, "{") {
			return s, nil
		}
		out, err := repl.ReplaceOrErr(s, false, true)
		if err != nil {
			return s, configerr.New(path, s, err.Error()+" (only global placeholders such as {env.NAME} are known when the config is loaded)")
		}
		return out, nil
	})
}

// hasPlaceholder reports whether a string of v, as replacePlaceholders walks them, may hold
// a placeholder: the Caddyfile adapter leaves the checks that depend on one to Provision.
func hasPlaceholder[T any](v T) bool {
	found := false
	policy.ReplaceStrings(v, func(_, s string) (string, error) {
		found = found || strings.Contains(s, "{")
		return s, nil
	})
	return found
}
