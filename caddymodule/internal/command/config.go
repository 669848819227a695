package command

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/textproto"
	"slices"
	"strings"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/sitepolicy/caddy-robots/caddymodule/internal/routewalk"
	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/policycheck"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// Config is a config loaded as "caddy run" loads it, its routes provisioned for the walks,
// with the Caddyfile lines of its handlers.
type Config struct {
	// doc is the config's JSON, decoded (numbers as json.Number): the JSON of the matchers
	// lint names, and of the handlers paired with the adapter's notes.
	doc any
	// servers are the HTTP servers by name, their routes provisioned.
	servers map[string]*server
	// sources are the handlers' origins by JSON path.
	sources map[string]policycheck.Source
	// ctx holds what the walks meet (handlers, matchers, and the crawlers app when a module
	// loads it or the config has it); cancel cleans them up.
	ctx    caddy.Context
	cancel func()
	// crawlers is the crawlers app as the server loads it (configured, or with its defaults
	// when a handler or matcher needs it); nil when the config verifies no crawlers.
	crawlers Crawlers
	// svc and sigs are the verification check asks (startCrawlers); nil before.
	svc  *identity.Service
	sigs *webbotauth.Verifier
	// dirKeys are the keys check is given for agents whose keys come from their directory
	// (--signature-keys), by normalized agent URL.
	dirKeys map[string][]webbotauth.Key
	// noDNS turns reverse DNS off in the verification (report: a log holds too many
	// addresses to look up).
	noDNS bool
}

// server is an HTTP server of the config: what the walks read of it.
type server struct {
	Listen      []string                    `json:"listen"`
	Routes      caddyhttp.RouteList         `json:"routes"`
	NamedRoutes map[string]*caddyhttp.Route `json:"named_routes"`
}

// Load adapts and validates the config file (with the adapter, if given) as "caddy run"
// would, recording the Caddyfile lines of the handlers, and provisions its routes. Close it
// when done.
func Load(file, adapter string) (*Config, error) {
	data, sources, err := adapt(file, adapter)
	if err != nil {
		return nil, err
	}
	var cfg caddy.Config
	if err := caddy.StrictUnmarshalJSON(data, &cfg); err != nil {
		return nil, fmt.Errorf("decoding the config: %w", err)
	}
	if err := caddy.Validate(&cfg); err != nil {
		return nil, err
	}
	c := &Config{sources: map[string]policycheck.Source{}}
	if err := c.provision(data); err != nil {
		c.Close()
		return nil, err
	}
	c.pair(sources)
	return c, nil
}

