package logreport

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

const timeLayout = "2006-01-02 15:04:05"

func fmtTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// Bytes writes a size in bytes with a binary unit: "512 B", "3.2 KiB", "1.0 GiB".
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

// statuses writes status counts as "200:12 404:3", by status.
func statuses(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s:%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}

// robotsCell says whether and when a crawler fetched robots.txt.
func robotsCell(f RobotsFetches) string {
	if f.Fetches == 0 {
		return "never"
	}
	return fmt.Sprintf("%d, last %s", f.Fetches, fmtTime(*f.Last))
}

// WriteText writes the report as text: the totals, a table of the crawlers, a table of their
// violations, and the unreadable lines.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	var inputs []string
	for _, in := range r.Inputs {
		s := fmt.Sprintf("%s (%d lines", in.Name, in.Lines)
		if in.Gzip {
			s += ", gzip"
		}
		if in.Error != "" {
			s += "; " + in.Error
		}
		inputs = append(inputs, s+")")
	}
	fmt.Fprintf(&b, "Logs:       %s\n", strings.Join(inputs, ", "))
	for _, in := range r.Inputs {
		if in.Error != "" {
			fmt.Fprintf(&b, "ERROR:      %s could not be read to its end: %s\n", printable([]byte(in.Name), maxKey), in.Error)
		}
	}
	fmt.Fprintf(&b, "Site:       %s\n", text(r.Site.Name))
	config := r.Site.Config
	if r.Site.Host != "" {
		config += ", host " + r.Site.Host
	}
	fmt.Fprintf(&b, "Replayed:   against %s, as configured now\n", text(config))
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "Note:       %s\n", n)
	}
	if !r.Range.First.IsZero() {
		fmt.Fprintf(&b, "Period:     %s to %s UTC\n", fmtTime(r.Range.First), fmtTime(r.Range.Last))
	}
	t := r.Totals
	fmt.Fprintf(&b, "Requests:   %d (%s): crawlers %d (%s), tools %d (%s), impostors %d (%s), others %d (%s)\n", t.Requests, Bytes(t.Bytes), t.CrawlerRequests, Bytes(t.CrawlerBytes), t.ToolRequests, Bytes(t.ToolBytes), t.Impostors, Bytes(t.ImpostorBytes), t.OtherRequests, Bytes(t.OtherBytes))
	fmt.Fprintf(&b, "Violations: %d; impostors: %d", t.Violations, t.Impostors)
	if t.OtherHosts > 0 {
		fmt.Fprintf(&b, "; lines for other hosts (not counted): %d", t.OtherHosts)
	}
	fmt.Fprintf(&b, "\nUnreadable: %s\n", plural(r.Unreadable.Count, "line"))
	for _, u := range r.Unreadable.Examples {
		fmt.Fprintf(&b, "  %s:%d: %s: %s\n", u.Input, u.Line, u.Reason, u.Text)
	}
	if err := writeRows(&b, "", "CRAWLER", r.Crawlers); err != nil {
		return err
	}
	if err := writeRows(&b, "Tools and libraries (scripts and HTTP clients, not crawlers):\n", "TOOL", r.Tools); err != nil {
		return err
	}
	if err := writeCrawlToRefer(&b, r.CrawlToRefer); err != nil {
		return err
	}
	if err := writePayments(&b, r); err != nil {
		return err
	}
	if t.Violations > 0 {
		b.WriteString("\nViolations (the rule's line in the robots.txt served now):\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "CRAWLER\tPATH\tRULE\tLINE\tCOUNT\tFIRST\tLAST")
		for _, c := range slices.Concat(r.Crawlers, r.Tools) {
			for _, v := range c.Violations.Top {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", text(c.Name), printable([]byte(v.Path), maxKey+8), printable([]byte(v.Rule), maxKey), line(v.Line), v.Count, fmtTime(v.First), fmtTime(v.Last))
			}
			if c.Violations.Other > 0 {
				fmt.Fprintf(tw, "%s\t(other)\t\t\t%d\t\t\n", text(c.Name), c.Violations.Other)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(r.Impostors) > 0 {
		b.WriteString("\nImpostors (requests claiming a crawler that verification disproves; not counted as the crawler's):\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "CLAIMED\tOPERATOR\tGROUP\tREQUESTS\tBYTES\tDISALLOWED\tFIRST\tLAST\tSTATUSES")
		for _, im := range r.Impostors {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%d\t%s\t%s\t%s\n", text(im.Name), dash(im.Operator), group(im.Token), im.Requests, Bytes(im.Bytes), im.Disallowed, fmtTime(im.First), fmtTime(im.Last), statuses(im.Statuses))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeRows writes a table of crawlers' (or tools') rows, under a heading, when there are any.
func writeRows(b *strings.Builder, heading, first string, rows []*Crawler) error {
	if len(rows) == 0 {
		return nil
	}
	b.WriteString("\n" + heading)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, first+"\tOPERATOR\tGROUP\tREQUESTS\tBYTES\tROBOTS.TXT\tVIOLATIONS\tSTATUSES")
	for _, c := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%d\t%s\n", text(c.Name), dash(c.Operator), group(c.Token), c.Requests, Bytes(c.Bytes), robotsCell(c.RobotsTxt), c.Violations.Count, statuses(c.Statuses))
	}
	return tw.Flush()
}

// writePayments writes the x402 pay per crawl table: the crawlers (and tools) asked to pay
// or served paid, when any client was.
func writePayments(b *strings.Builder, r *Report) error {
	if r.Totals.PaymentRequired == 0 && r.Totals.Paid == 0 {
		return nil
	}
	fmt.Fprintf(b, "\nPay per crawl (x402): %d answered 402 Payment Required, %d served paid\n", r.Totals.PaymentRequired, r.Totals.Paid)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CRAWLER\tGROUP\t402\tPAID")
	for _, c := range slices.Concat(r.Crawlers, r.Tools) {
		if c.PaymentRequired > 0 || c.Paid > 0 {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\n", text(c.Name), group(c.Token), c.PaymentRequired, c.Paid)
		}
	}
	return tw.Flush()
}

// text is a name from the file or the log, printable on a terminal.
func text(s string) string { return printable([]byte(s), maxKey) }

// group is a row's group as the text shows it: "*" for none.
func group(token string) string {
	if token == "" {
		return "*"
	}
	return text(token)
}

func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func line(n int) string {
	if n == 0 {
		return "-"
	}
	return strconv.Itoa(n)
}
