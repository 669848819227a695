// Package robotsgen models, validates, renders, parses and matches robots.txt
// files (RFC 9309) including the User-Agent-Purpose extension
// (draft-illyes-rep-purpose-00), and the AI usage preference lines Content-Usage
// (draft-ietf-aipref-attach-05) and Content-Signal (draft-romm-aipref-contentsignals-00),
// whose values package usage reads and writes.
//
// Parsing (Parse), rendering (File.Render) and matching (Matcher) are
// separate, as in Google's robotstxt library: the Matcher reads the model,
// never the text.
//
// # Rendering choices
//
// Every choice below was measured against two independent parsers that do
// not know User-Agent-Purpose, github.com/jimsmart/grobotstxt (a port of
// Google's parser) and github.com/temoto/robotstxt; the witness property
// test in this package checks them on thousands of generated files.
//   - A group without rules is rendered with an empty "Disallow:", which RFC
//     9309 reads as allow-all. Without a rule line, "User-agent: GoodBot"
//     followed by "User-agent: *" / "Disallow: /" would be one group and
//     GoodBot would be disallowed. Both witnesses close the group at the
//     empty Disallow and allow everything (temoto stores it as a rule for
//     the path "/\n", which matches no request). Unlike "Allow: /", it adds
//     no rule, so merging the group with another group naming the same token
//     changes nothing.
//   - Purpose-only groups come first, behind one line
//     "User-agent: robotsgen-purpose-groups" (PurposeSentinel). A parser
//     that does not know User-Agent-Purpose ignores those lines, so without
//     the guard their rules would join the previous group (temoto), or, at
//     the top of the file, stand outside any group, which temoto rejects as
//     a whole-file error. The guard is a user-agent line every parser reads,
//     with a product token that no crawler uses and Validate reserves
//     (temoto matches agents by prefix, Google by equality: only a crawler
//     whose name starts with the guard token would obey it). It stays a
//     valid product token so the file keeps to the RFC 9309 grammar. Because the
//     purpose groups come first, a strict parser that dropped the guard line
//     would find their rules before any user-agent line and ignore them (RFC
//     9309 section 2.2.2), still not attaching them to another group.
//     Google's parser reads any key starting with "user-agent" as a
//     user-agent line, so it sees a purpose group as a group for an agent
//     named like the purpose token; that is harmless unless a crawler's
//     product token equals a purpose token.
//   - Groups that name both product tokens and purposes keep their place;
//     their User-agent lines already start the group for every parser.
//   - Sitemap lines and file-level records come first, after the leading
//     comments and before any group, so they can never split a group and
//     Parse can tell file-level records from group-level ones. Group-level
//     records and Crawl-delay follow the group's rules.
//   - Keys are spelled "User-agent", "User-Agent-Purpose", "Allow",
//     "Disallow", "Crawl-delay", "Sitemap"; lines end in LF; the output is
//     UTF-8; octets outside ASCII in patterns are percent-encoded with upper
//     case hex (RFC 9309 section 2.2.2); groups are separated by a blank
//     line. The same File and origin always give the same bytes.
//   - Patterns are written as configured, apart from that encoding. A "$"
//     before the end of a pattern stays a literal "$": Google's parser (and
//     RFC 9309, where "$" is special only at the end) matches it against a
//     "$" in the path, while %24 would match only a path spelling "%24"
//     there. Our Matcher treats "$" and %24 in paths and mid-pattern as the
//     same octet (RFC 9309 figure 6). A final "$" anchors the end; a literal
//     final "$" is written %24.
//   - No line is longer than 2083*8-1 bytes, where Google's parser cuts
//     lines: Validate names each value that would make a longer line, and
//     Render checks sitemap lines again with the origin prefixed.
//
// Import: Parse reads a file the way Google's parser does, so that
// Render(Parse(file)) keeps Google's decision for every product token and
// requested path (a property test checks this on 10,000 generated files with
// github.com/jimsmart/grobotstxt). Lines Google reads that no File can
// express are skipped with a Diagnostic saying so.
//
// Round trip: for every valid f, Parse(f.Render(origin)) returns f with its
// sitemap paths resolved against origin, non-ASCII octets in patterns
// percent-encoded and purpose-only groups moved first, and no diagnostics.
//
// # AI usage preferences
//
// Group.ContentUsage and Group.ContentSignal are rendered "Content-Usage: [path ]dictionary"
// and "Content-Signal: [path ]dictionary" after the group's Allow/Disallow lines and before
// its Crawl-delay and records; a path is checked and percent-encoded as an Allow/Disallow
// pattern and must start with "/". RFC 9309 parsers read the lines as other records: the
// witness test renders files with and without them and checks that both witnesses decide
// the same. Parse reads them into the group they are in, in canonical form (see Parse);
// Matcher.Preferences answers what they
// say for a crawler and path; Warnings reports a rule whose path its group disallows.
//
// # Purpose matching (our reading of draft-illyes-rep-purpose-00)
//
// User-Agent-Purpose "is semantically equivalent to the user-agent rule" and
// starts groups like it; the two may be mixed in one group's header lines. A
// crawler that matches a product-token group obeys the merged product-token
// groups ("SHOULD obey that group"), ignoring purposes. Otherwise the groups
// naming its purpose are merged and obeyed. Otherwise the "*" groups are.
// Purpose tokens are compared case-insensitively. The draft's example tokens
// ("EXAMPLE-PURPOSE-1") contain digits, so purpose tokens may use A-Z, a-z,
// 0-9, "_" and "-"; product tokens may not use digits (RFC 9309 2.2.1).
package robotsgen
