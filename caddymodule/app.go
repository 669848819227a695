package caddymodule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/redisstore"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

func init() {
	caddy.RegisterModule(Crawlers{})
}

// Crawlers is the "crawlers" app: the process's crawler verification (package identity),
// shared by every site and kept over config reloads. It checks that a request naming a
// crawler of the bot catalogue comes from that crawler's operator: from the address lists
// the operators publish (fetched over HTTPS when the server starts, refreshed daily in the
// background, kept on disk so that a restart without network still verifies) and by
// forward-confirmed reverse DNS for the operators that document host names (looked up in
// the background, never during a request).
//
// The client address is Caddy's client IP: the connection's address, or with the server's
// trusted_proxies, the address the trusted proxy reports; never a forwarding header on its
// own.
//
// The app is loaded with its defaults when a crawler matcher or enforce's impostors need it;
// configure it with the "crawlers" global option. A reload whose crawlers config is
// unchanged keeps the running verification (no list is fetched again); a changed one starts
// from the lists kept on disk.
type Crawlers struct {
	// Lists configure the operators' published address lists.
	Lists *CrawlerLists `json:"lists,omitempty"`
	// ReverseDNS configures forward-confirmed reverse DNS.
	ReverseDNS *CrawlerDNS `json:"reverse_dns,omitempty"`
	// Signatures configures Web Bot Auth: the signature agents trusted, and the bots of the
	// catalogue their signed requests are.
	Signatures *CrawlerSignatures `json:"signatures,omitempty"`
	// Store, if set, is the store the instances of a fleet share (docs/fleet.md); without
	// it each process keeps its own state.
	Store *CrawlerStore `json:"store,omitempty"`

	store    *redisstore.Store // nil without Store
	storeKey string            // the store's key in stores

	svc    *identity.Service
	sigs   *webbotauth.Verifier  // nil without signatures
	ids    identity.Identifier   // svc's Verifier and sigs, from Caddy's client IP
	dir    *webbotauth.Directory // the key directory fetcher; nil without signatures
	key    string
	logger *zap.Logger
}

// CrawlerSignatures configures Web Bot Auth (package webbotauth): requests signed with HTTP
// Message Signatures by an agent that publishes its keys.
type CrawlerSignatures struct {
	// Agents are the signature agents trusted.
	Agents []SignatureAgent `json:"agents,omitempty"`
	// FetchUntrusted fetches the key directory of agents that are not trusted too, so that
	// their valid signatures are "signed" rather than unknown; off by default, since every
	// such fetch is one a client asked for.
	FetchUntrusted bool `json:"fetch_untrusted,omitempty"`
	// ReplayProtection refuses a signature whose nonce was seen before within its validity
	// (it is then "replayed", no proof). The memory of nonces is bounded: 100,000 nonces of
	// trusted agents' keys and 100,000 of others', at most 96 bytes each, so that agents
	// nobody trusts (fetch_untrusted) cannot evict, nor make replays of, trusted agents'
	// nonces; see webbotauth.Nonces.
	ReplayProtection bool `json:"replay_protection,omitempty"`
	// Skew is the clock difference tolerated on a signature's created and expires; default
	// 60s.
	Skew caddy.Duration `json:"skew,omitempty"`
	// MaxValidity is the longest expires - created accepted; default 24h (the draft's
	// recommended bound).
	MaxValidity caddy.Duration `json:"max_validity,omitempty"`
}

// SignatureAgent is a trusted signature agent.
type SignatureAgent struct {
	// URL is the https URL the agent names in Signature-Agent.
	URL string `json:"url"`
	// Bot is the bot of the catalogue (ID or name) its verified requests are.
	Bot string `json:"bot"`
	// KeyFile, if set, is a JWK or JWK Set file of its keys, for an agent that publishes no
	// directory; without it the keys come from its key directory.
	KeyFile string `json:"key_file,omitempty"`
}

