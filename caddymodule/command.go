package caddymodule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/rewrite"
	"github.com/spf13/cobra"

	"github.com/sitepolicy/caddy-robots/policycheck"
	"github.com/sitepolicy/caddy-robots/policycheck/cli"
)

// init registers "caddy robots check" and "caddy robots lint".
func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "robots",
		Usage: "check|lint --config <path> [--adapter <name>] ...",
		Short: "Shows what a crawler sees at a URL, and finds robots policies that defeat themselves",
		Long: `
Checks the robots_txt and robots_tag handlers of a config before it is deployed,
offline. The config is loaded as 'caddy run' loads it (same adapter, same
modules, validated by provisioning every app without starting it).

  caddy robots check --config Caddyfile --url https://example.com/drafts/x [--agent Googlebot]

explains one request: the server and routes that handle the URL, the
robots.txt decision for the agent (the group chosen and why, the rule line that
decided, in the file as served), the Robots-Tag, X-Robots-Tag and <meta>
elements the response gets, the robots.txt usage preferences and whether
enforcement answers the request. Exit status 0 when robots.txt allows the URL,
1 when it disallows it, 2 on a config or usage error.

  caddy robots lint --config Caddyfile

reports the policies that defeat themselves (noindex on paths robots.txt keeps
the crawler away from, rules that never decide, misspelt crawler names, ...),
each with its Caddyfile line, a severity and a one-line fix. Exit status 0
without findings at warning level or above, 1 otherwise, 2 on a config error.

Both take --format json for scripts.
`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.AddCommand(checkCommand(), lintCommand())
		},
	})
}

// commandFlags are the flags both subcommands take.
type commandFlags struct {
	config, adapter, format string
}

func (f *commandFlags) add(c *cobra.Command) {
	c.Flags().StringVarP(&f.config, "config", "c", "", "Configuration file (default: the Caddyfile in the current directory, as for caddy run)")
	c.Flags().StringVarP(&f.adapter, "adapter", "a", "", "Name of config adapter to apply")
	c.Flags().StringVar(&f.format, "format", "text", "Output format: text or json")
}

func checkCommand() *cobra.Command {
	var f commandFlags
	var rawURL, agent, purpose, robotsFile string
	var backend []string
	c := &cobra.Command{
		Use:   "check --config <path> [--adapter <name>] --url <url> [--agent <agent>] [--purpose <token>] [--backend-header 'Robots-Tag: ...']... [--robots-file <file>] [--format text|json]",
		Short: "Explains what a crawler sees at a URL",
		Args:  cobra.ArbitraryArgs,
	}
	f.add(c)
	c.SetFlagErrorFunc(flagError)
	c.Flags().StringVar(&rawURL, "url", "", "The absolute URL to check (required)")
	c.Flags().StringVar(&agent, "agent", "*", "The crawler: a product token or a whole User-Agent header")
	c.Flags().StringVar(&purpose, "purpose", "", "The crawler's User-Agent-Purpose token")
	c.Flags().StringArrayVar(&backend, "backend-header", nil, "A header line the backend sends itself, e.g. 'Robots-Tag: noindex' (repeatable)")
	c.Flags().StringVar(&robotsFile, "robots-file", "", "Decide with this robots.txt file instead of the config's")
	c.RunE = exitWith(func(stdout, stderr io.Writer, args []string) (int, error) {
		if err := usageChecks(f, args); err != nil {
			return cli.ExitUsage, err
		}
		if rawURL == "" {
			return cli.ExitUsage, errors.New("--url is required")
		}
		req := policycheck.Request{URL: rawURL, Agent: agent, Purpose: purpose, BackendHeaders: backend}
		if robotsFile != "" {
			b, err := os.ReadFile(robotsFile)
			if err != nil {
				return cli.ExitUsage, err
			}
			req.RobotsFile, req.RobotsFileName = b, robotsFile
		}
		var site *policycheck.Site
		var at *where
		if f.config == "" && robotsFile != "" && !fileExists("Caddyfile") {
			// Only a robots.txt file to test: no config is needed.
			site, at = &policycheck.Site{}, &where{server: "none (no config)", handlers: []string{"no robots handler"}}
		} else {
			cfg, err := loadConfig(f)
			if err != nil {
				return cli.ExitUsage, err
			}
			if site, at, err = cfg.siteFor(rawURL); err != nil {
				return cli.ExitUsage, err
			}
		}
		rep, err := cli.Check(site, req)
		if err != nil {
			return cli.ExitUsage, err
		}
		rep.Notes = append(at.notes, rep.Notes...)
		out := &caddyReport{Report: rep, Server: at.server, Handlers: at.handlers}
		if f.format == "json" {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			err = enc.Encode(out)
		} else {
			fmt.Fprintf(stdout, "Server:   %s (%s)\n", at.server, strings.Join(at.handlers, ", "))
			err = rep.WriteText(stdout)
		}
		if err != nil {
			return cli.ExitUsage, err
		}
		if !rep.Allowed {
			return cli.ExitFail, nil
		}
		return cli.ExitOK, nil
	})
	return c
}

