package usage

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dunglas/httpsfv"
)

// Rule is the JSON form of one robots.txt Content-Usage or Content-Signal rule in
// configuration. Path is optional ("" applies to "/", written without a path); it is
// robots.txt's business to check and encode it. Preferences is read by
// [Vocab.FromConfig], with the field path "preferences" (prefixed as the caller needs).
type Rule struct {
	Path        string            `json:"path,omitempty"`
	Preferences map[string]string `json:"preferences"`
}

// FieldError is a configuration mistake found while loading preferences.
type FieldError struct {
	// Path locates the mistake: the field path given to FromConfig and the key
	// ("preferences.train-ia"), or the key alone for FromArgs.
	Path string
	// Value is what was written: the key, the value, or the whole argument.
	Value string
	// Problem says what is wrong.
	Problem string
	// Suggestion says how to put it right; it may be "".
	Suggestion string
}

// Error returns "path: problem: value; suggestion".
func (e *FieldError) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Problem)
	b.WriteString(": ")
	b.WriteString(strconv.Quote(e.Value))
	if e.Suggestion != "" {
		b.WriteString("; ")
		b.WriteString(e.Suggestion)
	}
	return b.String()
}

// FromConfig builds preferences from their JSON configuration form, an object from key
// to value such as {"train-ai": "n", "search": "y"}. field is the path of the object in
// the configuration (for example "preferences"); errors name field.key.
//
// Keys must be the vocabulary's, or extensions written "+key" with key a valid
// Structured Field key; values must be y or n (Content-Usage) or yes or no
// (Content-Signal). Every mistake is reported, each as a [*FieldError], joined with
// [errors.Join] in key order. An empty or nil map gives the empty set.
func (v Vocab) FromConfig(field string, m map[string]string) (Prefs, error) {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	var b prefsBuilder
	b.v = v
	for _, key := range keys {
		path := key
		if field != "" {
			path = field + "." + key
		}
		b.add(path, key, m[key])
	}
	return b.done()
}

// FromArgs builds preferences from Caddyfile-style arguments, one key=value per argument:
// `train-ai=n search=y`. The rules are those of [Vocab.FromConfig]; in addition a key
// given twice is refused. Errors name the key (or the whole argument when it has no
// "="); the caller adds the file and line. No arguments give the empty set.
func (v Vocab) FromArgs(args []string) (Prefs, error) {
	var b prefsBuilder
	b.v = v
	seen := make(map[string]bool, len(args))
	for _, arg := range args {
		key, value, ok := strings.Cut(arg, "=")
		if !ok {
			e := &FieldError{Path: arg, Value: arg, Problem: "a preference is written key=value"}
			if arg != "" {
				e.Suggestion = fmt.Sprintf("write %s=%s to allow or %s=%s to disallow", arg, v.token(Allow), arg, v.token(Disallow))
			}
			b.fail(e)
			continue
		}
		if seen[key] {
			b.fail(&FieldError{Path: key, Value: arg, Problem: "key given twice",
				Suggestion: "keep one of them"})
			continue
		}
		seen[key] = true
		b.add(key, key, value)
	}
	return b.done()
}

type prefsBuilder struct {
	v    Vocab
	k    [maxKeys]Pref
	ext  []extPref
	errs []error
}

func (b *prefsBuilder) fail(e *FieldError) { b.errs = append(b.errs, e) }

func (b *prefsBuilder) done() (Prefs, error) {
	if len(b.errs) > 0 {
		return Prefs{v: b.v}, errors.Join(b.errs...)
	}
	sortExt(b.ext)
	return build(b.v, b.k, b.ext), nil
}