// CrawlerLists configure the operators' published address lists.
type CrawlerLists struct {
	// Off turns the lists off: bots only they verify stay pending.
	Off bool `json:"off,omitempty"`
	// Dir keeps each list's last good document; default: "crawler-lists" in Caddy's data
	// directory.
	Dir string `json:"dir,omitempty"`
	// Local maps a list's URL (as the bot catalogue names it) to a file read instead of
	// fetching it, for air-gapped hosts.
	Local map[string]string `json:"local,omitempty"`
	// Offline uses only the lists Local maps to files; nothing is fetched.
	Offline bool `json:"offline,omitempty"`
	// Refresh is how often a list is fetched again (jittered by a tenth); default 24h.
	Refresh caddy.Duration `json:"refresh,omitempty"`
	// MaxAge is how old a list may grow without a successful fetch before it is not trusted
	// any more; default 7 days.
	MaxAge caddy.Duration `json:"max_age,omitempty"`
	// Timeout bounds one fetch; default 30s.
	Timeout caddy.Duration `json:"timeout,omitempty"`
	// MaxSize bounds one document in bytes; default 8 MiB.
	MaxSize int64 `json:"max_size,omitempty"`
}

// CrawlerDNS configures forward-confirmed reverse DNS.
type CrawlerDNS struct {
	// Off turns reverse DNS off: bots only it verifies stay pending.
	Off bool `json:"off,omitempty"`
	// Positive and Negative are how long an answer is kept (defaults 24h and 1h).
	Positive caddy.Duration `json:"positive_ttl,omitempty"`
	Negative caddy.Duration `json:"negative_ttl,omitempty"`
	// MaxEntries bounds the answers kept (default 100,000).
	MaxEntries int `json:"max_entries,omitempty"`
	// MaxInFlight bounds the lookups in progress at once (default 32).
	MaxInFlight int `json:"max_in_flight,omitempty"`
	// Timeout bounds one lookup (default 5s).
	Timeout caddy.Duration `json:"timeout,omitempty"`
	// Wait, if set, is how long a request from an address not yet looked up waits for the
	// answer (at most once per address and cache lifetime) instead of being pending.
	Wait caddy.Duration `json:"wait,omitempty"`
	// Resolver, if set, is the DNS server asked ("ip:port", or an IP for port 53) instead of
	// the system's resolver: a local resolver the operator trusts.
	Resolver string `json:"resolver,omitempty"`
}

// CaddyModule returns the Caddy module information.
func (Crawlers) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "crawlers",
		New: func() caddy.Module { return new(Crawlers) },
	}
}

// services holds the verification of each distinct crawlers config in use, so that a reload
// with the same config keeps it (its lists, its DNS cache) instead of starting over.
var services = caddy.NewUsagePool()

type serviceEntry struct {
	*identity.Service
	sigs *webbotauth.Verifier
	dir  *webbotauth.Directory
}

func (e serviceEntry) Destruct() error {
	e.Stop()
	if e.dir != nil {
		e.dir.Close()
	}
	return nil
}

// testDirectoryOptions, when set by a test, configures the key directory fetcher (its trust
// roots, the loopback addresses allowed).
var testDirectoryOptions *webbotauth.DirectoryOptions

// appStarts counts Start calls, so that tests can tell a validated config (never started)
// from a running one.
var appStarts atomic.Int64

// testResolver, when set by a test, answers reverse DNS instead of the system's resolver (a
// config's dns_resolver still wins).
var testResolver identity.Resolver