// adapt reads the config file as caddycmd.LoadConfig does, with the sources the adapter
// records.
func adapt(file, adapter string) ([]byte, map[string][]policycheck.Source, error) {
	// LoadConfig names the file it adapts: the one given, else the Caddyfile of the directory.
	name := file
	if name == "" {
		name = "Caddyfile"
	}
	var data []byte
	sources, err := module.RecordSources(name, func() error {
		var err error
		data, _, _, err = caddycmd.LoadConfig(file, adapter)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if len(data) == 0 {
		return nil, nil, errors.New("no config: give --config, or run in a directory with a Caddyfile")
	}
	return data, sources, nil
}

// provision provisions the routes of every server of the config (JSON) in a context of
// their own, which loads the crawlers app when the config has it or a module needs it, as
// the server would, so that a crawler matcher finds it there.
func (c *Config) provision(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&c.doc); err != nil {
		return err
	}
	var raw struct {
		Apps struct {
			Crawlers json.RawMessage `json:"crawlers"`
			HTTP     struct {
				Servers map[string]*server `json:"servers"`
			} `json:"http"`
		} `json:"apps"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	c.servers = raw.Apps.HTTP.Servers
	// The apps load on demand, in c.ctx, so that cancel cleans up every module the walks
	// provisioned.
	base := &caddy.Config{}
	parent, err := caddy.ProvisionContext(base)
	if err != nil {
		return err
	}
	if raw.Apps.Crawlers != nil {
		base.AppsRaw = caddy.ModuleMap{"crawlers": raw.Apps.Crawlers}
	}
	c.ctx, c.cancel = caddy.NewContext(parent)
	for _, name := range c.serverNames() {
		s := c.servers[name]
		if err := s.Routes.Provision(c.ctx); err != nil {
			return err
		}
		for _, nr := range s.NamedRoutes {
			if err := nr.Provision(c.ctx, nil); err != nil {
				return err
			}
		}
	}
	if _, err := c.ctx.AppIfConfigured("crawlers"); err != nil && !errors.Is(err, caddy.ErrNotConfigured) {
		return err
	}
	c.crawlers = module.Crawlers(c.ctx)
	return nil
}

// pair pairs the handlers with the adapter's notes (sources): in config order, each takes
// the first note left with its JSON. Handlers with equal JSON are interchangeable, except for
// their lines, which then follow the config's order (the adapter sorts directives, so it may
// differ from the Caddyfile's).
func (c *Config) pair(sources map[string][]policycheck.Source) {
	for top := range c.topRoutes() {
		for _, f := range c.inSite(top) {
			src := policycheck.Source{}
			key := CanonicalJSON(c.rawAt(f.Path))
			if n := sources[key]; len(n) > 0 {
				src, sources[key] = n[0], n[1:]
			}
			src.JSONPath = f.Path
			c.sources[f.Path] = src
		}
	}
}

// rawAt is the JSON of the config at a JSON path, or nil.
func (c *Config) rawAt(path string) json.RawMessage {
	v, err := configerr.Resolve(c.doc, path)
	if err != nil {
		return nil
	}
	b, _ := json.Marshal(v)
	return b
}

// Verifies reports whether the config verifies crawlers (it has or loads the crawlers app).
func (c *Config) Verifies() bool { return c.crawlers != nil }

// Sources are the origins of the config's robots handlers, by JSON path.
func (c *Config) Sources() map[string]policycheck.Source { return c.sources }

// startCrawlers starts the verification check asks, when the config verifies crawlers, and
// returns it with the check's signature verifier; nil when it verifies none.
func (c *Config) startCrawlers() (*identity.Service, *webbotauth.Verifier, error) {
	if c.crawlers == nil {
		return nil, nil, nil
	}
	if c.svc == nil {
		svc, sigs, err := c.crawlers.StartCheck(c.ctx.Slogger(), c.dirKeys, c.noDNS)
		if err != nil {
			return nil, nil, err
		}
		c.svc, c.sigs = svc, sigs
	}
	return c.svc, c.sigs, nil
}

// Close stops the check's verification and cleans up the provisioned routes and the
// crawlers app.
func (c *Config) Close() {
	if c.svc != nil {
		c.svc.Stop()
	}
	if c.cancel != nil {
		c.cancel()
	}
}

// source returns where the handler at the JSON path came from.
func (c *Config) source(path string) policycheck.Source {
	if s, ok := c.sources[path]; ok {
		return s
	}
	return policycheck.Source{JSONPath: path}
}

// serverNames returns the servers' names, sorted.
func (c *Config) serverNames() []string {
	var names []string
	for n := range c.servers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// topRoute is a top-level route of a server (a site block of a Caddyfile).
type topRoute struct {
	server string
	path   string // its JSON path
	route  *caddyhttp.Route
}

// topRoutes yields the top-level routes of every server, servers in name order.
func (c *Config) topRoutes() iter.Seq[topRoute] {
	return func(yield func(topRoute) bool) {
		for _, name := range c.serverNames() {
			rs := c.servers[name].Routes
			for i := range rs {
				if !yield(topRoute{name, fmt.Sprintf("apps.http.servers.%s.routes[%d]", name, i), &rs[i]}) {
					return
				}
			}
		}
	}
}

// walk is a walk over the routes of server that notes the robots handlers it meets.
func (c *Config) walk(server string, req *http.Request, found *[]Found) *routewalk.Walk {
	return &routewalk.Walk{Server: server, Named: c.servers[server].NamedRoutes, Request: req, Visit: func(h routewalk.Handler) bool {
		txt, tags := module.Config(h.Handler)
		if txt == nil && tags == nil {
			return false
		}
		f := Found{Handler: "robots_tag", Path: h.Path, Rewritten: h.Rewritten, tags: tags, robotsTxt: txt}
		if txt != nil {
			f.Handler = "robots_txt"
		}
		f.Matchers = c.matchersOf(h.Way)
		*found = append(*found, f)
		// The robots.txt responder answers /robots.txt.
		return txt != nil && req != nil && req.URL.Path == "/robots.txt"
	}}
}

// signatureKeys reads file, the JWK Set of a key directory (--signature-keys), as the keys of
// the agents the signatures of the header lines name: each must be an agent the config
// trusts without a key file, whose keys the server fetches from its directory.
func (c *Config) signatureKeys(file string, lines []string) (map[string][]webbotauth.Key, error) {
	keys, err := module.ReadKeys(file)
	if err != nil {
		return nil, fmt.Errorf("--signature-keys %q: %v", file, err)
	}
	h := headerOf(lines)
	sigs, _ := webbotauth.ParseSignatures(h)
	var fromDir []string
	if c.crawlers != nil {
		fromDir = c.crawlers.DirectoryAgents()
	}
	out := map[string][]webbotauth.Key{}
	for i := range sigs {
		agent, err := sigs[i].SignatureAgent(h)
		if err != nil || agent == "" || sigs[i].Tag != webbotauth.Tag {
			continue
		}
		if !slices.Contains(fromDir, agent) {
			return nil, fmt.Errorf("--signature-keys: the signature's agent %s is not one the config trusts with its keys from its directory (signature_agent without a key file)", agent)
		}
		out[agent] = keys
	}
	if len(out) == 0 {
		return nil, errors.New("--signature-keys: no --header line carries a web-bot-auth signature naming its agent (Signature-Input, Signature, Signature-Agent)")
	}
	return out, nil
}

// headerOf reads the client's "Name: value" lines (--header); a line that is not one is
// skipped here, and policycheck.Check reports it.
func headerOf(lines []string) http.Header {
	h := http.Header{}
	for _, line := range lines {
		if name, value, ok := strings.Cut(line, ":"); ok {
			h.Add(textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(name)), strings.TrimSpace(value))
		}
	}
	return h
}