// caddyReport is check's JSON: policycheck.Report's members, and where in the Caddy config
// the URL is handled.
type caddyReport struct {
	*policycheck.Report
	// Server is the name of the server (apps.http.servers.<name>) that takes the URL.
	Server string `json:"server"`
	// Handlers are the robots_txt and robots_tag handlers that the URL's request passes
	// through, as Caddyfile lines or JSON paths.
	Handlers []string `json:"handlers"`
}

func lintCommand() *cobra.Command {
	var f commandFlags
	c := &cobra.Command{
		Use:   "lint --config <path> [--adapter <name>] [--format text|json]",
		Short: "Finds robots policies that defeat themselves",
		Args:  cobra.ArbitraryArgs,
	}
	f.add(c)
	c.SetFlagErrorFunc(flagError)
	c.RunE = exitWith(func(stdout, stderr io.Writer, args []string) (int, error) {
		if err := usageChecks(f, args); err != nil {
			return cli.ExitUsage, err
		}
		cfg, err := loadConfig(f)
		if err != nil {
			return cli.ExitUsage, err
		}
		return cli.RunLint(stdout, cfg.sites(), f.format)
	})
	return c
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

func usageChecks(f commandFlags, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected argument %q", args[0])
	}
	return cli.CheckFormat(f.format)
}

// exitWith runs a subcommand and turns its status into the process's exit status: an error
// is printed on stderr, and 1 and 2 reach caddycmd.Main as errors it exits with.
func exitWith(run func(stdout, stderr io.Writer, args []string) (int, error)) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		status, err := run(c.OutOrStdout(), c.ErrOrStderr(), args)
		if err != nil {
			fmt.Fprintf(c.ErrOrStderr(), "caddy robots %s: %v\n", c.Name(), err)
			if f, _ := c.Flags().GetString("format"); f == "json" {
				_ = cli.WriteErrorJSON(c.OutOrStdout(), err)
			}
		}
		return exitStatus(c, status)
	}
}

// exitStatus makes caddycmd.Main exit with status: Main exits 1 on any error, and with the
// status of the error that caddycmd.WrapCommandFuncForCobra returns for a status above 1.
func exitStatus(c *cobra.Command, status int) error {
	if status == 0 {
		return nil
	}
	c.SilenceErrors, c.SilenceUsage = true, true
	if status == 1 {
		return errors.New("exit status 1")
	}
	return caddycmd.WrapCommandFuncForCobra(func(caddycmd.Flags) (int, error) { return status, nil })(c, nil)
}

// flagError makes a flag the subcommand does not know, or a bad flag value, a usage error
// (status 2).
func flagError(c *cobra.Command, err error) error {
	fmt.Fprintf(c.ErrOrStderr(), "caddy robots %s: %v\n", c.Name(), err)
	return exitStatus(c, cli.ExitUsage)
}

// loadedConfig is a config loaded as "caddy run" loads it, with the Caddyfile lines of its
// handlers.
type loadedConfig struct {
	raw struct {
		Apps struct {
			HTTP struct {
				Servers map[string]struct {
					Listen []string          `json:"listen"`
					Routes []json.RawMessage `json:"routes"`
				} `json:"servers"`
			} `json:"http"`
		} `json:"apps"`
	}
	// sources are the handlers' origins by JSON path.
	sources map[string]policycheck.Source
	ctx     caddy.Context
}