// Provision finds or creates the verification for this config. Nothing is fetched or looked
// up here (a config that is only validated does no network work): that starts with Start.
func (a *Crawlers) Provision(ctx caddy.Context) error {
	a.logger = ctx.Logger()
	if err := usePlaceholderCheck(ctx); err != nil {
		return err
	}
	if err := a.validate(); err != nil {
		return configerr.Prefix("crawlers", err)
	}
	key, err := json.Marshal(a)
	if err != nil {
		return err
	}
	// The verification keeps the store's client: a changed value of a placeholder in the
	// store's config makes a new one.
	storeKey, err := a.provisionStore(ctx.Slogger())
	if err != nil {
		return configerr.Prefix("crawlers", err)
	}
	a.key = string(key) + "\x00" + storeKey
	opts := a.serviceOptions(ctx.Slogger())
	opts.DNS.Store = a.fleetStore() // the server's verification shares its verdicts; check's does not
	v, _, err := services.LoadOrNew(a.key, func() (caddy.Destructor, error) {
		e := serviceEntry{Service: identity.NewService(opts)}
		if a.Signatures != nil {
			var err error
			if e.sigs, e.dir, err = a.signatureVerifier(true, nil); err != nil {
				return nil, err
			}
		}
		return e, nil
	})
	if err != nil {
		return err
	}
	a.svc, a.sigs, a.dir = v.(serviceEntry).Service, v.(serviceEntry).sigs, v.(serviceEntry).dir
	a.ids = identity.Identifier{Verifier: a.svc.Verifier, Signatures: a.sigs, ClientAddr: clientAddr}
	return nil
}

// signatureVerifier builds the Web Bot Auth verifier of the config, for the server and for
// `caddy robots check` alike. The server's (fetch) has a key directory fetcher for the agents
// whose keys are not in files; check's fetches nothing (webbotauth.Options.Offline): those
// agents' signatures are unknown-key, unless dirKeys (by normalized agent URL) holds the keys
// their directory serves (check's --signature-keys).
func (a *Crawlers) signatureVerifier(fetch bool, dirKeys map[string][]webbotauth.Key) (*webbotauth.Verifier, *webbotauth.Directory, error) {
	dopts := webbotauth.DirectoryOptions{}
	if testDirectoryOptions != nil {
		dopts = *testDirectoryOptions
	}
	opts := webbotauth.Options{FetchUntrusted: a.Signatures.FetchUntrusted, AllowTestKeys: dopts.AllowTestKeys, Offline: !fetch,
		Skew: time.Duration(a.Signatures.Skew), MaxValidity: time.Duration(a.Signatures.MaxValidity)}
	if a.Signatures.ReplayProtection {
		opts.Nonces = webbotauth.NewNonces(0)
		if fetch {
			// The server's nonces are the fleet's; a check's are its own.
			opts.Store = a.fleetStore()
		}
	}
	agents, err := a.signatureAgents(dirKeys)
	if err != nil {
		return nil, nil, configerr.Prefix("crawlers", err)
	}
	opts.Agents = agents
	var dir *webbotauth.Directory
	if fetch {
		dir = webbotauth.NewDirectory(dopts)
		opts.Directory = dir
	}
	v, err := webbotauth.NewVerifier(opts)
	if err != nil {
		if dir != nil {
			dir.Close()
		}
		return nil, nil, fmt.Errorf("crawlers.signatures: %v", err)
	}
	return v, dir, nil
}

// signatureAgents are the trusted agents of the config, with the keys of their key files
// or else those dirKeys holds for them (by normalized URL); an agent that is not one is an
// error at its field.
func (a *Crawlers) signatureAgents(dirKeys map[string][]webbotauth.Key) ([]webbotauth.Agent, error) {
	var out []webbotauth.Agent
	var errs []error
	seen := map[string]int{}
	for i, ag := range a.Signatures.Agents {
		at := configerr.Index("signatures.agents", i)
		u, err := webbotauth.NormalizeAgent(ag.URL)
		if err != nil {
			errs = append(errs, configerr.New(at+".url", ag.URL, err.Error()))
		} else if j, ok := seen[u]; ok {
			err = fmt.Errorf("the agent is given twice (signatures.agents[%d] too): trust it once", j)
			errs = append(errs, configerr.New(at+".url", ag.URL, err.Error()))
		} else {
			seen[u] = i
		}
		ids := botIDs(ag.Bot)
		if len(ids) != 1 {
			errs = append(errs, configerr.New(at+".bot", ag.Bot, "not one bot of the catalogue (by ID or name)"+suggest(ag.Bot)))
		}
		if err != nil || len(ids) != 1 {
			continue
		}
		agent := webbotauth.Agent{URL: u, Bot: ids[0], Keys: dirKeys[u]}
		if ag.KeyFile != "" {
			if agent.Keys, err = readKeys(ag.KeyFile); err != nil {
				errs = append(errs, configerr.New(at+".key_file", ag.KeyFile, err.Error()))
				continue
			}
		}
		out = append(out, agent)
	}
	return out, errors.Join(errs...)
}

