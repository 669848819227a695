package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/logreport"
	"github.com/sitepolicy/caddy-robots/policycheck"
)

// CheckReportFormat returns an error unless format, the value of report's --format, is
// "text", "json" or "html".
func CheckReportFormat(format string) error {
	formats := []string{"text", "json", "html"}
	for _, f := range formats {
		if format == f {
			return nil
		}
	}
	if c := configerr.Closest(strings.ToLower(format), formats); c != "" {
		return fmt.Errorf("--format %q: want text, json or html (did you mean %q?)", format, c)
	}
	return fmt.Errorf("--format %q: want text, json or html", format)
}

// ReportOptions are what the report commands share besides the site.
type ReportOptions struct {
	// Name names the site's config in the report.
	Name string
	// Host keeps only the requests for this host from logs that record it (Caddy's); "" for
	// all.
	Host string
	// Origin is the scheme and host the site's robots.txt is rendered for (its sitemap
	// lines); "" for https://Host, or http://localhost without Host.
	Origin string
	// Logs are the log files; none, or "-", is standard input.
	Logs []string
	// Format is "text", "json" or "html".
	Format string
	// Output is the file to write the report to; "" for w.
	Output string
}

// RunReport replays the logs against site and writes the report, and returns the exit
// status: ExitFail when the report has violations or impostors, ExitOK otherwise, ExitUsage
// when a log cannot be opened or the config is wrong (nothing is written then). A log that
// ends early (a truncated gzip file) is reported on stderr and in the report, with what was
// read of it.
func RunReport(w, stderr io.Writer, stdin io.Reader, site *policycheck.Site, opts ReportOptions) (int, error) {
	origin := opts.Origin
	switch {
	case origin != "":
	case opts.Host != "":
		origin = "https://" + opts.Host
	default:
		origin = "http://localhost"
	}
	rp, err := policycheck.NewReplay(site, origin)
	if err != nil {
		return ExitUsage, err
	}
	defer rp.Close()
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	logs := opts.Logs
	if len(logs) == 0 {
		logs = []string{"-"}
	}
	for _, name := range logs {
		if name == "-" {
			files = append(files, nil)
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			return ExitUsage, err
		}
		files = append(files, f)
	}
	b := logreport.NewBuilder(rp, logreport.Options{Host: opts.Host})
	for i, name := range logs {
		var r io.Reader = stdin
		if files[i] != nil {
			r = files[i]
		}
		if err := b.ReadLog(name, r); err != nil {
			fmt.Fprintf(stderr, "report: %v\n", err)
		}
	}
	rep := b.Report()
	rep.Site.Name = opts.Name
	out := w
	var file *os.File
	if opts.Output != "" {
		if file, err = os.Create(opts.Output); err != nil {
			return ExitUsage, err
		}
		out = file
	}
	switch opts.Format {
	case "json":
		err = rep.WriteJSON(out)
	case "html":
		err = rep.WriteHTML(out)
	default:
		err = rep.WriteText(out)
	}
	if file != nil {
		err = errors.Join(err, file.Close())
	}
	if err != nil {
		return ExitUsage, err
	}
	if rep.Totals.Violations > 0 || rep.Totals.Impostors > 0 {
		return ExitFail, nil
	}
	return ExitOK, nil
}
