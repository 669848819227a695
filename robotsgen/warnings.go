package robotsgen

import "github.com/sitepolicy/caddy-robots/configerr"

// Warnings reports what in a valid f has no effect or may not be read as meant, as errors
// with field paths (the same paths as Validate's), for the front ends to log when the
// config loads; a config with warnings still loads. It reports:
//   - a Content-Usage or Content-Signal rule whose paths are disallowed for every crawler
//     its group addresses (each with the rules of all the groups naming it): preferences
//     apply only to paths that may be crawled (draft-ietf-aipref-attach), so the rule has no
//     effect; and such a line outside any group (a file-level record), which applies to no
//     crawler;
//   - a user agent with digits (AI2Bot): accepted, but a strict RFC 9309 parser reads it only
//     up to the first digit.
func (f *File) Warnings() []*configerr.Error {
	return append(f.usageWarnings(), f.agentWarnings()...)
}
