package usage

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dunglas/httpsfv"

	"github.com/sitepolicy/caddy-robots/configerr"
)

// Rule is the JSON form of one robots.txt Content-Usage or Content-Signal rule in
// configuration. Path is optional ("" applies to "/", written without a path); it is
// robots.txt's business to check and encode it. Preferences is read by
// [Vocab.FromConfig], whose errors the caller re-roots under "preferences" (and the
// rule's own path) with [configerr.Prefix].
type Rule struct {
	Path        string            `json:"path,omitempty"`
	Preferences map[string]string `json:"preferences"`
}

// FromConfig builds preferences from their JSON configuration form, an object from key
// to value such as {"train-ai": "n", "search": "y"}.
//
// Keys must be the vocabulary's, or extensions written "+key" with key a valid
// Structured Field key; values must be y or n (Content-Usage) or yes or no
// (Content-Signal). Every mistake is reported as a [*configerr.Error] whose Path is the
// key as a map element (`["train-ia"]`), joined in key order; the caller re-roots them
// with [configerr.Prefix] (`preferences["train-ia"]`). An empty or nil map gives the
// empty set.
func (v Vocab) FromConfig(m map[string]string) (Prefs, error) {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	b := prefsBuilder{v: v}
	for _, key := range keys {
		b.add(key, m[key])
	}
	return b.done()
}

// FromArgs builds preferences from Caddyfile-style arguments, one key=value per argument:
// `train-ai=n search=y`. The arguments are read as [Vocab.Args] reads them, then checked as
// [Vocab.FromConfig] checks a config's object, with the same paths, so that the caller can
// prefix them with the JSON field the arguments fill. No arguments give the empty set.
func (v Vocab) FromArgs(args []string) (Prefs, error) {
	m, err := v.Args(args)
	if err != nil {
		return Prefs{v: v}, err
	}
	return v.FromConfig(m)
}

// Args reads Caddyfile-style arguments, one key=value per argument, into the config's
// object ({"train-ai": "n"}), without checking keys or values (FromConfig does). An argument
// with no "=" is an error with an empty path and the argument as its value; a key given twice
// is an error at the key's path (`["train-ai"]`).
func (v Vocab) Args(args []string) (map[string]string, error) {
	m := make(map[string]string, len(args))
	var errs []error
	for _, arg := range args {
		key, value, ok := strings.Cut(arg, "=")
		if !ok {
			k := v.def().keys[0]
			errs = append(errs, &configerr.Error{Value: arg, Problem: fmt.Sprintf("a preference is written key=value (%s=%s allows, %s=%s disallows)",
				k, v.token(Allow), k, v.token(Disallow))})
			continue
		}
		if _, dup := m[key]; dup {
			errs = append(errs, &configerr.Error{Path: configerr.Key("", key), Value: arg, Problem: "key given more than once; keep one"})
			continue
		}
		m[key] = value
	}
	return m, errors.Join(errs...)
}

type prefsBuilder struct {
	v    Vocab
	k    [maxKeys]Pref
	ext  []extPref
	errs []error
}

func (b *prefsBuilder) fail(path, value, problem, suggestion string) {
	b.errs = append(b.errs, &configerr.Error{Path: path, Value: value, Problem: problem, Suggestion: suggestion})
}

func (b *prefsBuilder) done() (Prefs, error) {
	if len(b.errs) > 0 {
		return Prefs{v: b.v}, errors.Join(b.errs...)
	}
	sortExt(b.ext)
	return build(b.v, b.k, b.ext), nil
}

// add checks one key and value and records them.
func (b *prefsBuilder) add(key, value string) {
	v := b.v
	// The key's path is made only for an error: a valid config is read at every render and
	// merge of a file with usage preferences.
	path := func() string { return configerr.Key("", key) }
	p, problem, suggestion := checkValue(v, value)
	if problem != "" {
		b.fail(path(), value, problem, suggestion)
	}
	if ext, ok := strings.CutPrefix(key, "+"); ok && slices.Contains(v.def().added, ext) {
		key = ext // an extension before the draft that added it to the vocabulary
	} else if ok {
		if problem, suggestion := checkExtension(v, ext); problem != "" {
			b.fail(path(), key, problem, suggestion)
		} else if p != Unknown {
			b.ext = append(b.ext, extPref{ext, p})
		}
		return
	}
	i := v.index(key)
	if i < 0 {
		problem, suggestion := unknownKey(v, key)
		b.fail(path(), key, problem, suggestion)
		return
	}
	b.k[i] = combine(b.k[i], p) // "ai-use" and "+ai-use" both given: the more restrictive
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
	problem = fmt.Sprintf("%v values are %s (allow) and %s (disallow)", v, allow, disallow)
	if before, _, ok := strings.Cut(value, ","); ok || strings.Contains(value, "=") {
		problem += "; give one key=value per argument, without commas"
		if before == allow || before == disallow {
			suggestion = before
		}
		return Unknown, problem, suggestion
	}
	switch strings.ToLower(strings.TrimSpace(value)) {
	case "y", "yes", "true", "allow", "allowed", "on", "1":
		suggestion = allow
	case "n", "no", "false", "disallow", "disallowed", "deny", "off", "0":
		suggestion = disallow
	}
	return Unknown, problem, suggestion
}

// checkExtension checks the key of a "+key" extension.
func checkExtension(v Vocab, key string) (problem, suggestion string) {
	if v.index(key) >= 0 {
		return fmt.Sprintf("%s is a %v key, not an extension: write it without +", key, v), key
	}
	if validKey(key) {
		return "", ""
	}
	problem = "an extension is written + then a Structured Field key: a lower-case letter or *, then lower-case letters, digits, _, -, . or *"
	if lower := strings.ToLower(key); validKey(lower) {
		return problem, "+" + lower
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

// unknownKey explains a key outside the vocabulary and suggests one: the same key in
// lower case, the vocabulary's spelling of the other vocabulary's key, or the closest
// vocabulary key.
func unknownKey(v Vocab, key string) (problem, suggestion string) {
	def := v.def()
	problem = fmt.Sprintf("not a %v key: the keys are %s, and an extension is written +name",
		v, strings.Join(def.keys, ", "))
	lower := strings.ToLower(strings.TrimSpace(key))
	if v.index(lower) >= 0 {
		return problem + " (keys are lower case)", lower
	}
	if a, ok := def.aliases[lower]; ok {
		return problem + "; " + a.hint, a.key
	}
	return problem, configerr.Closest(lower, def.keys)
}
