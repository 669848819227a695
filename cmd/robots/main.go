// Command robots checks a caddy-robots config for the net/http middleware (the JSON that
// nethttp.NewFromJSON reads) before it is deployed, without Caddy:
//
//	robots check --config site.json --url https://example.com/drafts/x [--agent "Googlebot"]
//	             [--purpose TOKEN] [--backend-header 'Robots-Tag: noindex']... [--robots-file FILE]
//	             [--client-ip ADDR [--crawler-lists DIR] [--crawler-list-file URL=FILE]...
//	             [--no-reverse-dns]] [--header 'Signature-Input: ...']...
//	             [--signature-agent URL=BOT=FILE]... [--format text|json]
//	robots lint  --config site.json [--host example.com]... [--format text|json]
//	robots report --config site.json [--host example.com] [--crawler-lists DIR]
//	             [--crawler-list-file URL=FILE]... [--robots-file FILE] [--format text|json|html]
//	             [-o FILE] [--workers N] [LOG...|-]
//
// check explains what a crawler sees at a URL: the robots.txt decision (group, deciding rule
// and its line) and the Robots-Tag, X-Robots-Tag and <meta> elements of the response; it
// exits 0 when robots.txt allows the URL, 1 when it disallows it. With --crawler-lists (the
// directory where the application's identity.Service keeps the lists, ListsOptions.Dir) or
// --crawler-list-file (a list read from a file, ListsOptions.Local; with only these, offline),
// check verifies the crawler as the middleware's Verifier does, from the client address
// --client-ip, and says its identity, whether enforce's impostors refuses it and the state of
// every list; it reads the lists and fetches none, and looks the address up by reverse DNS
// unless --no-reverse-dns (ServiceOptions.NoDNS). With --signature-agent (the agents the
// application's nethttp.Options.Signatures trusts, with their keys), check judges the Web Bot
// Auth signature of the --header lines as that verifier does and explains it (it fetches no
// key directory). lint reports policies that
// defeat themselves and exits 1 when a finding is a warning or an error. report reads access
// logs (Caddy's JSON, Common or Combined Log Format; gzip too; standard input without a file;
// several files and patterns, a fleet's, read on every core: --workers) and replays every
// request against the config (package logreport): per crawler its requests,
// robots.txt fetches, violations with the rule's line, impostors (from the lists, with
// --crawler-lists or --crawler-list-file; never reverse DNS) and a timeline; it exits 1 when
// there are violations or impostors, 2 when a log could not be read to its end (the report is
// written and says which). Flags may follow the logs. All exit 2 on a usage or config error.
// Install with
//
//	go install github.com/sitepolicy/caddy-robots/cmd/robots@latest
//
// The Caddy module has the same commands as "caddy robots check" and "caddy robots lint".
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	neturl "net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/policycheck"
	"github.com/sitepolicy/caddy-robots/policycheck/cli"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ", ") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

const usage = `usage:
  robots check --config site.json --url URL [--agent AGENT] [--purpose TOKEN]
               [--backend-header 'Robots-Tag: ...']... [--robots-file FILE] [--host HOST]...
               [--client-ip ADDR] [--crawler-lists DIR] [--crawler-list-file URL=FILE]...
               [--no-reverse-dns] [--header 'Signature-Input: ...']...
               [--signature-agent URL=BOT=FILE]... [--sign-key FILE --sign-agent URL]
               [--format text|json]
  robots lint  --config site.json [--host HOST]... [--format text|json]
  robots report --config site.json [--host HOST] [--crawler-lists DIR]
               [--crawler-list-file URL=FILE]... [--robots-file FILE]
               [--format text|json|html] [-o FILE] [--workers N] [LOG...|-]

site.json is the net/http middleware's config (nethttp.NewFromJSON).
check exits 0 when robots.txt allows the URL, 1 when it disallows it; with
--crawler-lists or --crawler-list-file it verifies the crawler from --client-ip
with the lists kept there (it fetches none); with --signature-agent it judges
the Web Bot Auth signature of the --header lines (it fetches no key directory),
or signs the request itself with --sign-key FILE as the agent --sign-agent URL;
lint exits 0 without findings at warning level or above, 1 otherwise;
report reads access logs (Caddy JSON, Common/Combined; gzip; stdin without
LOG or with -; several files, and patterns such as 'web*/access.log*' that it
expands itself) with --workers goroutines (default: every core) and replays
them against the config (or --robots-file, the robots.txt as served); the
report is the same for any order of the logs; it exits 1 when it finds violations or impostors
(verified from the lists only, never reverse DNS), 2 when a log could not be
read to its end (a corrupt gzip file; the report is written);
all exit 2 on a usage or config error.
`