// readKeys reads a key file: a JWK Set or one JWK (webbotauth.ParseKeys).
func readKeys(file string) ([]webbotauth.Key, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return webbotauth.ParseKeys(data)
}

// serviceOptions are the options of the verification this config runs, logging to log: the
// server's (Provision) and the one `caddy robots check` asks (startCheckService).
func (a *Crawlers) serviceOptions(log *slog.Logger) identity.ServiceOptions {
	opts := identity.ServiceOptions{NoLists: a.Lists != nil && a.Lists.Off, NoDNS: a.ReverseDNS != nil && a.ReverseDNS.Off}
	opts.Lists.Dir = filepath.Join(caddy.AppDataDir(), "crawler-lists")
	opts.Lists.Log = log
	if l := a.Lists; l != nil {
		if l.Dir != "" {
			opts.Lists.Dir = l.Dir
		}
		opts.Lists.Local, opts.Lists.Offline = l.Local, l.Offline
		opts.Lists.Refresh, opts.Lists.MaxAge, opts.Lists.Timeout = time.Duration(l.Refresh), time.Duration(l.MaxAge), time.Duration(l.Timeout)
		opts.Lists.MaxSize = l.MaxSize
	}
	if d := a.ReverseDNS; d != nil {
		opts.DNS.Positive, opts.DNS.Negative, opts.DNS.Timeout = time.Duration(d.Positive), time.Duration(d.Negative), time.Duration(d.Timeout)
		opts.DNS.MaxEntries, opts.DNS.MaxInFlight, opts.DNS.Wait = d.MaxEntries, d.MaxInFlight, time.Duration(d.Wait)
	}
	if d := a.ReverseDNS; d != nil && d.Resolver != "" {
		opts.DNS.Resolver, _ = identity.ResolverAt(d.Resolver) // checked by validate
	} else if testResolver != nil {
		opts.DNS.Resolver = testResolver
	}
	return opts
}

// startCheckService gives the app, for `caddy robots check`, a verification of its own with
// the server's options that reads only what is kept (the lists on disk, the local files):
// a check is a one-off command and fetches nothing. It is started, and the app answers the
// check's crawler matchers with it, as the server's app answers a request. With signatures,
// the app's verifier becomes the check's, which fetches no key directory (dirKeys are the
// keys of agents' directories given instead, signatureVerifier). noDNS turns reverse DNS
// off (`caddy robots report`). Stop it when the check is done.
func (a *Crawlers) startCheckService(log *slog.Logger, dirKeys map[string][]webbotauth.Key, noDNS bool) (*identity.Service, error) {
	if a.Signatures != nil {
		// The check's own verifier, which fetches no key directory, answers the app's
		// matchers too.
		var err error
		if a.sigs, _, err = a.signatureVerifier(false, dirKeys); err != nil {
			return nil, err
		}
	}
	opts := a.serviceOptions(log)
	opts.Lists.ReadOnly = true
	opts.NoDNS = opts.NoDNS || noDNS
	a.svc = identity.NewService(opts)
	a.svc.Start(context.Background())
	a.ids = identity.Identifier{Verifier: a.svc.Verifier, Signatures: a.sigs, ClientAddr: clientAddr}
	return a.svc, nil
}

