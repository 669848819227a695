package cli

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
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
	// Name names the site's config in the report (its file, and the server in it).
	Name string
	// Hosts are the host names the config serves the site under: the report's title. None
	// for a config that does not say (its Name is the title then).
	Hosts []string
	// Host keeps only the requests for this host from logs that record it (Caddy's); "" for
	// all. It is a host name (or IP address), without scheme or port: CheckReportHost.
	Host string
	// Origin is the scheme and host the site's robots.txt is rendered for (its sitemap
	// lines); "" for https://Host, or http://localhost without Host.
	Origin string
	// RobotsFile, when set, is a robots.txt file as the site served it, to replay against
	// instead of the config's (policycheck.NewFileReplay).
	RobotsFile string
	// Logs are the log files, or patterns of them (filepath.Glob's, for the names the shell
	// left quoted); none, or "-", is standard input.
	Logs []string
	// Workers is how many goroutines read the logs (logreport.Builder.ReadLogs); 0 for
	// GOMAXPROCS.
	Workers int
	// Format is "text", "json" or "html".
	Format string
	// Output is the file to write the report to; "" for w.
	Output string
}

// CheckReportHost returns an error unless host, the value of report's --host, is a host
// name or IP address alone: a scheme or a port would never equal a log's host, and every
// line would count as another host's.
func CheckReportHost(host string) error {
	if host == "" {
		return nil
	}
	if strings.Contains(host, "/") {
		return fmt.Errorf("--host %q: give the host name alone, without scheme or path, e.g. example.com", host)
	}
	if _, _, err := net.SplitHostPort(host); err == nil {
		return fmt.Errorf("--host %q: give the host name without the port, e.g. example.com (a log's host is compared without its port)", host)
	}
	return nil
}

