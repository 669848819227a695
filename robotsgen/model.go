package robotsgen

import (
	"fmt"

	"github.com/sitepolicy/caddy-robots/usage"
)

// MaxSize is the largest robots.txt, in bytes, that Render produces and Parse
// reads. RFC 9309 section 2.5 makes 500 KiB the minimum parsing limit of
// crawlers, so anything past it may be lost; a generator must stay under it.
const MaxSize = 500 * 1024

// maxLineLen is the longest rendered line we allow. Google's parser (and its
// Go port) truncates lines at 2083*8 bytes; a longer line would be cut
// silently, changing its meaning.
const maxLineLen = 2083*8 - 1

// File is a robots.txt file: groups, sitemaps, file-level other records and
// optional leading comment lines.
type File struct {
	// Comments are rendered at the top, one "# text" line each.
	Comments []string `json:"comments,omitempty"`
	// Groups are the groups of the file, in order.
	Groups []Group `json:"groups,omitempty"`
	// Sitemaps are absolute http(s) URLs, or paths starting with "/" that
	// Render resolves against the request origin.
	Sitemaps []string `json:"sitemaps,omitempty"`
	// Records are file-level other records (RFC 9309 section 2.2.4), e.g. Host.
	Records []Record `json:"records,omitempty"`
	// Licenses are the URLs of RSL license documents (RSL 1.0, "License" directive): absolute
	// http(s) URLs, or paths starting with "/" that Render resolves against the request
	// origin as it does sitemaps. Each is rendered "License: URL" with the sitemaps, before
	// every group, since the directive belongs to no group; a URL that resolves to one
	// already written is written once.
	Licenses []string `json:"licenses,omitempty"`
}

// Group is a group of rules (RFC 9309 section 2.2) for the crawlers named by
// its product tokens and/or its purpose tokens (draft-illyes-rep-purpose).
type Group struct {
	// UserAgents are product tokens; "*" means all crawlers.
	UserAgents []string `json:"user_agents,omitempty"`
	// Presets are crawler catalogue categories (package crawlers: "ai-training",
	// "ai-search", "ai-assistants", "ai-all") whose crawlers the group addresses too: see
	// Expand.
	Presets []string `json:"presets,omitempty"`
	// Except names crawlers that the group's presets leave out, as the catalogue writes them
	// (compared without case): {"presets": ["ai-training"], "except": ["GoogleOther"]}
	// addresses every training crawler but GoogleOther, which then obeys the groups that
	// still address it (one naming it, another preset's) or else "*". Each name must be a
	// crawler of one of the group's presets and not one of its own user agents (Validate).
	// A name never written to robots.txt may be left out too ("ChatGPT Agent"): only
	// enforcement reads those.
	Except []string `json:"except,omitempty"`
	// Purposes are User-Agent-Purpose tokens.
	Purposes []string `json:"purposes,omitempty"`
	// Rules are the allow and disallow rules, in order.
	Rules []Rule `json:"rules,omitempty"`
	// CrawlDelay is the non-standard Crawl-delay in seconds; 0 means none.
	CrawlDelay float64 `json:"crawl_delay,omitempty"`
	// Records are group-level other records.
	Records []Record `json:"records,omitempty"`
	// ContentUsage are Content-Usage rules (draft-ietf-aipref-attach), rendered
	// "Content-Usage: [path ]preferences" after the group's rules, in order.
	ContentUsage []usage.Rule `json:"content_usage,omitempty"`
	// ContentSignal are Content-Signal lines (draft-romm-aipref-contentsignals), in the
	// same form, rendered after the Content-Usage rules.
	ContentSignal []usage.Rule `json:"content_signal,omitempty"`
}

// RuleType says whether a rule allows or disallows.
type RuleType string

// The two rule types of RFC 9309 section 2.2.2.
const (
	Allow    RuleType = "allow"
	Disallow RuleType = "disallow"
)

// Rule is an allow or disallow line with its path pattern.
type Rule struct {
	Type RuleType `json:"type"`
	// Path is the path pattern: it starts with "/" or "*"; "*" matches any
	// sequence of octets and a final "$" anchors the end of the URL path.
	Path string `json:"path"`
}

// Record is an other record (RFC 9309 section 2.2.4): a key and a value that
// the protocol itself does not define, such as Host or Clean-param.
type Record struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Diagnostic reports a line (or part of one) that Parse skipped or changed,
// and why, so that an operator importing a file can see what was lost.
type Diagnostic struct {
	Line   int    // 1-based line number
	Text   string // the line as read (truncated to 200 bytes)
	Reason string // why it was skipped or changed
}

// Error formats the diagnostic as "line N: reason: text".
func (d Diagnostic) Error() string {
	return fmt.Sprintf("line %d: %s: %q", d.Line, d.Reason, d.Text)
}

// String is the same as Error.
func (d Diagnostic) String() string { return d.Error() }

// Decision is the answer of Matcher.Decide.
type Decision struct {
	// Allowed says whether the crawler may fetch the path.
	Allowed bool
	// Group is the index into File.Groups of the first group obeyed (groups
	// naming the same token are merged), or -1 if no group applies.
	Group int
	// Rule is the rule that decided, or nil if no rule matched (the path is
	// then allowed). Of equal rules, the first of the groups obeyed in file order.
	Rule *Rule
	// Line is Rule's line in the Text the Matcher is of (Text.Matcher); 0 for a Matcher made
	// from a File alone (NewMatcher), or without a rule.
	Line int
}
