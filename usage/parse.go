package usage

import (
	"fmt"
	"strings"

	"github.com/dunglas/httpsfv"
)

// Parse reads a received value (a backend's Content-Usage header, the preference part of
// a robots.txt line) exactly as the vocabulary's processing algorithm does. The value is
// parsed as a Structured Field Dictionary with httpsfv. For each vocabulary key, the
// Token y (yes) is [Allow], n (no) is [Disallow], and anything else — an absent key, a
// Boolean (a key with no value), a String, a number, an Inner List, another Token — is
// [Unknown]. A repeated key keeps its last value; parameters and keys outside the
// vocabulary are ignored.
//
// If the value is not a valid Dictionary (keys are case-sensitive, so an upper-case key
// is enough), every preference is unknown: Parse returns the empty set and an error that
// says why, for logging. The empty string is the empty set, without error.
func (v Vocab) Parse(value string) (Prefs, error) {
	return v.parse([]string{value})
}

// parse reads the field lines of one field, joined as RFC 9651 says.
func (v Vocab) parse(lines []string) (Prefs, error) {
	d, err := httpsfv.UnmarshalDictionary(lines)
	if err != nil {
		return Prefs{v: v}, &parseError{v: v, value: strings.Join(lines, ", "), err: err}
	}
	def := v.def()
	var k [maxKeys]Pref
	for i, key := range def.keys {
		m, ok := d.Get(key)
		if !ok {
			continue
		}
		item, ok := m.(httpsfv.Item)
		if !ok {
			continue
		}
		k[i] = def.pref(item)
	}
	return build(v, k, nil), nil
}

// pref reads one member's value: the vocabulary's Token for allow or disallow, or Unknown.
func (def *vocabDef) pref(item httpsfv.Item) Pref {
	switch t, _ := item.Value.(httpsfv.Token); string(t) {
	case def.allow:
		return Allow
	case def.disallow:
		return Disallow
	}
	return Unknown
}

// parseError reports a value that is not a Structured Field Dictionary.
type parseError struct {
	v     Vocab
	value string
	err   error
}

func (e *parseError) Error() string {
	const limit = 200
	v := e.value
	if len(v) > limit {
		v = v[:limit] + "..."
	}
	return fmt.Sprintf("%v value %q is not a Structured Field Dictionary (%v), so every preference in it is unknown", e.v, v, e.err)
}

func (e *parseError) Unwrap() error { return e.err }

// ParseLine splits the value of a robots.txt Content-Usage or Content-Signal line, the
// `[path SP] dictionary` form of draft-ietf-aipref-attach, and parses the dictionary with
// [Vocab.Parse].
//
// The value ends at the first "#", CR or LF; surrounding spaces and tabs are dropped. If
// it then starts with "/", the path is everything up to the first space or tab, returned
// raw (checking and percent-encoding it is the caller's job); otherwise the path is ""
// (the rule applies to "/") and all of the value is preference. A dictionary that does
// not parse gives the empty set and an error, with the path still returned: per the
// vocabulary, such a rule's preferences are all unknown.
func (v Vocab) ParseLine(value string) (path string, p Prefs, err error) {
	if i := strings.IndexAny(value, "#\r\n"); i >= 0 {
		value = value[:i]
	}
	value = strings.Trim(value, " \t")
	if strings.HasPrefix(value, "/") {
		i := strings.IndexAny(value, " \t")
		if i < 0 {
			return value, Prefs{v: v}, nil
		}
		path, value = value[:i], strings.TrimLeft(value[i:], " \t")
	}
	p, err = v.Parse(value)
	return path, p, err
}

// FormatLine returns the value of a robots.txt line for p, the inverse of
// [Vocab.ParseLine]: "path dictionary", or the dictionary alone when path is "". The path
// must already be in robots.txt form (starting with "/", with no space, tab or "#");
// FormatLine does not check it. For an empty p the value is the path alone, a rule that
// makes every preference unknown under that path.
func FormatLine(path string, p Prefs) string {
	switch {
	case path == "":
		return p.String()
	case p.IsEmpty():
		return path
	}
	return path + " " + p.String()
}
