package docs_test

import (
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/docs"
)

const page = "# Title\n\n" +
	"<!-- test: config -->\n```caddyfile\nrobots_txt {\n}\n```\n\n" +
	"serves\n\n" +
	"<!-- test: served -->\n```\nUser-agent: *\n\n```\n\n" +
	"```json\n{}\n```\n" +
	"<!-- test: long-fence -->\n````md\n```go\nx\n```\n````\n" +
	"<!-- not tested: needs a release tag -->\n```sh\nxcaddy build\n```\n"

func TestMarked(t *testing.T) {
	for _, c := range []struct{ name, info, want string }{
		{"config", "caddyfile", "robots_txt {\n}\n"},
		{"served", "", "User-agent: *\n\n"},
		{"long-fence", "md", "```go\nx\n```\n"},
	} {
		got, err := docs.Marked([]byte(page), c.name, c.info)
		if err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	// Windows line ends read as the same blocks.
	if got, err := docs.Marked([]byte(strings.ReplaceAll(page, "\n", "\r\n")), "config", "caddyfile"); err != nil || got != "robots_txt {\n}\n" {
		t.Errorf("CRLF: %q, %v", got, err)
	}
}

func TestMarkedErrors(t *testing.T) {
	for _, c := range []struct{ what, src, name, info, want string }{
		{"missing", page, "nothing", "", `no marker <!-- test: nothing -->`},
		{"wrong info", page, "config", "json", `line 3: the marker "config" is followed by a block with info string "caddyfile", want "json"`},
		{"prose after the marker", "<!-- test: a -->\nsome text\n```\nx\n```\n", "a", "", `line 1: the marker "a" is not followed by a fenced block (the next line is "some text")`},
		{"blank line after the marker", "<!-- test: a -->\n\n```\nx\n```\n", "a", "", `line 1: the marker "a" is not followed by a fenced block (the next line is "")`},
		{"marker at the end", "text\n<!-- test: a -->", "a", "", `line 2: the marker "a" is not followed by a fenced block (the file ends)`},
		{"two markers", "<!-- test: a -->\n```\nx\n```\n<!-- test: a -->\n```\ny\n```\n", "a", "", `the marker "a" is used 2 times (lines 1 and 5)`},
		{"unclosed", "<!-- test: a -->\n```\nx\n", "a", "", `line 2: the fenced block is not closed`},
		{"shorter closing fence", "<!-- test: a -->\n````\nx\n```\n", "a", "", `line 2: the fenced block is not closed`},
		{"reason then prose", "<!-- not tested: why -->\ntext\n```\nx\n```\n", "a", "", `line 1: <!-- not tested: ... --> is not followed by a fenced block (the next line is "text")`},
		{"malformed marker", "<!-- test: A b -->\n```\nx\n```\n", "a", "", `line 1: "<!-- test: A b -->" is not a marker`},
	} {
		got, err := docs.Marked([]byte(c.src), c.name, c.info)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %q, %v; want an error with %q", c.what, got, err, c.want)
		}
	}
}

func TestBlocks(t *testing.T) {
	blocks, err := docs.Blocks([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	want := []docs.Block{
		{Info: "caddyfile", Text: "robots_txt {\n}\n", Line: 4, Marker: "config"},
		{Info: "", Text: "User-agent: *\n\n", Line: 12, Marker: "served"},
		{Info: "json", Text: "{}\n", Line: 17},
		{Info: "md", Text: "```go\nx\n```\n", Line: 21, Marker: "long-fence"},
		{Info: "sh", Text: "xcaddy build\n", Line: 27, Untested: "needs a release tag"},
	}
	if len(blocks) != len(want) {
		t.Fatalf("%d blocks: %+v", len(blocks), blocks)
	}
	for i := range want {
		if blocks[i] != want[i] {
			t.Errorf("block %d: %+v, want %+v", i, blocks[i], want[i])
		}
	}
}
