package cli

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/sitepolicy/caddy-robots/policycheck"
)

// CheckFlags are the flags of check that both front ends take ("robots check" and "caddy
// robots check"): the request to check, and how to sign it.
type CheckFlags struct {
	URL, Agent, Purpose string
	BackendHeaders      []string // --backend-header, repeatable
	RobotsFile          string
	ClientIP            string
	Headers             []string // --header, repeatable
	SignKey, SignAgent  string
}

// FlagSet declares flags: a flag.FlagSet (cmd/robots) or a pflag.FlagSet (cobra's, caddy
// robots).
type FlagSet interface {
	StringVar(p *string, name, value, usage string)
	Func(name, usage string, fn func(string) error)
}

// Add declares the flags on fs.
func (f *CheckFlags) Add(fs FlagSet) {
	appendTo := func(list *[]string) func(string) error {
		return func(v string) error { *list = append(*list, v); return nil }
	}
	fs.StringVar(&f.URL, "url", "", "the absolute URL to check (required)")
	fs.StringVar(&f.Agent, "agent", "*", "the crawler: a product token or a whole User-Agent header")
	fs.StringVar(&f.Purpose, "purpose", "", "the crawler's User-Agent-Purpose token")
	fs.Func("backend-header", "a header line the backend sends itself, e.g. 'Robots-Tag: noindex' (repeatable)", appendTo(&f.BackendHeaders))
	fs.StringVar(&f.RobotsFile, "robots-file", "", "decide with this robots.txt file instead of the config's")
	fs.StringVar(&f.ClientIP, "client-ip", "", "the client's IP address as the server sees it (after its trusted proxies), to verify the crawler the agent names")
	fs.Func("header", "a header line the client sends, e.g. its Web Bot Auth signature's 'Signature-Input: sig1=(...);...' (repeatable)", appendTo(&f.Headers))
	fs.StringVar(&f.SignKey, "sign-key", "", "sign the request as a Web Bot Auth agent with this Ed25519 private key (a PEM PKCS #8 file or a JWK with d), as the agent of --sign-agent")
	fs.StringVar(&f.SignAgent, "sign-agent", "", "the agent URL to sign the request as (its Signature-Agent), with --sign-key")
}

// Request is the request the flags give, signed when --sign-key or --sign-agent is given
// (SignHeaders, at now), with the robots.txt file of --robots-file read. An error is a usage
// error.
func (f *CheckFlags) Request(now time.Time) (policycheck.Request, error) {
	headers := f.Headers
	if f.SignKey != "" || f.SignAgent != "" {
		lines, err := SignHeaders(f.URL, f.SignKey, f.SignAgent, headers, now)
		if err != nil {
			return policycheck.Request{}, err
		}
		headers = append(headers[:len(headers):len(headers)], lines...)
	}
	req := policycheck.Request{URL: f.URL, Agent: f.Agent, Purpose: f.Purpose, BackendHeaders: f.BackendHeaders, ClientIP: f.ClientIP, Headers: headers}
	if f.RobotsFile != "" {
		b, err := os.ReadFile(f.RobotsFile)
		if err != nil {
			return policycheck.Request{}, err
		}
		req.RobotsFile, req.RobotsFileName = b, f.RobotsFile
	}
	return req, nil
}

// ReportFlags are the flags of report that both front ends take ("robots report" and "caddy
// robots report") besides their site's.
type ReportFlags struct {
	// Workers is how many goroutines read the logs (ReportOptions.Workers).
	Workers int
}

// Add declares the flags on fs.
func (f *ReportFlags) Add(fs FlagSet) {
	f.Workers = runtime.GOMAXPROCS(0)
	fs.Func("workers", fmt.Sprintf("read the logs with this many goroutines, each on a core (default: GOMAXPROCS, %d here); the report is the same for any number", f.Workers), func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return errors.New("want a number of goroutines, at least 1")
		}
		f.Workers = n
		return nil
	})
}
