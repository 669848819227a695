package caddymodule

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/sitepolicy/caddy-robots/caddymodule/internal/command"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// init registers "caddy robots check|lint|report" (package internal/command), giving it the
// handlers' configs, the crawlers app and the Caddyfile lines the adapter records.
func init() {
	command.Register(command.Module{
		RecordSources: recordSources,
		Config:        robotsConfig,
		Crawlers:      checkCrawlersOf,
		ReadKeys:      readKeys,
	})
}

// robotsConfig is the config of a robots handler (command.Module.Config).
func robotsConfig(h caddyhttp.MiddlewareHandler) (*policy.RobotsTxt, *policy.Tags) {
	// The config as the handler serves it: its global placeholders ({env.*}) replaced as
	// Provision replaced them (which the config loaded for the command has passed), so that
	// check shows the pay_to, the sitemap or the rule a request gets.
	switch h := h.(type) {
	case *RobotsTxt:
		cfg, err := replacePlaceholders(h.RobotsTxt)
		if err != nil {
			cfg = h.RobotsTxt
		}
		return &cfg, nil
	case *RobotsTag:
		tags, err := replacePlaceholders(h.Tags)
		if err != nil {
			tags = h.Tags
		}
		return nil, &tags
	}
	return nil, nil
}

// checkCrawlersOf is the crawlers app loaded in ctx, for the commands, or nil.
func checkCrawlersOf(ctx caddy.Context) command.Crawlers {
	app, err := ctx.AppIfConfigured("crawlers")
	if err != nil {
		return nil
	}
	return checkCrawlers{app.(*Crawlers)}
}

// checkCrawlers is the crawlers app as the commands verify with it (command.Crawlers).
type checkCrawlers struct{ *Crawlers }

func (c checkCrawlers) StartCheck(log *slog.Logger, dirKeys map[string][]webbotauth.Key, noDNS bool) (*identity.Service, *webbotauth.Verifier, error) {
	svc, err := c.startCheckService(log, dirKeys, noDNS)
	if err != nil {
		return nil, nil, err
	}
	return svc, c.sigs, nil
}

func (c checkCrawlers) DirectoryAgents() []string {
	var out []string
	if c.Signatures != nil {
		for _, a := range c.Signatures.Agents {
			if u, err := webbotauth.NormalizeAgent(a.URL); err == nil && a.KeyFile == "" {
				out = append(out, u)
			}
		}
	}
	return out
}

func (c checkCrawlers) Identify(r *http.Request) {
	// Found without Caddy's client IP (its variables left out): the address is unknown.
	unknown := r.WithContext(context.WithValue(r.Context(), caddyhttp.VarsCtxKey, map[string]any{}))
	storeIdentity(r, c.find(unknown))
}
