// Package tagemit builds, emits and reads robots rules per product token, as the
// Robots-Tag HTTP field of draft-illyes-repext (a Structured Field List: each member an
// Item naming a product token, the token's rules its Parameters), the legacy
// X-Robots-Tag field in the historic syntax crawlers read today, and HTML robots meta
// elements. Its Injector inserts a Policy's meta elements into the head of an HTML
// response body while it streams, with bounded buffering.
//
// Decisions this package takes (see docs/CONFORMANCE.md):
//
//   - Product tokens are lower-cased (crawlers match them case-insensitively). Tokens
//     that RFC 9309 allows but an SF Token cannot express (leading '-' or '_') are
//     emitted as SF Strings; parsers accept Token or String members.
//   - "none" is expanded to noindex and nofollow on input, so a Policy never holds it.
//   - "all" restricts nothing: NewPolicy rejects it; the parsers drop it with an error.
//   - Unknown rules read from a backend's header or a page are kept when they are
//     boolean and their names are valid SF keys (e.g. "noai"): they are restrictions we
//     cannot interpret but must not drop when a header is merged and re-emitted. They
//     take part in Union and deduplication by name and are emitted after the known
//     rules. Unknown rules with values, or with names that are not SF keys, cannot be
//     emitted safely and are dropped with an error naming them. NewPolicy (and so a
//     configuration) accepts only known rules.
//   - unavailable_after is read as RFC 3339 / ISO 8601, RFC 822 / RFC 1123 or RFC 850 and
//     kept as RFC 3339 in UTC with whole seconds, e.g. 2027-01-01T00:00:00Z.
//   - The product token "robots" is the HTML name for every accessor: configuring it is
//     an error, reading it yields "*". A token spelled like a rule name is rejected, as
//     the X-Robots-Tag syntax could not tell the two apart.
package tagemit
