// Package command is "caddy robots check|lint|report": it loads a Caddy config as "caddy run"
// loads it, walks its provisioned routes (package routewalk) to the robots handlers that a
// URL's request meets (check, report) or that each site block holds (lint), makes them a
// policycheck.Site, and leaves the checking and the output to policycheck and
// policycheck/cli, as the net/http front end's cmd/robots does.
//
// The handlers, the crawlers app and the Caddyfile adapter are package caddymodule's, which
// imports this package and gives it what the commands use of them (Register): this package
// cannot import caddymodule, so that building Caddy with the module alone gets the commands.
package command

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/policycheck"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// Module is what the commands use of package caddymodule.
type Module struct {
	// RecordSources runs adapt, the adaptation of file (as the Caddyfile adapter's "filename"
	// option names it), and returns the sources of the handlers the adapter built meanwhile,
	// by their CanonicalJSON, in Caddyfile order. An error of adapt comes back as a
	// *cli.FileError with the problems at their lines, when it names any.
	RecordSources func(file string, adapt func() error) (map[string][]policycheck.Source, error)
	// Config is the config of a robots handler: the robots.txt of a robots_txt handler, or
	// the tags of a robots_tag handler; nil and nil for another handler.
	Config func(h caddyhttp.MiddlewareHandler) (*policy.RobotsTxt, *policy.Tags)
	// Crawlers is the crawlers app loaded in ctx (configured, or loaded by a handler or
	// matcher with its defaults), or nil.
	Crawlers func(ctx caddy.Context) Crawlers
	// ReadKeys reads a key file: a JWK Set or one JWK.
	ReadKeys func(file string) ([]webbotauth.Key, error)
}

// Crawlers is the crawlers app, as check verifies with it.
type Crawlers interface {
	// StartCheck starts a verification of the app's own for check, with the server's options,
	// that reads only what is kept (the lists on disk, the local files), and returns it and
	// the signature verifier, which fetches no key directory (dirKeys are the keys given for
	// agents' directories instead); nil without signatures. The app then answers the walk's
	// crawler matchers with it. noDNS turns reverse DNS off.
	StartCheck(log *slog.Logger, dirKeys map[string][]webbotauth.Key, noDNS bool) (*identity.Service, *webbotauth.Verifier, error)
	// DirectoryAgents are the agents the config trusts without a key file (their keys come
	// from their directory), as normalized agent URLs.
	DirectoryAgents() []string
	// Identify gives r the identity the app makes of its User-Agent from an unknown address
	// (pending for a verifiable crawler), or of its signature, for the crawler matchers.
	Identify(r *http.Request)
	// Cleanup releases the app.
	Cleanup() error
}

// module is what Register was given.
var module Module

// Register registers "caddy robots" with Caddy's commands, using m.
func Register(m Module) {
	module = m
	caddycmd.RegisterCommand(robotsCommand())
}

// CanonicalJSON re-encodes a JSON object with sorted keys and without its "handler" member,
// so that a handler marshalled by the Caddyfile adapter's parser and the same handler in the
// adapted config compare equal: the key RecordSources notes a handler by.
func CanonicalJSON(b []byte) string {
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return string(b)
	}
	delete(v, "handler")
	out, err := json.Marshal(v)
	if err != nil {
		return string(b)
	}
	return string(out)
}