// validate checks the config as Provision does, each problem at its field's path in the
// app's JSON (Provision puts them under "crawlers"; the Caddyfile adapter names the line of
// the field). A list file named is config input: it is read and refused here, naming the
// entry at fault, as a missing one is.
func (a *Crawlers) validate() error {
	var errs []error
	bad := func(path, value, problem string) { errs = append(errs, configerr.New(path, value, problem)) }
	positive := func(path string, v int64, value string) {
		if v < 0 {
			bad(path, value, "must not be negative")
		}
	}
	duration := func(path string, d caddy.Duration) { positive(path, int64(d), time.Duration(d).String()) }
	if l := a.Lists; l != nil {
		duration("lists.refresh", l.Refresh)
		duration("lists.max_age", l.MaxAge)
		duration("lists.timeout", l.Timeout)
		positive("lists.max_size", l.MaxSize, fmt.Sprint(l.MaxSize))
		if l.Refresh > 0 && time.Duration(l.Refresh) < identity.MinRefresh {
			bad("lists.refresh", time.Duration(l.Refresh).String(), fmt.Sprintf("at least %s (the operators' servers, or the files, would be read in a loop)", identity.MinRefresh))
		}
		if l.Off && (l.Offline || len(l.Local) > 0) {
			bad("lists", "", "off, and yet offline or local files given: say one")
		}
		// Offline, the lists verify only through local files; reverse DNS and trusted
		// signature agents verify without any.
		dnsOn := a.ReverseDNS == nil || !a.ReverseDNS.Off
		agents := a.Signatures != nil && len(a.Signatures.Agents) > 0
		if l.Offline && len(l.Local) == 0 && !dnsOn && !agents {
			bad("lists.offline", "", "offline with no list file (local), reverse DNS off and no signature agent: nothing would verify a crawler")
		}
		for _, u := range slices.Sorted(maps.Keys(l.Local)) {
			if err := identity.CheckListFile(u, l.Local[u], l.MaxSize); err != nil {
				bad(configerr.Key("lists.local", u), l.Local[u], err.Error())
			}
		}
	}
	if sg := a.Signatures; sg != nil {
		duration("signatures.skew", sg.Skew)
		duration("signatures.max_validity", sg.MaxValidity)
		if _, err := a.signatureAgents(nil); err != nil {
			errs = append(errs, err)
		}
	}
	if d := a.ReverseDNS; d != nil {
		duration("reverse_dns.positive_ttl", d.Positive)
		duration("reverse_dns.negative_ttl", d.Negative)
		duration("reverse_dns.timeout", d.Timeout)
		duration("reverse_dns.wait", d.Wait)
		positive("reverse_dns.max_entries", int64(d.MaxEntries), fmt.Sprint(d.MaxEntries))
		positive("reverse_dns.max_in_flight", int64(d.MaxInFlight), fmt.Sprint(d.MaxInFlight))
	}
	if err := a.validateStore(); err != nil {
		errs = append(errs, err)
	}
	if d := a.ReverseDNS; d != nil && d.Resolver != "" {
		if _, err := identity.ResolverAt(d.Resolver); err != nil {
			// The error starts with the value, quoted; the path's value shows it.
			_, why, _ := strings.Cut(err.Error(), ": ")
			bad("reverse_dns.resolver", d.Resolver, why)
		}
	}
	return errors.Join(errs...)
}

// Start starts the verification's background work (once per config, however many reloads)
// and logs the state of each list.
func (a *Crawlers) Start() error {
	appStarts.Add(1)
	runningCrawlers.Store(a)
	a.observeStore()
	if !a.svc.Start(context.Background()) {
		return nil // a reload with the same config: the running verification goes on
	}
	// The trusted agents whose keys come from their directories: fetched now, in the
	// background, so that their first signed request is not pending.
	if a.dir != nil {
		for _, ag := range a.Signatures.Agents {
			if ag.KeyFile == "" {
				go func(u string) {
					if err := a.dir.Fetch(context.Background(), u); err != nil {
						a.logger.Warn("signature agent's key directory not fetched", zap.String("agent", u), zap.Error(err))
					}
				}(ag.URL)
			}
		}
	}
	// One line for the whole, one per list at debug level (a reload would repeat them all),
	// and a warning for each list that failed.
	lists := a.svc.Lists()
	trusted := 0
	for _, st := range lists {
		level := zap.DebugLevel
		if st.Trusted {
			trusted++
		} else if st.LastError != "" {
			level = zap.WarnLevel
		}
		if ce := a.logger.Check(level, "crawler address list"); ce != nil {
			ce.Write(zap.String("url", st.Source.URL), zap.Int("prefixes", st.Prefixes), zap.Int("size", st.Size),
				zap.Bool("trusted", st.Trusted), zap.Time("fetched", st.Fetched), zap.String("last_error", st.LastError))
		}
	}
	a.logger.Info("crawler verification started", zap.Int("lists", len(lists)), zap.Int("lists_in_use", trusted),
		zap.Bool("reverse_dns", a.ReverseDNS == nil || !a.ReverseDNS.Off))
	return nil
}