func run(args []string, stdout, stderr io.Writer) int {
	return runWith(args, os.Stdin, stdout, stderr)
}

// runWith is run reading standard input (report's logs) from stdin.
func runWith(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "check" && args[0] != "lint" && args[0] != "report") {
		fmt.Fprint(stderr, usage)
		return cli.ExitUsage
	}
	fs, o := newFlagSet(args[0], stderr)
	logs, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return cli.ExitUsage
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "robots %s: %v\n", o.cmd, err)
		if o.format == "json" {
			_ = cli.WriteErrorJSON(stdout, err)
		}
		return cli.ExitUsage
	}
	if len(logs) > 0 && o.cmd != "report" {
		return fail(fmt.Errorf("unexpected argument %q", logs[0]))
	}
	site, cfgSitemaps, err := o.site()
	if err != nil {
		return fail(err)
	}
	var status int
	switch o.cmd {
	case "report":
		status, err = o.report(site, cfgSitemaps, logs, stdin, stdout, stderr)
	case "lint":
		status, err = cli.RunLint(stdout, []*policycheck.Site{site}, o.format)
	default:
		status, err = o.check(site, stdout, stderr)
	}
	if err != nil {
		return fail(err)
	}
	return status
}

// options are the flags of a command; those the command has not keep their zero value.
type options struct {
	cmd                          string
	config, format               string
	hosts, listFiles, sigAgents  multi
	robotsFile, listsDir, output string
	noDNS                        bool
	request                      cli.CheckFlags  // check's request, declared once for both tools
	reportFlags                  cli.ReportFlags // report's, as well
}