// RunReport replays the logs against site and writes the report, and returns the exit
// status: ExitFail when the report has violations or impostors, ExitOK otherwise. It returns
// ExitUsage with an error, before reading any log, when the arguments are wrong (a log that
// cannot be opened or is a directory, a pattern that matches no log, standard input given
// twice, an output file that
// cannot be created or is one of the logs) or the config is; and ExitUsage with a nil error
// after writing the report when a log could not be read to its end (a corrupt or truncated
// gzip file, a read error) or has no access log entry at all: the report says which, counts
// what was read, and stderr says it too.
func RunReport(w, stderr io.Writer, stdin io.Reader, site *policycheck.Site, opts ReportOptions) (int, error) {
	if err := CheckReportHost(opts.Host); err != nil {
		return ExitUsage, err
	}
	logs := opts.Logs
	if len(logs) == 0 {
		logs = []string{"-"}
	}
	logs, err := expandLogs(logs)
	if err != nil {
		return ExitUsage, err
	}
	if err := checkLogs(logs); err != nil {
		return ExitUsage, err
	}
	rp, err := newReplay(site, opts)
	if err != nil {
		return ExitUsage, err
	}
	defer rp.Close()
	// The output is created before the logs are read: a mistyped directory fails at once,
	// not after an hour of reading.
	file, err := createOutput(opts.Output, logs)
	if err != nil {
		return ExitUsage, err
	}
	out := w
	if file != nil {
		defer file.Close()
		out = file
	}
	b := logreport.NewBuilder(rp, logreport.Options{Host: opts.Host})
	toRead := make([]logreport.Log, len(logs))
	for i, name := range logs {
		toRead[i] = logreport.Log{Name: name, Open: func() (io.ReadCloser, error) {
			if name == "-" {
				return io.NopCloser(stdin), nil
			}
			return os.Open(name)
		}}
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	errs := b.ReadLogs(toRead, workers)
	for _, err := range errs {
		fmt.Fprintf(stderr, "report: %v\n", err)
	}
	unread := len(errs)
	rep := b.Report()
	describeSite(rep, site, opts)
	err = writeReport(out, rep, opts.Format)
	if file != nil {
		err = errors.Join(err, file.Close())
	}
	if err != nil {
		return ExitUsage, err
	}
	if unread > 0 {
		// Said here, not returned: the report is written, and a JSON error after it would
		// make two documents of the output.
		fmt.Fprintf(stderr, "report: %d of %d logs could not be read to their end (the report says which); what was read is counted\n", unread, len(logs))
		return ExitUsage, nil
	}
	if rep.Totals.Violations > 0 || rep.Totals.Impostors > 0 {
		return ExitFail, nil
	}
	return ExitOK, nil
}

// expandLogs returns the logs named, with each pattern (a name with *, ? or [ that is no
// file: the shell left it quoted, or matched nothing with it) replaced by the files it
// matches (filepath.Glob), in order; a log named twice is read once. A pattern that matches
// nothing, or is malformed, is an error.
func expandLogs(logs []string) ([]string, error) {
	var out []string
	for _, name := range logs {
		if name == "-" || !strings.ContainsAny(name, "*?[") {
			out = append(out, name)
			continue
		}
		if _, err := os.Lstat(name); err == nil {
			out = append(out, name) // a file so named
			continue
		}
		matches, err := filepath.Glob(name)
		if err != nil {
			return nil, fmt.Errorf("log pattern %q: %v", name, err)
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("no log matches %q", name)
		}
		out = append(out, matches...)
	}
	seen := map[string]bool{}
	return slices.DeleteFunc(out, func(name string) bool {
		dup := seen[name] && name != "-" // standard input twice is checkLogs' error
		seen[name] = true
		return dup
	}), nil
}

// checkLogs checks that the log files named can be opened and are no directory, and that
// standard input ("-") is named once at most: usage errors, found before any log is read.
// ReadLogs opens each again when it reads it.
func checkLogs(logs []string) error {
	if n := slices.Index(logs, "-"); n >= 0 && slices.Index(logs[n+1:], "-") >= 0 {
		return errors.New(`standard input ("-") given twice: it can be read once`)
	}
	for _, name := range logs {
		if name == "-" {
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		st, err := f.Stat()
		f.Close()
		if err != nil {
			return err
		}
		if st.IsDir() {
			return fmt.Errorf("%s is a directory, not a log (give its files, e.g. %s)", name, filepath.Join(name, "access.log"))
		}
	}
	return nil
}

// newReplay returns the replay of the site's requests, against opts.RobotsFile if it is
// given, at opts.Origin (https://Host, or http://localhost without Host, when "").
func newReplay(site *policycheck.Site, opts ReportOptions) (*policycheck.Replay, error) {
	origin := opts.Origin
	switch {
	case origin != "":
	case opts.Host != "":
		origin = "https://" + opts.Host
	default:
		origin = "http://localhost"
	}
	if opts.RobotsFile != "" {
		return policycheck.NewFileReplay(site, opts.RobotsFile, origin)
	}
	return policycheck.NewReplay(site, origin)
}

// createOutput creates the file the report is written to, none when name is "". It must be
// none of the logs, which creating it would empty.
func createOutput(name string, logs []string) (*os.File, error) {
	if name == "" {
		return nil, nil
	}
	if ost, err := os.Stat(name); err == nil {
		for _, log := range logs {
			if st, err := os.Stat(log); log != "-" && err == nil && os.SameFile(st, ost) {
				return nil, fmt.Errorf("-o %s is the log %s: the report would overwrite it", name, log)
			}
		}
	}
	return os.Create(name)
}

// describeSite says in rep which site and config it replayed, and what it could not see.
func describeSite(rep *logreport.Report, site *policycheck.Site, opts ReportOptions) {
	rep.Site.Config = opts.Name
	rep.Site.Name = opts.Name
	if len(opts.Hosts) > 0 {
		rep.Site.Hosts = slices.Clone(opts.Hosts)
		rep.Site.Name = strings.Join(opts.Hosts, ", ")
	}
	if opts.RobotsFile != "" {
		rep.Site.Config += ", robots.txt " + opts.RobotsFile
	} else if rt := site.RobotsTxt; rt != nil && rt.Config.MergeUpstream {
		rep.Notes = append(rep.Notes, "robots_txt merges the backend's own robots.txt at serve time (merge_upstream), which the report cannot see: requests are replayed against the declared file (with merge_file's). A disallow holds in the merge; an allow may not. To replay against the file as served, save the site's /robots.txt and give it with --robots-file")
	}
}

// writeReport writes rep in format: "json", "html", or text.
func writeReport(out io.Writer, rep *logreport.Report, format string) error {
	switch format {
	case "json":
		return rep.WriteJSON(out)
	case "html":
		return rep.WriteHTML(out)
	default:
		return rep.WriteText(out)
	}
}