// Stop does nothing: the verification outlives a reload, and ends when no config uses it
// (Cleanup).
func (a *Crawlers) Stop() error { return nil }

// Cleanup releases this config's use of the verification.
func (a *Crawlers) Cleanup() error {
	runningCrawlers.CompareAndSwap(a, nil)
	var err error
	if a.key != "" {
		_, err = services.Delete(a.key)
	}
	return errors.Join(err, a.releaseStore())
}

// Service is the verification the app answers with: the server's, shared over reloads, or
// in `caddy robots check` the check's own (startCheckService).
func (a *Crawlers) Service() *identity.Service { return a.svc }

// runningCrawlers is the crawlers app of the running config, nil when it has none: the one
// the {http.crawler.*} placeholders verify with where no module asked for the app
// (providePlaceholders). Caddy runs one config at a time; during a reload, a request of
// the config being replaced may be verified by the new one's app.
var runningCrawlers atomic.Pointer[Crawlers]

// identityVar is the request variable holding the request's identity (a *crawlerInfo); a
// nil *crawlerInfo there says the {http.crawler.*} placeholders are mapped in the request's
// replacer, to find the identity when first read (providePlaceholders).
const identityVar = "caddy_robots.crawler"

// identify returns r's crawler identity, found once per request (the first caller stores it
// in the request's variables, and makes the {http.crawler.*} placeholders answer from it);
// a (nil: the crawlers app is not configured) verifies it, else it is the User-Agent's claim
// alone, status "unchecked" in the placeholders.
func (a *Crawlers) identify(r *http.Request) *crawlerInfo {
	// The request's variables, looked up once (each lookup walks the request's context).
	vars, _ := r.Context().Value(caddyhttp.VarsCtxKey).(map[string]any)
	v, mapped := vars[identityVar]
	if ci, _ := v.(*crawlerInfo); ci != nil {
		return ci
	}
	ci := a.find(r)
	if vars == nil {
		return storeIdentity(r, ci)
	}
	vars[identityVar] = ci
	if !mapped {
		if repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer); ok {
			repl.Map(ci.placeholder)
		}
	}
	return ci
}

// find finds r's identity (identity.Identifier), kept in the slots of its crawler's name.
func (a *Crawlers) find(r *http.Request) *crawlerInfo {
	if a == nil {
		bot, name, index, ok := crawlers.IdentifyBotNameIndex(r.Header["User-Agent"])
		if !ok {
			return noneInfo()
		}
		return uncheckedInfo(bot, name, index)
	}
	id, name, ok := a.ids.Identify(r)
	switch {
	case !ok:
		return noneInfo()
	case name >= 0:
		return internIn(internedSlots().byIndex[name], id)
	}
	return internIdentity(id) // a signature's bot the User-Agent does not name
}

// providePlaceholders makes the {http.crawler.*} placeholders of r answer from this point of
// the request on, from its identity, which is found when one of them is first read (once per
// request, identify with the running config's crawlers app; without one, the User-Agent's
// claim, "unchecked"): what crawler_identity does, so that a placeholder read by any handler
// after it (header, respond, log_append, ...) has its value, whether or not anything has
// asked for the identity. It costs a variable lookup, and the mapping of one function when
// the identity is not known yet; nothing is identified unless a placeholder is read.
func providePlaceholders(r *http.Request) {
	vars, _ := r.Context().Value(caddyhttp.VarsCtxKey).(map[string]any)
	if _, mapped := vars[identityVar]; vars == nil || mapped {
		return // identified (and mapped) already, or mapped
	}
	repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	if !ok {
		return
	}
	vars[identityVar] = (*crawlerInfo)(nil)
	repl.Map(func(key string) (any, bool) {
		if !strings.HasPrefix(key, crawlerPlaceholderPrefix) {
			return nil, false
		}
		return runningCrawlers.Load().identify(r).lookup(key)
	})
}