// newFlagSet returns the flags of the command cmd (check, lint or report), parsed into o.
func newFlagSet(cmd string, stderr io.Writer) (fs *flag.FlagSet, o *options) {
	o = &options{cmd: cmd}
	fs = flag.NewFlagSet("robots "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	fs.StringVar(&o.config, "config", "", "the middleware's JSON config (required)")
	fs.StringVar(&o.format, "format", "text", "output format: text or json (report: or html)")
	fs.Var(&o.hosts, "host", "a host name the site answers to (repeatable); lets lint check sitemap hosts")
	if cmd == "report" {
		fs.StringVar(&o.listsDir, "crawler-lists", "", "verify crawlers with the lists kept in this directory (identity.ListsOptions.Dir); nothing is fetched")
		fs.Var(&o.listFiles, "crawler-list-file", "verify crawlers with the list the catalogue names at URL read from FILE, as URL=FILE (repeatable)")
		fs.StringVar(&o.output, "o", "", "write the report to this file instead of standard output")
		fs.StringVar(&o.robotsFile, "robots-file", "", "replay against this robots.txt file, saved as the site served it, instead of the config's")
		o.reportFlags.Add(fs)
	}
	if cmd == "check" {
		o.request.Add(fs)
		fs.StringVar(&o.listsDir, "crawler-lists", "", "verify crawlers with the lists kept in this directory (identity.ListsOptions.Dir); nothing is fetched")
		fs.Var(&o.listFiles, "crawler-list-file", "verify crawlers with the list the catalogue names at URL read from FILE, as URL=FILE (identity.ListsOptions.Local; repeatable; alone, offline)")
		fs.BoolVar(&o.noDNS, "no-reverse-dns", false, "verify without reverse DNS (identity.ServiceOptions.NoDNS)")
		fs.Var(&o.sigAgents, "signature-agent", "judge Web Bot Auth signatures as nethttp.Options.Signatures does, trusting the agent at URL as the catalogue's bot BOT (its ID) with the keys of FILE (a JWK Set or one JWK), as URL=BOT=FILE (repeatable; no key directory is fetched)")
	}
	return fs, o
}

// site checks the format and reads the config (which check may go without, given
// --robots-file) into the site the command decides for; it also returns the config's
// sitemap URLs, which title a report.
func (o *options) site() (*policycheck.Site, []string, error) {
	checkFormat := cli.CheckFormat
	if o.cmd == "report" {
		checkFormat = cli.CheckReportFormat
	}
	if err := checkFormat(o.format); err != nil {
		return nil, nil, err
	}
	if o.config == "" && (o.cmd != "check" || o.request.RobotsFile == "") {
		return nil, nil, errors.New("--config is required")
	}
	if o.config == "" {
		return &policycheck.Site{}, nil, nil
	}
	cfg, err := readConfig(o.config)
	if err != nil {
		return nil, nil, err
	}
	site := policycheck.FromConfig(cfg, o.hosts...)
	site.Name = o.config
	var sitemaps []string
	if cfg.RobotsTxt != nil {
		sitemaps = cfg.RobotsTxt.Sitemaps
	}
	return site, sitemaps, nil
}

// report runs the report command over logs.
func (o *options) report(site *policycheck.Site, cfgSitemaps, logs []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if len(o.hosts) > 1 {
		return cli.ExitUsage, errors.New("report replays one host: give --host once")
	}
	if o.listsDir != "" || len(o.listFiles) > 0 {
		// Verification from the lists only: a log has too many addresses to look up.
		svc, err := crawlerService(o.listsDir, o.listFiles, true, stderr)
		if err != nil {
			return cli.ExitUsage, err
		}
		defer svc.Stop()
		site.Crawlers = svc
	}
	return cli.RunReport(stdout, stderr, stdin, site, cli.ReportOptions{Name: o.config, Hosts: siteHosts(o.hosts, cfgSitemaps), Host: strings.Join(o.hosts, ""), RobotsFile: o.robotsFile, Logs: logs, Workers: o.reportFlags.Workers, Format: o.format, Output: o.output})
}

// check runs the check command: the request of the flags (signed with --sign-key), decided
// with the crawler verification and the signature verifier they ask for.
func (o *options) check(site *policycheck.Site, stdout, stderr io.Writer) (int, error) {
	if o.request.URL == "" {
		return cli.ExitUsage, errors.New("--url is required")
	}
	req, err := o.request.Request(time.Now())
	if err != nil {
		return cli.ExitUsage, err
	}
	if o.listsDir != "" || len(o.listFiles) > 0 {
		svc, err := crawlerService(o.listsDir, o.listFiles, o.noDNS, stderr)
		if err != nil {
			return cli.ExitUsage, err
		}
		defer svc.Stop()
		site.Crawlers = svc
	}
	if len(o.sigAgents) > 0 {
		var err error
		if site.Signatures, err = signatureVerifier(o.sigAgents); err != nil {
			return cli.ExitUsage, err
		}
	}
	rep, err := cli.Check(site, req)
	if err != nil {
		return cli.ExitUsage, err
	}
	if site.Crawlers == nil && o.request.ClientIP != "" {
		rep.Notes = append(rep.Notes, "to verify crawlers as the middleware's Verifier does, give --crawler-lists DIR or --crawler-list-file URL=FILE")
	}
	return cli.RunCheck(stdout, rep, nil, o.format)
}

// parseInterspersed parses args with fs, flags before and after the arguments that are no
// flag ("report LOG --format json" as "report --format json LOG"), and returns those
// arguments in order. After "--" every argument is one, and so is "-" (standard input).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		consumed := len(args) - fs.NArg()
		if consumed > 0 && args[consumed-1] == "--" {
			return append(rest, fs.Args()...), nil
		}
		if fs.NArg() == 0 {
			return rest, nil
		}
		// fs stopped at an argument that is no flag: take it, and parse on.
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// readConfig reads the JSON as nethttp.NewFromJSON does: unknown fields are errors.
func readConfig(path string) (policy.Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return policy.Config{}, err
	}
	cfg, err := policy.Decode(b)
	if err != nil {
		return cfg, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// testResolver, when set by a test, answers reverse DNS instead of the system's resolver.
var testResolver identity.Resolver

// crawlerService is the crawler verification check asks: the lists kept in dir and the files
// (URL=FILE) read, nothing fetched; only the files (offline) without dir. Its log goes to
// stderr.
func crawlerService(dir string, files []string, noDNS bool, stderr io.Writer) (*identity.Service, error) {
	if dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("--crawler-lists %q: not a directory", dir)
		}
	}
	sources := map[string]bool{}
	for _, s := range identity.Sources() {
		sources[s.URL] = true
	}
	local := map[string]string{}
	for _, f := range files {
		// A URL may hold "=" (a query): the URL is the part before the "=" that makes one.
		u, file := "", ""
		for i := range len(f) {
			if f[i] == '=' && sources[f[:i]] {
				u, file = f[:i], f[i+1:]
				break
			}
		}
		if u == "" || file == "" {
			return nil, fmt.Errorf("--crawler-list-file %q: give URL=FILE, with a URL of a list the bot catalogue names, e.g. https://developers.google.com/static/search/apis/ipranges/googlebot.json=googlebot.json", f)
		}
		// A file named is input: refused as the Caddy module refuses it, naming the entry.
		if err := identity.CheckListFile(u, file, 0); err != nil {
			return nil, fmt.Errorf("--crawler-list-file %q: %v", f, err)
		}
		local[u] = file
	}
	svc := identity.NewService(identity.ServiceOptions{
		Lists: identity.ListsOptions{Dir: dir, Local: local, Offline: dir == "", ReadOnly: true, Log: slog.New(slog.NewTextHandler(stderr, nil))},
		NoDNS: noDNS,
		DNS:   identity.DNSOptions{Resolver: testResolver},
	})
	svc.Start(context.Background())
	return svc, nil
}