// loadConfig adapts and validates the config as "caddy run" would, recording the Caddyfile
// lines of the handlers.
func loadConfig(f commandFlags) (*loadedConfig, error) {
	lc := &loadedConfig{sources: map[string]policycheck.Source{}}
	var data []byte
	sources, err := recordSources(func() error {
		var err error
		data, _, _, err = caddycmd.LoadConfig(f.config, f.adapter)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, errors.New("no config: give --config, or run in a directory with a Caddyfile")
	}
	var cfg caddy.Config
	if err := caddy.StrictUnmarshalJSON(data, &cfg); err != nil {
		return nil, fmt.Errorf("decoding the config: %w", err)
	}
	if err := caddy.Validate(&cfg); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &lc.raw); err != nil {
		return nil, err
	}
	ctx, _ := caddy.NewContext(caddy.Context{Context: context.Background()})
	lc.ctx = ctx
	// Pair the handlers with the parsers' notes: in config order, each takes the first note
	// left with its JSON. Handlers with equal JSON are interchangeable, except for their lines,
	// which then follow the config's order (the adapter sorts directives, so it may differ
	// from the Caddyfile's).
	for top := range lc.topRoutes() {
		var fs []found
		collect(top.route, top.path, nil, false, &fs)
		for _, f := range fs {
			src := policycheck.Source{}
			key := canonicalJSON(f.raw)
			if n := sources[key]; len(n) > 0 {
				src, sources[key] = n[0], n[1:]
			}
			src.JSONPath = f.path
			lc.sources[f.path] = src
		}
	}
	return lc, nil
}

// source returns where the handler at the JSON path came from.
func (lc *loadedConfig) source(_ json.RawMessage, path string) policycheck.Source {
	if s, ok := lc.sources[path]; ok {
		return s
	}
	return policycheck.Source{JSONPath: path}
}

// serverNames returns the servers' names, sorted.
func (lc *loadedConfig) serverNames() []string {
	var names []string
	for n := range lc.raw.Apps.HTTP.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// topRoute is a top-level route of a server (a site block of a Caddyfile).
type topRoute struct {
	server string
	path   string // its JSON path
	route  route
}

// topRoutes yields the top-level routes of every server, servers in name order; a route
// that does not decode is skipped (caddy.Validate has accepted the config already).
func (lc *loadedConfig) topRoutes() iter.Seq[topRoute] {
	return func(yield func(topRoute) bool) {
		for _, name := range lc.serverNames() {
			for i, rr := range lc.raw.Apps.HTTP.Servers[name].Routes {
				var rt route
				if json.Unmarshal(rr, &rt) != nil {
					continue
				}
				if !yield(topRoute{name, fmt.Sprintf("apps.http.servers.%s.routes[%d]", name, i), rt}) {
					return
				}
			}
		}
	}
}

// found is one robots handler met in a walk of the routes.
type found struct {
	handler string // "robots_txt" or "robots_tag"
	raw     json.RawMessage
	path    string // JSON path of the handler
	// matchers are the match sets of the enclosing routes, outermost first (only for lint).
	matchers []json.RawMessage
	// rewritten says whether a rewrite ran before the handler in the walk.
	rewritten bool
}

// terminal are the standard handlers that answer without calling the next handler: no
// handler after them in a route, and no later route, sees the request.
var terminal = map[string]bool{
	"static_response": true, "file_server": true, "reverse_proxy": true, "error": true,
	"acme_server": true, "copy_response": true,
}

// handlerOf reads a handler's name.
func handlerOf(raw json.RawMessage) string {
	var h struct {
		Handler string `json:"handler"`
	}
	_ = json.Unmarshal(raw, &h)
	return h.Handler
}

type route struct {
	Group    string            `json:"group"`
	Match    []json.RawMessage `json:"match"`
	Handle   []json.RawMessage `json:"handle"`
	Terminal bool              `json:"terminal"`
}

// walkRequest follows req through routes as caddyhttp does (matchers, groups, subroutes,
// terminal routes and handlers that answer), collecting the robots handlers it passes. stop
// is set when the request is answered.
func (lc *loadedConfig) walkRequest(req *http.Request, raws []json.RawMessage, path string, out *[]found, notes *[]string) (stop bool, err error) {
	groups := map[string]bool{}
	for i, rr := range raws {
		var rt route
		if err := json.Unmarshal(rr, &rt); err != nil {
			return false, err
		}
		at := fmt.Sprintf("%s[%d]", path, i)
		if rt.Group != "" && groups[rt.Group] {
			continue
		}
		ok, err := lc.matches(req, rt.Match)
		if err != nil {
			return false, fmt.Errorf("%s.match: %w", at, err)
		}
		if !ok {
			continue
		}
		if rt.Group != "" {
			groups[rt.Group] = true
		}
		for j, h := range rt.Handle {
			hp := fmt.Sprintf("%s.handle[%d]", at, j)
			switch name := handlerOf(h); name {
			case "subroute":
				var sub struct {
					Routes []json.RawMessage `json:"routes"`
				}
				if err := json.Unmarshal(h, &sub); err != nil {
					return false, err
				}
				stop, err := lc.walkRequest(req, sub.Routes, hp+".routes", out, notes)
				if stop || err != nil {
					return stop, err
				}
			case "robots_txt":
				*out = append(*out, found{handler: name, raw: h, path: hp})
				if req.URL.Path == "/robots.txt" {
					return true, nil
				}
			case "robots_tag":
				*out = append(*out, found{handler: name, raw: h, path: hp})
			case "rewrite":
				// Later matchers see the rewritten URI (handle_path strips its prefix).
				var rw rewrite.Rewrite
				if err := json.Unmarshal(h, &rw); err != nil {
					return false, err
				}
				if err := rw.Provision(lc.ctx); err != nil {
					return false, fmt.Errorf("%s: %w", hp, err)
				}
				repl, _ := req.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
				if rw.Rewrite(req, repl) {
					*notes = append(*notes, fmt.Sprintf("the rewrite at %s changes the request to %s before later handlers", hp, req.URL.RequestURI()))
				}
			default:
				if terminal[name] {
					return true, nil
				}
			}
		}
		if rt.Terminal {
			return true, nil
		}
	}
	return false, nil
}

// matches reports whether one of the match sets accepts req (no sets: every request).
func (lc *loadedConfig) matches(req *http.Request, sets []json.RawMessage) (bool, error) {
	if len(sets) == 0 {
		return true, nil
	}
	r := caddyhttp.Route{}
	for _, s := range sets {
		var m caddy.ModuleMap
		if err := json.Unmarshal(s, &m); err != nil {
			return false, err
		}
		r.MatcherSetsRaw = append(r.MatcherSetsRaw, m)
	}
	if err := r.ProvisionMatchers(lc.ctx); err != nil {
		return false, err
	}
	return r.MatcherSets.AnyMatchWithError(req)
}

// request prepares a request for rawURL as a Caddy server would see it.
func request(rawURL string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, rawURL, nil)
	repl := caddy.NewReplacer()
	return caddyhttp.PrepareRequest(r, repl, httptest.NewRecorder(), &caddyhttp.Server{})
}