// storeIdentity makes ci r's crawler identity, for the crawler matchers and placeholders.
func storeIdentity(r *http.Request, ci *crawlerInfo) *crawlerInfo {
	caddyhttp.SetVar(r.Context(), identityVar, ci)
	if repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer); ok {
		repl.Map(ci.placeholder)
	}
	return ci
}

// clientAddr is Caddy's client IP for r (its variable: trusted_proxies applied). A request
// whose TLS handshake is not complete (early data) has none: its address is not proven yet.
func clientAddr(r *http.Request) netip.Addr {
	if r.TLS != nil && !r.TLS.HandshakeComplete {
		return netip.Addr{}
	}
	ip, _ := caddyhttp.GetVar(r.Context(), caddyhttp.ClientIPVarKey).(string)
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return netip.Addr{}
	}
	return a.WithZone("")
}

// crawlerInfo is an identity with what placeholders and matchers read of it, made once per
// distinct identity (interned), so that a request costs no allocation.
type crawlerInfo struct {
	id         identity.Identity
	categories map[string]bool // the name's categories (crawlers.BotName), the data's and the AI catalogue's
	values     map[string]any  // placeholder values by key
	// placeholder answers the {http.crawler.*} placeholders; a method value made once.
	placeholder caddy.ReplacerFunc
}

// botSlots are the interned crawlerInfos of one crawler name, made on first use: by status
// and way of verification; an impostor's by the checks it failed; the User-Agent's claim
// alone (no crawlers app).
type botSlots struct {
	byStatus  [identity.MaxStatus + 1][len(verifiedBy)]atomic.Pointer[crawlerInfo]
	impostor  [identity.AllChecks + 1]atomic.Pointer[crawlerInfo]
	unchecked atomic.Pointer[crawlerInfo]
}

// internedSlots holds the botSlots of each name of each bot of the catalogue (and of none):
// a request's lookup is a slice index (by the name's index, crawlers.IdentifyBotNameIndex)
// and an atomic load, with no lock, no hashing and no allocation, and at most a few thousand
// values are ever made.
var internedSlots = sync.OnceValue(func() (in struct {
	byIndex []*botSlots             // by crawlers.BotNames' order
	byKey   map[internKey]*botSlots // the same slots by bot and name; each bot without a name
}) {
	names := crawlers.BotNames()
	in.byIndex = make([]*botSlots, len(names))
	in.byKey = map[internKey]*botSlots{{}: {}}
	for i, bn := range names {
		in.byIndex[i] = &botSlots{}
		in.byKey[internKey{bn.ID, bn.Name}] = in.byIndex[i]
	}
	for _, b := range crawlers.Bots() {
		in.byKey[internKey{b.ID, ""}] = &botSlots{} // a signature's bot the User-Agent does not name
	}
	return in
})

// internKey is an identity's bot and name.
type internKey struct{ bot, name string }

// noneInfo is the crawlerInfo of a request that names no bot.
var noneInfo = sync.OnceValue(func() *crawlerInfo { return internIdentity(identity.Identity{}) })

// verifiedBy are the values of identity.Identity.By.
var verifiedBy = [...]string{"", "ip", "ip-list", "reverse-dns", "signature"}

// uncheckedStatus is {http.crawler.status} where no crawlers app verifies: the User-Agent's
// claim, not checked (as the metrics' identity_status label says it).
const uncheckedStatus = "unchecked"

// internIdentity is the interned crawlerInfo of id.
func internIdentity(id identity.Identity) *crawlerInfo {
	return internIn(internedSlots().byKey[internKey{id.Bot, id.Name}], id)
}