// signatureVerifier is the verifier of the --signature-agent flags (URL=BOT=FILE): those
// agents trusted with the keys of their files, no key directory fetched.
func signatureVerifier(flags []string) (*webbotauth.Verifier, error) {
	opts := webbotauth.Options{Offline: true}
	for _, f := range flags {
		i := strings.LastIndex(f, "=")
		j := strings.LastIndex(f[:max(i, 0)], "=")
		if j <= 0 {
			return nil, fmt.Errorf("--signature-agent %q: give URL=BOT=FILE, e.g. https://agent.example=openai-crawler=agent.jwk", f)
		}
		u, bot, file := f[:j], f[j+1:i], f[i+1:]
		if _, ok := crawlers.BotByID(bot); !ok {
			return nil, fmt.Errorf("--signature-agent %q: %q is not the ID of a bot of the catalogue", f, bot)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("--signature-agent %q: %v", f, err)
		}
		keys, err := webbotauth.ParseKeys(data)
		if err == nil && len(keys) == 0 {
			err = errors.New("no Ed25519 key in the file")
		}
		if err != nil {
			return nil, fmt.Errorf("--signature-agent %q: %v", f, err)
		}
		opts.Agents = append(opts.Agents, webbotauth.Agent{URL: u, Bot: bot, Keys: keys})
	}
	v, err := webbotauth.NewVerifier(opts)
	if err != nil {
		return nil, fmt.Errorf("--signature-agent: %v", err)
	}
	return v, nil
}

// siteHosts are the host names a report is titled with: those given with --host, else the
// hosts of the config's absolute sitemap URLs (the site's own, usually), in order, each once.
func siteHosts(hosts, sitemaps []string) []string {
	if len(hosts) > 0 {
		return hosts
	}
	var out []string
	for _, s := range sitemaps {
		u, err := neturl.Parse(s)
		if err != nil || u.Hostname() == "" || slices.Contains(out, u.Hostname()) {
			continue
		}
		out = append(out, u.Hostname())
	}
	return out
}
