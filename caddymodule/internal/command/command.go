package command

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"time"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/sitepolicy/caddy-robots/policycheck"
	"github.com/sitepolicy/caddy-robots/policycheck/cli"
)

// robotsCommand is "caddy robots check|lint|report".
func robotsCommand() caddycmd.Command {
	return caddycmd.Command{
		Name:  "robots",
		Usage: "check|lint|report --config <path> [--adapter <name>] ...",
		Short: "Shows what a crawler sees at a URL, finds robots policies that defeat themselves, and reports on access logs",
		Long: `
Checks the robots_txt and robots_tag handlers of a config before it is deployed,
offline. The config is loaded as 'caddy run' loads it (same adapter, same
modules, validated by provisioning every app without starting it).

  caddy robots check --config Caddyfile --url https://example.com/drafts/x [--agent Googlebot]

explains one request: the server and routes that handle the URL, the
robots.txt decision for the agent (the group chosen and why, the rule line that
decided, in the file as served), the Robots-Tag, X-Robots-Tag and <meta>
elements the response gets, the robots.txt usage preferences and whether
enforcement answers the request. With --client-ip <addr>, when the config
verifies crawlers, it also says who the request is (the crawler's identity,
verified from the lists the server keeps on disk and its local list files;
check fetches nothing) and the state of every list. With --header lines, the
request's Web Bot Auth signature (Signature-Input, Signature, Signature-Agent and
the fields it covers, pasted as the agent sent them) is judged as the server
judges it, and check explains the verdict: the parameters, why it fails, the
signature base verified, and the identity it makes. Keys come from the config's
key files; an agent's key directory is not fetched (give its JWK Set with
--signature-keys). With --sign-key <file> --sign-agent <url>, check signs the
request itself as that agent with that private key, to try a signature_agent
setup without a signer. Exit status 0 when
robots.txt allows the URL, 1 when it disallows it, 2 on a config or usage error.

  caddy robots lint --config Caddyfile

reports the policies that defeat themselves (noindex on paths robots.txt keeps
the crawler away from, rules that never decide, misspelt crawler names, ...),
each with its Caddyfile line, a severity and a one-line fix. Exit status 0
without findings at warning level or above, 1 otherwise, 2 on a config error.

  caddy robots report --config Caddyfile --site https://example.com [access.log ...]

reads access logs (Caddy's JSON access log, or the Common/Combined Log Format
of nginx and Apache; gzip-compressed too; standard input without a file or
with -; a fleet's: several files, and patterns such as 'web*/access.log*' that
it expands itself, read with --workers goroutines, every core by default; the
report is the same for any number and any order of the logs) and replays
every request against the config as it is now: per crawler
its requests and bytes, whether and when it fetched robots.txt, its violations
(the path, the disallowing rule and its line in the robots.txt served, count,
first and last seen), impostor claims (when the config verifies crawlers: from
the lists kept on disk and local list files, never reverse DNS), statuses, and
a timeline. Impostors (claims the verification disproves) are counted apart,
per crawler claimed, never as the crawler's. --site is the site whose
robots.txt is replayed (the server is chosen by its port, as check's --url);
lines of a Caddy log for other hosts are counted apart and not replayed. With
merge_upstream the backend's file is not seen: --robots-file replays against
the robots.txt saved as the site served it. Lines that are no log entry are
counted and the first shown. --format html writes one self-contained page
(-o file). Exit status 0, 1 when there are violations or impostors, 2 on a
config or usage error, a log that cannot be opened, or one that could not be
read to its end (a corrupt gzip file, no log entry at all; the report is
written and says which).

All take --format json for scripts.
`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.AddCommand(CheckCommand(), lintCommand(), reportCommand())
		},
	}
}

// commandFlags are the flags every subcommand takes.
type commandFlags struct {
	config, adapter, format string
}

func (f *commandFlags) add(c *cobra.Command) {
	c.Flags().StringVarP(&f.config, "config", "c", "", "Configuration file (default: the Caddyfile in the current directory, as for caddy run)")
	c.Flags().StringVarP(&f.adapter, "adapter", "a", "", "Name of config adapter to apply")
	c.Flags().StringVar(&f.format, "format", "text", "Output format: text or json")
}