// where is the part of the config that takes a URL.
type where struct {
	server   string
	handlers []string
	notes    []string
}

// siteFor returns the Site that the request for rawURL meets: the robots.txt served at its
// origin, and the robots_tag handlers its request passes through.
func (lc *loadedConfig) siteFor(rawURL string) (*policycheck.Site, *where, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, nil, fmt.Errorf("--url %q: give an absolute http or https URL, e.g. https://example.com/page.html", rawURL)
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	p, _ := strconv.ParseUint(port, 10, 16)
	var name string
	for _, n := range lc.serverNames() {
		for _, l := range lc.raw.Apps.HTTP.Servers[n].Listen {
			addr, err := caddy.ParseNetworkAddress(l)
			if err == nil && uint(p) >= addr.StartPort && uint(p) <= addr.EndPort && name == "" {
				name = n
			}
		}
	}
	if name == "" {
		msg := fmt.Sprintf("no server of the config listens on port %s", port)
		if port == "80" {
			msg += " (Caddy's automatic HTTPS redirects http:// to https://: check the https:// URL)"
		}
		return nil, nil, errors.New(msg)
	}
	routes := lc.raw.Apps.HTTP.Servers[name].Routes
	base := "apps.http.servers." + name + ".routes"
	w := &where{server: name}

	var forURL, forRobots []found
	if _, err := lc.walkRequest(request(rawURL), routes, base, &forURL, &w.notes); err != nil {
		return nil, nil, err
	}
	var ignored []string
	robotsURL := u.Scheme + "://" + u.Host + "/robots.txt"
	if _, err := lc.walkRequest(request(robotsURL), routes, base, &forRobots, &ignored); err != nil {
		return nil, nil, err
	}
	site := &policycheck.Site{Name: name, Hosts: []string{u.Hostname()}}
	// The robots.txt is the one the robots_txt handler that ends the /robots.txt walk serves.
	robotsPath := ""
	for _, f := range forRobots {
		if f.handler != "robots_txt" {
			continue
		}
		robotsPath = f.path
		var h RobotsTxt
		if err := json.Unmarshal(f.raw, &h); err != nil {
			return nil, nil, err
		}
		site.RobotsTxt = &policycheck.RobotsTxt{Config: h.RobotsTxt, Source: lc.source(f.raw, f.path)}
	}
	enforcing := false
	for _, f := range forURL {
		src := lc.source(f.raw, f.path)
		w.handlers = append(w.handlers, f.handler+" at "+src.At("").String())
		switch f.handler {
		case "robots_txt":
			// Enforcement runs in the handler that serves the site's robots.txt, for the
			// requests that pass through it.
			enforcing = enforcing || f.path == robotsPath
		case "robots_tag":
			var h RobotsTag
			if err := json.Unmarshal(f.raw, &h); err != nil {
				return nil, nil, err
			}
			site.Routes = append(site.Routes, policycheck.Route{Tags: h.Tags, Source: src})
		}
	}
	if site.RobotsTxt != nil && !enforcing && site.RobotsTxt.Config.Enforce != nil {
		// The request for the URL does not pass the enforcing handler.
		c := *site.RobotsTxt
		c.Config.Enforce = nil
		site.RobotsTxt = &c
	}
	if len(w.handlers) == 0 {
		w.handlers = []string{"no robots handler"}
	}
	return site, w, nil
}