// internIn is internIdentity where slots (nil: none) are id's name's.
func internIn(slots *botSlots, id identity.Identity) *crawlerInfo {
	k := slices.Index(verifiedBy[:], id.By)
	if slots == nil || k < 0 || id.Status > identity.MaxStatus || id.Failed > identity.AllChecks {
		return newCrawlerInfo(id, "") // not a value made here: kept for this request only
	}
	p := &slots.byStatus[id.Status][k]
	if id.Status == identity.Impostor {
		p = &slots.impostor[id.Failed]
		if want := slices.Index(verifiedBy[:], "signature"); (id.Failed&identity.CheckSignature != 0) != (k == want) {
			return newCrawlerInfo(id, "")
		}
	} else if id.Failed != 0 {
		return newCrawlerInfo(id, "")
	}
	return intern(p, id, "")
}

// uncheckedInfo is the crawlerInfo of a request whose User-Agent carries name, a name of bot
// (index: crawlers.IdentifyBotNameIndex's), where no crawlers app verifies.
func uncheckedInfo(bot, name string, index int) *crawlerInfo {
	return intern(&internedSlots().byIndex[index].unchecked, identity.Identity{Bot: bot, Name: name}, uncheckedStatus)
}

func intern(p *atomic.Pointer[crawlerInfo], id identity.Identity, status string) *crawlerInfo {
	if ci := p.Load(); ci != nil {
		return ci
	}
	p.CompareAndSwap(nil, newCrawlerInfo(id, status))
	return p.Load()
}

// newCrawlerInfo makes the crawlerInfo of id: the name, operator and categories of the
// crawler its User-Agent names, never of the other names of its bot's entry (Yandex's entry
// holds YandexBot and the AI-training YandexAdditional); of the entry's first name when a
// signature decided for a bot the User-Agent does not name. status, if not "", is its status
// placeholder (uncheckedStatus).
func newCrawlerInfo(id identity.Identity, status string) *crawlerInfo {
	ci := &crawlerInfo{id: id, categories: map[string]bool{}}
	name := id.Name
	if name == "" {
		if b, ok := crawlers.BotByID(id.Bot); ok && len(b.Names) > 0 {
			name = b.Names[0]
		}
	}
	bn, _ := crawlers.LookupBotName(id.Bot, name)
	if id.Status == identity.None && status == "" {
		bn = crawlers.BotName{}
	}
	if status == "" {
		status = id.Status.String()
	}
	for _, c := range bn.Categories {
		ci.categories[c] = true
	}
	category := ""
	if len(bn.Categories) > 0 {
		category = bn.Categories[0]
	}
	ci.values = map[string]any{
		"http.crawler.id":          id.Bot,
		"http.crawler.name":        bn.Name,
		"http.crawler.operator":    bn.Operator,
		"http.crawler.category":    category,
		"http.crawler.categories":  strings.Join(bn.Categories, ","),
		"http.crawler.status":      status,
		"http.crawler.verified_by": id.By,
		"http.crawler.failed":      id.Failed.String(),
	}
	ci.placeholder = ci.lookup
	return ci
}

// crawlerPlaceholderPrefix begins the names of the placeholders of the identity.
const crawlerPlaceholderPrefix = "http.crawler."

func (ci *crawlerInfo) lookup(key string) (any, bool) {
	if !strings.HasPrefix(key, crawlerPlaceholderPrefix) {
		return nil, false
	}
	v, ok := ci.values[key]
	return v, ok
}

// crawlersApp loads the crawlers app (with its defaults when the config has none).
func crawlersApp(ctx caddy.Context) (*Crawlers, error) {
	app, err := ctx.App("crawlers")
	if err != nil {
		return nil, err
	}
	return app.(*Crawlers), nil
}

// Interface guards.
var (
	_ caddy.App          = (*Crawlers)(nil)
	_ caddy.Provisioner  = (*Crawlers)(nil)
	_ caddy.CleanerUpper = (*Crawlers)(nil)
)
