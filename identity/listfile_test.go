package identity_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/identity"
)

const googleList = "https://developers.google.com/static/search/apis/ipranges/googlebot.json"

// entryPath is the JSON path an error names ("entry $.prefixes[3].ipv4Prefix: ...").
var entryPath = regexp.MustCompile(`entry \$(.*?): ("|selector)`)

// TestListErrorsNameTheEntry: a list with one bad entry among good ones, in the shapes of
// the catalogue's selectors (members by name, a member list, a filter, every member), is
// refused with the JSON path of that entry, which resolves in the document to the bad value;
// in a text list, with its line. Generated over many documents and positions.
func TestListErrorsNameTheEntry(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 32))
	good := func() string { return fmt.Sprintf("66.%d.%d.0/24", rnd.IntN(256), rnd.IntN(256)) }
	bads := []any{"not-an-ip", "0.0.0.0/0", "::/0", "10.0.0.0/7", "1.2.3.4/33", "fe80::1%eth0", 7, true, nil, map[string]any{"x": 1}, []any{"1.2.3.0/24"}}
	for round := range 300 {
		n := 1 + rnd.IntN(8)
		at := rnd.IntN(n)
		bad := bads[rnd.IntN(len(bads))]
		var doc any
		var selector string
		switch round % 4 {
		case 0: // Google's shape
			selector = `$.prefixes[*]["ipv6Prefix","ipv4Prefix"]`
			var ps []any
			for i := range n {
				v := any(good())
				if i == at {
					v = bad
				}
				key := "ipv4Prefix"
				if rnd.IntN(2) == 0 {
					key = "ipv6Prefix"
					if i != at {
						v = fmt.Sprintf("2001:db8:%x::/48", rnd.IntN(65536))
					}
				}
				ps = append(ps, map[string]any{key: v})
			}
			doc = map[string]any{"creationTime": "x", "prefixes": ps}
		case 1: // AWS's shape: a filter
			selector = `$.prefixes[?(@.service=="ROUTE53_HEALTHCHECKS")].ip_prefix`
			var ps []any
			for i := range n {
				ps = append(ps, map[string]any{"service": "EC2", "ip_prefix": "not looked at"})
				v := any(good())
				if i == at {
					v = bad
				}
				ps = append(ps, map[string]any{"service": "ROUTE53_HEALTHCHECKS", "ip_prefix": v})
			}
			doc = map[string]any{"prefixes": ps}
		case 2: // every member of every member, names that are not words
			selector = `$.*[*]`
			m := map[string]any{}
			for i := range n {
				v := any(good())
				if i == at {
					v = bad
				}
				m[fmt.Sprintf("region %d-é", i)] = []any{good(), v}
			}
			doc = m
		default: // an array of strings
			selector = `$[*]`
			var ps []any
			for i := range n {
				v := any(good())
				if i == at {
					v = bad
				}
				ps = append(ps, v)
			}
			doc = ps
		}
		body, _ := json.Marshal(doc)
		_, err := identity.ParsePrefixes("json", selector, body)
		if err == nil {
			t.Fatalf("%s accepted %s", selector, body)
		}
		m := entryPath.FindStringSubmatch(err.Error())
		if m == nil {
			t.Fatalf("%s on %s: error %q names no entry", selector, body, err)
		}
		var decoded any
		_ = json.Unmarshal(body, &decoded)
		got, rerr := configerr.Resolve(decoded, strings.TrimPrefix(m[1], "."))
		if rerr != nil {
			t.Fatalf("error %q: path %s does not resolve in %s: %v", err, m[1], body, rerr)
		}
		gotJSON, _ := json.Marshal(got)
		wantJSON, _ := json.Marshal(bad)
		if string(gotJSON) != string(wantJSON) {
			t.Errorf("error %q names %s, which holds %s; the bad entry is %s in %s", err, m[1], gotJSON, wantJSON, body)
		}
		if s, ok := bad.(string); ok && !strings.Contains(err.Error(), fmt.Sprintf("%q", s)) {
			t.Errorf("error %q does not show the value %q", err, s)
		}
	}
	// A text list: the line.
	for range 50 {
		var lines []string
		n := 1 + rnd.IntN(10)
		at := rnd.IntN(n)
		for i := range n {
			switch {
			case i == at:
				lines = append(lines, "bogus")
			case rnd.IntN(3) == 0:
				lines = append(lines, "# comment", "")
			}
			if i != at {
				lines = append(lines, good())
			}
		}
		line := 0
		for i, l := range lines {
			if l == "bogus" {
				line = i + 1
			}
		}
		_, err := identity.ParsePrefixes("text", "", []byte(strings.Join(lines, "\n")))
		if want := fmt.Sprintf(`line %d: "bogus" is neither`, line); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("text list %q: %v, want %q", lines, err, want)
		}
	}
}

// TestCheckListFile: a file named for a list is read as the list would be, and every way it
// can be wrong is an error naming what is wrong in it; a good one passes.
func TestCheckListFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"prefixes":[{"ipv4Prefix":"66.249.64.0/27"},{"ipv6Prefix":"2001:4860:4801:10::/64"}]}`)
	if err := identity.CheckListFile(googleList, good, 0); err != nil {
		t.Errorf("a good list: %v", err)
	}
	if err := identity.CheckListFile(googleList, "../identity/testdata/googlebot.json", 0); err != nil {
		t.Errorf("Google's list: %v", err)
	}
	for _, c := range []struct{ url, file, want string }{
		{googleList, write("html.json", "<html>"), "not a JSON document"},
		{googleList, write("entry.json", `{"prefixes":[{"ipv4Prefix":"66.249.64.0/27"},{"ipv4Prefix":"66.249.64.300/27"}]}`), `entry $.prefixes[1].ipv4Prefix: "66.249.64.300/27" is neither`},
		{googleList, write("shape.json", `{"prefixes":{"ipv4Prefix":"66.249.64.0/27"}}`), "the list holds no prefix"},
		{googleList, write("empty.json", `{"prefixes":[]}`), "the list holds no prefix"},
		{googleList, write("number.json", `{"prefixes":[{"ipv4Prefix":42}]}`), `entry $.prefixes[0].ipv4Prefix: selector`},
		{googleList, write("short.json", `{"prefixes":[{"ipv4Prefix":"0.0.0.0/0"}]}`), `entry $.prefixes[0].ipv4Prefix: "0.0.0.0/0" is shorter than /8`},
		{googleList, filepath.Join(dir, "missing.json"), "no such file"},
		{"https://example.com/list.json", good, "names no list at this URL"},
		{"https://my.pingdom.com/probes/ipv4", write("pingdom.txt", "1.2.3.4\n\nnope\n"), `line 3: "nope"`},
	} {
		err := identity.CheckListFile(c.url, c.file, 0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckListFile(%s, %s) = %v, want %q", c.url, filepath.Base(c.file), err, c.want)
		}
	}
	if err := identity.CheckListFile(googleList, good, 10); err == nil || !strings.Contains(err.Error(), "larger than 10 bytes") {
		t.Errorf("a list over max size: %v", err)
	}
}