// CheckCommand is "caddy robots check".
func CheckCommand() *cobra.Command {
	var f commandFlags
	var check cli.CheckFlags
	var sigKeys string
	c := &cobra.Command{
		Use:   "check --config <path> [--adapter <name>] --url <url> [--agent <agent>] [--client-ip <addr>] [--header 'Signature-Input: ...']... [--signature-keys <jwks-file>] [--sign-key <key-file> --sign-agent <url>] [--purpose <token>] [--backend-header 'Robots-Tag: ...']... [--robots-file <file>] [--format text|json]",
		Short: "Explains what a crawler sees at a URL",
		Args:  cobra.ArbitraryArgs,
	}
	f.add(c)
	c.SetFlagErrorFunc(flagError)
	check.Add(c.Flags())
	c.Flags().StringVar(&sigKeys, "signature-keys", "", "The JWK Set the key directory of the signature's agent serves, which check does not fetch")
	c.RunE = exitWith(func(stdout, stderr io.Writer, args []string) (int, error) {
		if err := usageChecks(f, args); err != nil {
			return cli.ExitUsage, err
		}
		if check.URL == "" {
			return cli.ExitUsage, errors.New("--url is required")
		}
		req, err := check.Request(time.Now())
		if err != nil {
			return cli.ExitUsage, err
		}
		site, at, done, err := checkSite(f, req, sigKeys)
		if err != nil {
			return cli.ExitUsage, err
		}
		defer done()
		rep, err := cli.Check(site, req)
		if err != nil {
			return cli.ExitUsage, err
		}
		rep.Notes = append(at.Notes, rep.Notes...)
		return cli.RunCheck(stdout, rep, &cli.Place{Server: at.Server, Handlers: at.Handlers}, f.format)
	})
	return c
}

// checkSite is the Site that check's request meets in the config of f, and where; with only
// a robots.txt file to test (--robots-file, and no config given or found), an empty one.
// sigKeys is the --signature-keys file. Call done when the check is over: it stops the
// config's crawler verification, which the Site uses.
func checkSite(f commandFlags, req policycheck.Request, sigKeys string) (site *policycheck.Site, at *Where, done func(), err error) {
	if f.config == "" && req.RobotsFileName != "" && !fileExists("Caddyfile") {
		return &policycheck.Site{}, &Where{Server: "none (no config)", Handlers: []string{"no robots handler"}}, func() {}, nil
	}
	cfg, err := Load(f.config, f.adapter)
	if err != nil {
		return nil, nil, nil, err
	}
	if sigKeys != "" {
		if cfg.dirKeys, err = cfg.signatureKeys(sigKeys, req.Headers); err != nil {
			cfg.Close()
			return nil, nil, nil, err
		}
	}
	if site, at, err = cfg.SiteFor(req); err != nil {
		cfg.Close()
		return nil, nil, nil, err
	}
	return site, at, cfg.Close, nil
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
		cfg, err := Load(f.config, f.adapter)
		if err != nil {
			return cli.ExitUsage, err
		}
		defer cfg.Close()
		return cli.RunLint(stdout, cfg.Sites(), f.format)
	})
	return c
}

func reportCommand() *cobra.Command {
	var f commandFlags
	var siteURL, output, robotsFile string
	var report cli.ReportFlags
	c := &cobra.Command{
		Use:   "report --config <path> [--adapter <name>] --site <url> [--robots-file <file>] [--format text|json|html] [-o <file>] [--workers <n>] [<log>... | -]",
		Short: "Reports what crawlers did in access logs, against the robots policy",
		Args:  cobra.ArbitraryArgs,
	}
	f.add(c)
	c.Flags().Lookup("format").Usage = "Output format: text, json or html"
	c.SetFlagErrorFunc(flagError)
	c.Flags().StringVar(&siteURL, "site", "", "The site whose requests to replay, as its origin: https://example.com (required)")
	c.Flags().StringVarP(&output, "output", "o", "", "Write the report to this file instead of standard output")
	c.Flags().StringVar(&robotsFile, "robots-file", "", "Replay against this robots.txt file, saved as the site served it (merge_upstream), instead of the config's")
	report.Add(c.Flags())
	c.RunE = exitWith(func(stdout, stderr io.Writer, args []string) (int, error) {
		if err := cli.CheckReportFormat(f.format); err != nil {
			return cli.ExitUsage, err
		}
		if siteURL == "" {
			return cli.ExitUsage, errors.New("--site is required: the origin of the site to replay, e.g. https://example.com")
		}
		u, err := url.Parse(siteURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return cli.ExitUsage, fmt.Errorf("--site %q: give the site's origin, e.g. https://example.com", siteURL)
		}
		cfg, err := Load(f.config, f.adapter)
		if err != nil {
			return cli.ExitUsage, err
		}
		defer cfg.Close()
		cfg.noDNS = true
		site, _, err := cfg.SiteFor(policycheck.Request{URL: u.Scheme + "://" + u.Host + "/"})
		if err != nil {
			return cli.ExitUsage, fmt.Errorf("--site %q: %w", siteURL, err)
		}
		name := f.config
		if name == "" {
			name = "Caddyfile"
		}
		return cli.RunReport(stdout, stderr, c.InOrStdin(), site, cli.ReportOptions{Name: name + ", server " + site.Name, Hosts: cfg.servedHosts(site.Name, u.Hostname()), Host: u.Hostname(), Origin: u.Scheme + "://" + u.Host, RobotsFile: robotsFile, Logs: args, Workers: report.Workers, Format: f.format, Output: output})
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
