// Package gen turns robots.json of the ai.robots.txt project into the Go
// table of package crawlers. It is a library, not the command, so that a test
// of package crawlers can run it in-process and compare its output with the
// committed catalog_gen.go byte for byte.
//
// It imports nothing from package crawlers: the generator must still build
// when the generated file is missing or broken.
package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/format"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Entry is what the generator keeps of one robots.json entry: facts only, no
// description or frequency.
type Entry struct {
	Name       string   // the key: a user-agent name
	Operator   string   // the operator's name (OperatorName); "" when unknown
	Categories []string // from Functions, in the order ai-assistants, ai-search, ai-training
	Respect    string   // "yes", "no" or "unknown"
	Class      string   // "product", "digits" or "uaonly"
}

// raw holds the fields the generator reads; others (description, frequency,
// has_name_and_version, any added upstream) are ignored. Pointers tell a
// missing field from an empty one.
type raw struct {
	Operator *string `json:"operator"`
	Respect  *string `json:"respect"`
	Function *string `json:"function"`
}

// Parse reads robots.json. It fails, naming them, on duplicate keys (which
// encoding/json would silently merge), on entries without operator, respect
// or function, on names the user-agent matcher cannot take, on operator
// values missing from Operators, and on function strings missing from
// Functions (all of them at once, so one review pass covers a whole update). Entries are sorted case-insensitively by name, so
// the output does not depend on the order of the upstream file.
func Parse(data []byte) ([]Entry, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("robots.json: want a JSON object of entries keyed by user-agent name (%v)", err)
	}
	seen := map[string]bool{}
	var entries []Entry
	var errs []error
	unmapped := map[string][]string{} // function string -> names using it
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("robots.json: %w", err)
		}
		name := t.(string) // object keys are always strings
		var r raw
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("robots.json: entry %q: %w", name, err)
		}
		if seen[name] {
			errs = append(errs, fmt.Errorf("entry %q: duplicate key", name))
			continue
		}
		seen[name] = true
		if err := checkName(name); err != nil {
			errs = append(errs, err)
			continue
		}
		if r.Operator == nil || r.Respect == nil || r.Function == nil {
			errs = append(errs, fmt.Errorf("entry %q: needs operator, respect and function", name))
			continue
		}
		operator, opErr := OperatorName(*r.Operator)
		if opErr != nil {
			errs = append(errs, fmt.Errorf("entry %q: %w", name, opErr))
		}
		cats, ok := Functions[*r.Function]
		if !ok {
			unmapped[*r.Function] = append(unmapped[*r.Function], name)
			continue
		}
		if opErr != nil {
			continue
		}
		entries = append(entries, Entry{
			Name:       name,
			Operator:   operator,
			Categories: sortCategories(cats),
			Respect:    ParseRespect(*r.Respect),
			Class:      Classify(name),
		})
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, fmt.Errorf("robots.json: unterminated object (%v)", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("robots.json: data after the object")
	}
	for _, f := range slices.Sorted(maps.Keys(unmapped)) {
		errs = append(errs, fmt.Errorf("function %q (used by %s) has no mapping: review it and add it to Functions in crawlers/internal/gen/functions.go",
			f, strings.Join(unmapped[f], ", ")))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	slices.SortFunc(entries, func(a, b Entry) int {
		if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return entries, nil
}

func sortCategories(cats []string) []string {
	out := make([]string, 0, len(cats))
	for _, c := range []string{assistants, search, training} {
		if slices.Contains(cats, c) {
			out = append(out, c)
		}
	}
	return out
}

func isWord(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '-' || b == '_'
}

// checkName enforces what package crawlers' UAMatcher accepts (printable
// ASCII, starting and ending with a letter, digit, '-' or '_'), so that a
// matcher over the whole catalogue can always be built.
func checkName(name string) error {
	if name == "" {
		return errors.New("empty user-agent name")
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] > 0x7e {
			return fmt.Errorf("entry %q: name is not printable ASCII", name)
		}
	}
	if !isWord(name[0]) || !isWord(name[len(name)-1]) {
		return fmt.Errorf("entry %q: name must start and end with a letter, digit, '-' or '_'", name)
	}
	return nil
}

// Classify returns the token class of a name: "product" for an RFC 9309
// product token (letters, '-', '_'), "digits" for one word that also has
// digits, "uaonly" for anything else (spaces, '/', '.'...). It mirrors
// crawlers.Classify.
func Classify(name string) string {
	class := "product"
	for i := 0; i < len(name); i++ {
		b := name[i]
		switch {
		case '0' <= b && b <= '9':
			class = "digits"
		case !isWord(b):
			return "uaonly"
		}
	}
	if name == "" {
		return "uaonly"
	}
	return class
}

// ParseRespect reads the free-text respect field: a leading "Yes" or
// "[Yes](url)" is "yes", a leading "No" or "[No](url)" is "no" (a whole word:
// "Not documented" is not "no"), anything else "unknown".
func ParseRespect(s string) string {
	s = strings.TrimSpace(s)
	for _, w := range []string{"yes", "no"} {
		if hasPrefixFold(s, "["+w+"]") {
			return w
		}
		if hasPrefixFold(s, w) && (len(s) == len(w) || !isAlnum(s[len(w)])) {
			return w
		}
	}
	return "unknown"
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func isAlnum(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}

var classIdent = map[string]string{"product": "TokenProduct", "digits": "TokenDigits", "uaonly": "TokenUAOnly"}
var respectIdent = map[string]string{"yes": "RespectYes", "no": "RespectNo", "unknown": "RespectUnknown"}
var categoryIdent = map[string]string{assistants: "catAssistants", search: "catSearch", training: "catTraining"}

// Generate returns the gofmt'd Go source of catalog_gen.go for robots.json
// data. license is the MIT licence text of the data, repeated in the header
// as the licence requires; source is the path of the committed copy, named in
// the header. The same inputs always give the same bytes.
func Generate(data, license []byte, source string) ([]byte, error) {
	entries, err := Parse(data)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := header(&b, license, source, "robots.json of the ai.robots.txt project", "https://github.com/ai-robots-txt/ai.robots.txt"); err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, "// catalog holds the %d entries of %s, sorted case-insensitively by name.\n", len(entries), source)
	b.WriteString("var catalog = [...]entry{\n")
	for _, e := range entries {
		cats := "0"
		if len(e.Categories) > 0 {
			ids := make([]string, len(e.Categories))
			for i, c := range e.Categories {
				ids[i] = categoryIdent[c]
			}
			cats = strings.Join(ids, " | ")
		}
		fmt.Fprintf(&b, "\t{name: %s, operator: %s, cats: %s, respects: %s, token: %s},\n",
			strconv.Quote(e.Name), strconv.Quote(e.Operator), cats, respectIdent[e.Respect], classIdent[e.Class])
	}
	b.WriteString("}\n")
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting generated code: %w", err)
	}
	return out, nil
}

// header writes the start of a generated file: the generated-code line naming source, the
// project the data comes from, its MIT licence (which the licence requires to be kept with
// derived tables), and the package clause.
func header(b *bytes.Buffer, license []byte, source, what, url string) error {
	lic := strings.TrimSpace(string(license))
	if !strings.Contains(lic, "Permission is hereby granted") {
		return fmt.Errorf("license: want the MIT licence text of the data (%s)", url)
	}
	fmt.Fprintf(b, "// Code generated by crawlers/internal/gencrawlers from %s. DO NOT EDIT.\n", source)
	fmt.Fprintf(b, "//\n// The table below is derived from %s\n", what)
	fmt.Fprintf(b, "// (%s), used under its licence:\n//\n", url)
	for _, line := range strings.Split(lic, "\n") {
		b.WriteString(strings.TrimRight("// "+line, " ") + "\n")
	}
	b.WriteString("\npackage crawlers\n\n")
	return nil
}