// sites returns a Site per site block (top-level route) of each server, with every robots
// handler in it: the first robots_txt, and the robots_tag handlers with the paths of their
// routes' path matchers.
func (lc *loadedConfig) sites() []*policycheck.Site {
	var out []*policycheck.Site
	for top := range lc.topRoutes() {
		rt := top.route
		var hosts []string
		for _, m := range rt.Match {
			var hm struct {
				Host []string `json:"host"`
			}
			if json.Unmarshal(m, &hm) == nil {
				hosts = append(hosts, hm.Host...)
			}
		}
		var fs []found
		collect(rt, top.path, nil, false, &fs)
		if len(fs) == 0 {
			continue
		}
		site := &policycheck.Site{Name: top.server, Hosts: hosts}
		if len(hosts) > 0 {
			site.Name = strings.Join(hosts, ", ")
		}
		for _, f := range fs {
			src := lc.source(f.raw, f.path)
			switch f.handler {
			case "robots_txt":
				var h RobotsTxt
				if json.Unmarshal(f.raw, &h) == nil && site.RobotsTxt == nil {
					site.RobotsTxt = &policycheck.RobotsTxt{Config: h.RobotsTxt, Source: src}
				}
			case "robots_tag":
				var h RobotsTag
				if json.Unmarshal(f.raw, &h) != nil {
					continue
				}
				r := policycheck.Route{Tags: h.Tags, Source: src}
				r.Paths, r.Condition = pathsOf(f.matchers)
				if f.rewritten {
					r.Condition = strings.TrimPrefix(r.Condition+"; a rewrite before it", "; ")
				}
				site.Routes = append(site.Routes, r)
			}
		}
		out = append(out, site)
	}
	return out
}

// collect gathers the robots handlers under rt, depth first, with the match sets of the routes
// that lead to them (the site's own host matcher left out).
func collect(rt route, path string, matchers []json.RawMessage, rewritten bool, out *[]found) {
	for j, h := range rt.Handle {
		hp := fmt.Sprintf("%s.handle[%d]", path, j)
		switch name := handlerOf(h); name {
		case "subroute":
			var sub struct {
				Routes []route `json:"routes"`
			}
			if json.Unmarshal(h, &sub) != nil {
				continue
			}
			for k, s := range sub.Routes {
				var ms []json.RawMessage
				if len(s.Match) > 0 {
					ms = append(append(ms, matchers...), joinSets(s.Match))
				} else {
					ms = matchers
				}
				collect(s, fmt.Sprintf("%s.routes[%d]", hp, k), ms, rewritten, out)
				for _, sh := range s.Handle {
					rewritten = rewritten || handlerOf(sh) == "rewrite"
				}
			}
		case "robots_txt", "robots_tag":
			*out = append(*out, found{handler: name, raw: h, path: hp, matchers: matchers, rewritten: rewritten})
		case "rewrite":
			rewritten = true
		}
	}
}

// joinSets keeps a route's match sets (ORed) as one JSON array.
func joinSets(sets []json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(sets)
	return b
}

// pathsOf reads the path patterns of the matchers that lead to a handler: the paths of the
// first level whose match sets all have a path matcher bound the paths the handler sees; any
// other matcher, or a further level of paths, makes the route conditional.
func pathsOf(levels []json.RawMessage) (paths []string, condition string) {
	var conds []string
	for _, lvl := range levels {
		var sets []map[string]json.RawMessage
		if json.Unmarshal(lvl, &sets) != nil {
			return nil, "a matcher"
		}
		var ps []string
		all := true
		for _, s := range sets {
			for _, k := range slices.Sorted(maps.Keys(s)) {
				if k != "path" {
					conds = append(conds, "matcher "+k+" "+string(s[k]))
					continue
				}
				var p []string
				_ = json.Unmarshal(s[k], &p)
				ps = append(ps, p...)
			}
			_, has := s["path"]
			all = all && has
		}
		switch {
		case all && paths == nil:
			paths = ps
		case all:
			conds = append(conds, "nested path matchers")
		}
	}
	return paths, strings.Join(conds, "; ")
}
