package robotsgen

import (
	"bytes"
)

// Text is a robots.txt as a crawler reads it: the bytes, the File they were read as (ReadText)
// or rendered from (File.RenderText), and the line of each group and rule of that File in the
// bytes, recorded as they were read or written. It is the one place that knows "the line of a
// rule in the served file", for `robots check` and for the log of a crawler that fetched a
// disallowed path: its Matcher's decisions carry the line of their rule. It is safe for
// concurrent reads.
type Text struct {
	body []byte
	// File is the file of the text, and Diagnostics what Parse skipped or changed reading it
	// (none for a rendered text).
	File        *File
	Diagnostics []Diagnostic
	// Matcher decides over File; its decisions carry their rule's line (Decision.Line).
	Matcher *Matcher
	lines   fileLines
	ends    []int // ends[k-1] is the offset just past line k and its line break
}

// fileLines is where each group and rule of a File is written in a text (1-based lines).
type fileLines struct {
	groups []int   // groups[g]: group g's first header line
	rules  [][]int // rules[g][i]: rule i of group g
}

// ReadText parses body (see Parse), recording the line each group and rule is read from.
func ReadText(body []byte) *Text {
	p := parse(body)
	t := &Text{body: body, File: p.f, Diagnostics: p.diags, lines: p.lines}
	t.index()
	return t
}

// RenderText is Render, with the line each group and rule is written to. Its File is f with
// presets written out (Expand(false)), the file rendered: group g of f is group g there.
func (f *File) RenderText(origin string) (*Text, error) {
	var lines fileLines
	body, ef, err := f.render(origin, &lines)
	if err != nil {
		return nil, err
	}
	t := &Text{body: body, File: ef, lines: lines}
	t.index()
	return t, nil
}

// index makes the matcher and indexes the lines of the text.
func (t *Text) index() {
	t.Matcher = newMatcher(t.File, &t.lines)
	// Lines end at LF, CRLF or CR, as Parse splits them.
	body := t.body
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '\n':
			t.ends = append(t.ends, i+1)
		case '\r':
			if i+1 < len(body) && body[i+1] == '\n' {
				i++
			}
			t.ends = append(t.ends, i+1)
		}
	}
	if n := len(body); n > 0 && (len(t.ends) == 0 || t.ends[len(t.ends)-1] != n) {
		t.ends = append(t.ends, n)
	}
}

// Bytes returns the text (not to be modified).
func (t *Text) Bytes() []byte { return t.body }

// RuleLine returns the line (1-based) of rule i of group g of File, 0 if there is none.
func (t *Text) RuleLine(g, i int) int {
	return t.lines.rule(g, i)
}

// GroupLine returns the line of the first header line of group g of File, 0 if there is none.
func (t *Text) GroupLine(g int) int {
	if g < 0 || g >= len(t.lines.groups) {
		return 0
	}
	return t.lines.groups[g]
}

func (l *fileLines) rule(g, i int) int {
	if l == nil || g < 0 || g >= len(l.rules) || i < 0 || i >= len(l.rules[g]) {
		return 0
	}
	return l.rules[g][i]
}

// LineText returns line k without its line break, "" if there is no line k.
func (t *Text) LineText(k int) string {
	if k < 1 || k > len(t.ends) {
		return ""
	}
	start := 0
	if k > 1 {
		start = t.ends[k-2]
	}
	return string(bytes.TrimRight(t.body[start:t.ends[k-1]], "\r\n"))
}