// add checks one key and value and records them.
func (b *prefsBuilder) add(path, key, value string) {
	v := b.v
	p, problem, suggestion := checkValue(v, value)
	if problem != "" {
		b.fail(&FieldError{Path: path, Value: value, Problem: problem, Suggestion: suggestion})
	}
	if ext, ok := strings.CutPrefix(key, "+"); ok {
		if problem, suggestion := checkExtension(v, ext); problem != "" {
			b.fail(&FieldError{Path: path, Value: key, Problem: problem, Suggestion: suggestion})
		} else if p != Unknown {
			b.ext = append(b.ext, extPref{ext, p})
		}
		return
	}
	i := v.index(key)
	if i < 0 {
		b.fail(&FieldError{Path: path, Value: key, Problem: "unknown " + v.String() + " key",
			Suggestion: suggestKey(v, key)})
		return
	}
	b.k[i] = p
}

// checkValue reads a configured value: the vocabulary's allow or disallow word, exactly.
func checkValue(v Vocab, value string) (p Pref, problem, suggestion string) {
	allow, disallow := v.token(Allow), v.token(Disallow)
	switch value {
	case allow:
		return Allow, "", ""
	case disallow:
		return Disallow, "", ""
	}
	problem = fmt.Sprintf("%v values are %s (allow) or %s (disallow)", v, allow, disallow)
	switch strings.ToLower(strings.TrimSpace(value)) {
	case "y", "yes", "true", "allow", "allowed", "on", "1":
		return Unknown, problem, fmt.Sprintf("write %s to allow", allow)
	case "n", "no", "false", "disallow", "disallowed", "deny", "off", "0":
		return Unknown, problem, fmt.Sprintf("write %s to disallow", disallow)
	}
	if strings.Contains(value, ",") || strings.Contains(value, "=") {
		return Unknown, problem, "give one key=value per preference, without commas"
	}
	return Unknown, problem, ""
}

// checkExtension checks the key of a "+key" extension.
func checkExtension(v Vocab, key string) (problem, suggestion string) {
	if v.index(key) >= 0 {
		return fmt.Sprintf("%s is a %v key, not an extension", key, v), "write it without the +"
	}
	if validKey(key) {
		return "", ""
	}
	problem = "an extension key must be a Structured Field key: a lower-case letter or *, then lower-case letters, digits, _, -, . or *"
	if lower := strings.ToLower(key); validKey(lower) {
		return problem, fmt.Sprintf("keys are lower case: write +%s", lower)
	}
	return problem, ""
}

// validKey reports whether httpsfv accepts key as a Dictionary key.
func validKey(key string) bool {
	d := httpsfv.NewDictionary()
	d.Add(key, httpsfv.Item{Value: true, Params: httpsfv.NewParams()})
	_, err := httpsfv.Marshal(d)
	return err == nil
}

// suggestKey explains an unknown key: a case mistake, the other vocabulary's spelling, or
// the closest vocabulary key; otherwise it lists the keys and the extension escape.
func suggestKey(v Vocab, key string) string {
	def := v.def()
	lower := strings.ToLower(strings.TrimSpace(key))
	if i := v.index(lower); i >= 0 {
		return fmt.Sprintf("keys are lower case: write %s", lower)
	}
	if hint, ok := def.aliases[lower]; ok {
		return hint
	}
	ext := ""
	if validKey(lower) {
		ext = "+" + lower
	}
	best, bestD := "", 4 // suggest only within an edit distance of 3
	for _, k := range def.keys {
		if d := editDistance(lower, k); d < bestD && d < len(k) {
			best, bestD = k, d
		}
	}
	switch {
	case best != "" && ext != "":
		return fmt.Sprintf("did you mean %s? (an extension key is written %s)", best, ext)
	case best != "":
		return fmt.Sprintf("did you mean %s?", best)
	case ext != "":
		return fmt.Sprintf("%v keys are %s; an extension key is written %s", v, strings.Join(def.keys, ", "), ext)
	}
	return fmt.Sprintf("%v keys are %s", v, strings.Join(def.keys, ", "))
}

// editDistance is the optimal string alignment distance between a and b, by bytes:
// insertions, deletions, substitutions and transpositions of adjacent bytes each cost 1.
func editDistance(a, b string) int {
	// Three rows: two back (transpositions), previous, current.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
