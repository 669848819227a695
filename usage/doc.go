// Package usage reads, combines, validates and writes AI usage preferences in two
// vocabularies:
//
//   - [ContentUsage]: the IETF aipref vocabulary (draft-ietf-aipref-vocab-07), keys
//     train-ai and search, values the Tokens y and n, carried by the Content-Usage HTTP
//     response header and the Content-Usage robots.txt rule (draft-ietf-aipref-attach-05).
//   - [ContentSignal]: Cloudflare's Content Signals (draft-romm-aipref-contentsignals-00),
//     keys search, ai-input and ai-train, values the Tokens yes and no, carried by the
//     Content-Signal robots.txt line.
//
// Every key holds a [Pref]: [Allow], [Disallow] or [Unknown]. A set of them is a [Prefs],
// an immutable value whose Structured Field serialisation is computed once, when it is
// built, so that a server can build its preferences at configuration time and write
// them on every response without further work.
//
// # Reading
//
// [Vocab.Parse] reads a received value exactly as the vocabulary's processing algorithm
// says: the bytes are parsed as a Structured Field Dictionary (RFC 9651, with
// github.com/dunglas/httpsfv); a key that repeats keeps its last value; a value that is
// not one of the vocabulary's two Tokens, or a missing key, is Unknown; parameters and
// keys outside the vocabulary are ignored; and a value that does not parse (an upper-case
// key, a trailing comma, a missing comma, ...) makes every preference Unknown and is
// reported as an error. Content-Signal values get exactly the same treatment with yes/no:
// Cloudflare's `search=yes, ai-train=no` is a Dictionary whose values are Tokens, and a
// malformed line is not guessed at (`Search=yes` fails to parse; `ai-train="no"`,
// `ai-train=No` and `ai-train=n` are Unknown).
//
// [Vocab.ParseLine] and [FormatLine] split and join the `[path SP] dictionary` value of a
// robots.txt Content-Usage or Content-Signal line. [MergeHeader] merges a route's
// preferences with a backend's Content-Usage header: the keys the route knows combine, the
// backend's other members are passed on as sent.
//
// # Combining
//
// [Combine] applies the vocabulary's rule key by key: any Disallow wins, otherwise any
// Allow, otherwise Unknown. It is commutative, associative and idempotent, and returns
// one of its arguments unchanged (no allocation) when that argument already says
// everything the other says, so results are easy to cache.
//
// # Configuration
//
// What a user writes is checked strictly when the configuration loads, unlike what is
// received: [Vocab.FromArgs] reads Caddyfile-style arguments (`train-ai=n search=y`, one
// key=value per argument) and [Vocab.FromConfig] reads the JSON form, an object from key to
// value:
//
//	{"train-ai": "n", "search": "y"}
//
// A robots.txt rule is a [Rule], an object with an optional path:
//
//	{"path": "/open-data/", "preferences": {"train-ai": "y"}}
//
// Values must be y or n (Content-Usage) or yes or no (Content-Signal). A key outside the
// vocabulary is refused, with the closest vocabulary key suggested, unless it is written
// as an extension: a "+" followed by a valid Structured Field key (a lower-case letter or
// "*", then lower-case letters, digits, "_", "-", "." or "*"). "+x-use=n" is emitted as
// `x-use=n`. The "+" is not part of the key; it only tells the loader that the key is
// meant, and since "+" cannot appear in a Structured Field key the escape cannot collide
// with any key, present or future. Extensions take the vocabulary's values, combine with
// the same rule and are written after the vocabulary's keys, sorted.
//
// Configuration errors are the project's [*configerr.Error] (Path, Value, Problem,
// Suggestion), one per mistake, joined in key order. Their paths name the key as a map
// element, `["train-ia"]`; the caller re-roots them under its own field with
// [configerr.Prefix], giving `preferences["train-ia"]`. A suggestion is a likely
// intended key or value: the closest vocabulary key (configerr.Closest, as elsewhere in
// the project), the key in lower case, the other vocabulary's spelling (ai-train for
// train-ai), or y/n for yes/no/true/false and the like.
package usage
