// Package cli is what the two front ends of the check and lint commands share: "robots check"
// and "robots lint" (github.com/sitepolicy/caddy-robots/cmd/robots, on the net/http
// middleware's JSON) and "caddy robots check" and "caddy robots lint" (the Caddy module, on a
// Caddy config). It holds their exit statuses, the check of the --format flag, the output of a
// check and of a lint with the status it exits with, and the JSON error report of --format
// json. Each command loads its own config into a policycheck.Site and parses its own flags;
// policycheck does the checking.
package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/policycheck"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// Exit statuses of the check and lint commands.
const (
	ExitOK    = 0 // check: allowed; lint: no finding at warning level or above
	ExitFail  = 1 // check: disallowed; lint: a warning or an error
	ExitUsage = 2 // a usage or config error
)

// CheckFormat returns an error unless format, the value of --format, is "text" or "json".
func CheckFormat(format string) error {
	if format != "text" && format != "json" {
		if c := configerr.Closest(strings.ToLower(format), []string{"text", "json"}); c != "" {
			return fmt.Errorf("--format %q: want text or json (did you mean %q?)", format, c)
		}
		return fmt.Errorf("--format %q: want text or json", format)
	}
	return nil
}

// requestFlags are the flags of check that set the fields of a policycheck.Request.
var requestFlags = map[string]string{"URL": "--url", "BackendHeaders": "--backend-header", "ClientIP": "--client-ip", "Headers": "--header"}

// Check is policycheck.Check for a command: a problem with the request names the flag that
// gave the value at fault (--url, --backend-header, --client-ip, --header), a crawler claim
// left unverified for want of an address says which flag gives one, and a signature whose
// keys come from its agent's key directory says that check fetches none and which flag gives
// them.
func Check(site *policycheck.Site, req policycheck.Request) (*policycheck.Report, error) {
	rep, err := policycheck.Check(site, req)
	var re *policycheck.RequestError
	if errors.As(err, &re) {
		if flag, ok := requestFlags[re.Field]; ok {
			return nil, fmt.Errorf("%s %q: %s", flag, re.Value, re.Problem)
		}
	}
	if err != nil {
		return nil, err
	}
	if v := rep.Verification; v != nil && req.ClientIP == "" && v.Identity.Status == identity.Pending.String() {
		rep.Notes = append(rep.Notes, "give the client's address with --client-ip to verify the crawler's claim as the server does")
	}
	if v := rep.Verification; v != nil && v.Signature != nil && v.Signature.Reason == webbotauth.NotFetched {
		rep.Notes = append(rep.Notes, "check fetches no key directory: the agent's keys come from its directory ("+webbotauth.DirectoryURL(v.Signature.Agent)+"), so its signature is unknown-key here, where a server fetches the keys and then verifies it; save the directory's JWK Set and give it with --signature-keys to verify the signature as the server would")
	}
	return rep, nil
}

// Place says where in a Caddy config a checked URL is handled (caddy robots check).
type Place struct {
	// Server is the name of the server (apps.http.servers.<name>) that takes the URL.
	Server string `json:"server"`
	// Handlers are the robots_txt and robots_tag handlers that the URL's request passes
	// through, as Caddyfile lines or JSON paths.
	Handlers []string `json:"handlers"`
}

// RunCheck writes rep in format ("text" or "json") and returns the exit status: ExitOK when
// robots.txt allows the URL, ExitFail when it disallows it. With at, the text starts with
// the server and its handlers, and the JSON has Place's members after the report's.
func RunCheck(w io.Writer, rep *policycheck.Report, at *Place, format string) (int, error) {
	var err error
	switch {
	case format == "json" && at != nil:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		err = enc.Encode(struct {
			*policycheck.Report
			*Place
		}{rep, at})
	case format == "json":
		err = rep.WriteJSON(w)
	default:
		if at != nil {
			fmt.Fprintf(w, "Server:   %s (%s)\n", at.Server, strings.Join(at.Handlers, ", "))
		}
		err = rep.WriteText(w)
	}
	if err != nil {
		return ExitUsage, err
	}
	if !rep.Allowed {
		return ExitFail, nil
	}
	return ExitOK, nil
}

// RunLint lints the sites, writes the findings in format ("text" or "json"; the JSON is a
// LintResult) and returns the exit status: ExitFail when a finding is a warning or an error.
func RunLint(w io.Writer, sites []*policycheck.Site, format string) (int, error) {
	var all []policycheck.Finding
	for _, s := range sites {
		f, err := policycheck.Lint(s)
		if err != nil {
			return ExitUsage, err
		}
		all = append(all, f...)
	}
	r := newLintResult(all)
	var err error
	if format == "json" {
		err = r.writeJSON(w)
	} else {
		err = r.writeText(w)
	}
	if err != nil {
		return ExitUsage, err
	}
	if r.Failed {
		return ExitFail, nil
	}
	return ExitOK, nil
}
