// Package docs finds, in the project's Markdown documentation (README.md and this
// directory), the fenced code blocks that tests check against the code: the Caddyfile syntax
// summary, configs whose served robots.txt a page shows, the output of the check and lint
// commands, the example Go program. The documentation cannot then show a config, a file or
// an output that the code does not produce.
//
// A test finds its block by a marker, an HTML comment on the line right before the opening
// fence, which renders as nothing:
//
//	<!-- test: syntax-summary -->
//	```caddyfile
//	robots_txt [<matcher>] {
//	...
//	```
//
// and asks for it by name:
//
//	src, err := os.ReadFile("../README.md")
//	...
//	summary, err := docs.Marked(src, "syntax-summary", "caddyfile")
//
// A block no test runs says why, in a comment of the same place:
//
//	<!-- not tested: the release build needs a tag -->
//
// (Block.Untested); docs.TestEveryBlockAccountedFor fails on a block of README.md or this
// directory that has neither a marker nor a reason, unless it is a Caddyfile, which every
// one is adapted, loaded and linted (caddymodule's TestREADMECaddyfiles).
//
// A missing marker, one used twice, or one not followed by a fenced block of the expected
// kind is an error that says so, never an empty block. Blocks lists every fenced block of a
// file, with its marker if it has one, for the tests that check every block of a kind.
//
// A fence is a line that starts with three or more backticks, unindented (the only form this
// project's Markdown uses); a block ends at a line of at least as many backticks and nothing
// else.
package docs

import (
	"fmt"
	"regexp"
	"strings"
)

// Block is a fenced code block of a Markdown file.
type Block struct {
	// Info is the info string after the opening fence ("caddyfile", "json", "console"); ""
	// for a plain block.
	Info string
	// Text is the block's content: the lines between the fences, each ending in "\n".
	Text string
	// Line is the line of the opening fence, counting from 1.
	Line int
	// Marker is the name of the test marker right before the block, "" if it has none.
	Marker string
	// Untested is the reason of a <!-- not tested: reason --> comment right before the
	// block, "" if it has none.
	Untested string
}

// markerRE matches a marker line; the name is letters, digits and "-".
var markerRE = regexp.MustCompile(`^<!-- test: ([a-z0-9][a-z0-9-]*) -->$`)

// untestedRE matches the comment of a block no test runs, with its reason.
var untestedRE = regexp.MustCompile(`^<!-- not tested: (\S.*?) -->$`)

// Blocks returns every fenced block of src, a Markdown file, in order. It is an error for
// a block not to be closed, or for a marker not to be followed by a block on the next line.
func Blocks(src []byte) ([]Block, error) {
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	var blocks []Block
	marker, markerLine, untested := "", 0, ""
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if marker != "" && !strings.HasPrefix(line, "```") {
			return nil, fmt.Errorf("line %d: the marker %q is not followed by a fenced block (the next line is %q)", markerLine, marker, line)
		}
		if untested != "" && !strings.HasPrefix(line, "```") {
			return nil, fmt.Errorf("line %d: <!-- not tested: ... --> is not followed by a fenced block (the next line is %q)", i, line)
		}
		if m := markerRE.FindStringSubmatch(line); m != nil {
			marker, markerLine = m[1], i+1
			continue
		}
		if m := untestedRE.FindStringSubmatch(line); m != nil {
			untested = m[1]
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(line), "<!-- test:") {
			return nil, fmt.Errorf("line %d: %q is not a marker: write <!-- test: name --> on a line of its own, the name in lower case, digits and -", i+1, line)
		}
		if !strings.HasPrefix(line, "```") {
			continue
		}
		fence := line[:len(line)-len(strings.TrimLeft(line, "`"))]
		b := Block{Info: strings.TrimSpace(line[len(fence):]), Line: i + 1, Marker: marker, Untested: untested}
		marker, untested = "", ""
		var text strings.Builder
		closed := false
		for i++; i < len(lines); i++ {
			l := strings.TrimRight(lines[i], " \t")
			if strings.HasPrefix(l, fence) && strings.Trim(l, "`") == "" {
				closed = true
				break
			}
			text.WriteString(lines[i])
			text.WriteByte('\n')
		}
		if !closed {
			return nil, fmt.Errorf("line %d: the fenced block is not closed", b.Line)
		}
		b.Text = text.String()
		blocks = append(blocks, b)
	}
	if marker != "" {
		return nil, fmt.Errorf("line %d: the marker %q is not followed by a fenced block (the file ends)", markerLine, marker)
	}
	return blocks, nil
}

// Marked returns the text of the fenced block after the marker <!-- test: name --> in src,
// a Markdown file. The marker must occur exactly once, and the block's info string must be
// info ("" for a plain block).
func Marked(src []byte, name, info string) (string, error) {
	blocks, err := Blocks(src)
	if err != nil {
		return "", err
	}
	var found []Block
	for _, b := range blocks {
		if b.Marker == name {
			found = append(found, b)
		}
	}
	switch {
	case len(found) == 0:
		return "", fmt.Errorf("no marker <!-- test: %s --> before a fenced block", name)
	case len(found) > 1:
		return "", fmt.Errorf("the marker %q is used %d times (lines %d and %d)", name, len(found), found[0].Line-1, found[1].Line-1)
	case found[0].Info != info:
		return "", fmt.Errorf("line %d: the marker %q is followed by a block with info string %q, want %q", found[0].Line-1, name, found[0].Info, info)
	}
	return found[0].Text, nil
}
