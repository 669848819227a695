package robotsgen

import (
	"strings"
	"testing"
)

// keyOf is a line as its key is matched: without a byte order mark and surrounding space,
// lower case.
func keyOf(line string) string {
	return strings.ToLower(strings.TrimSpace(strings.TrimPrefix(line, "\ufeff")))
}

// FuzzTextLines: for any bytes, every rule of the parsed file is found at a line that is an
// allow or disallow line, every group at a user-agent or purpose line, later rules of a
// group at later lines; DecidingRule finds each rule Decide can choose at its own line.
func FuzzTextLines(f *testing.F) {
	f.Add([]byte("User-agent: *\nDisallow: /a\n\n# c\nUser-agent: B\r\nAllow: /b\rDisallow: /\n"))
	f.Add([]byte("user-agent: a\nuser-agent: b\ndisallow: /x\nsitemap: https://e/s\nallow: /x/y"))
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 4096 {
			return
		}
		txt := ReadText(body)
		for g, grp := range txt.File.Groups {
			gl := keyOf(txt.LineText(txt.GroupLine(g)))
			if !strings.HasPrefix(gl, "user") { // user-agent, useragent, user agent, user-agent-purpose
				t.Fatalf("group %d at line %q", g, gl)
			}
			prev := 0
			for i, r := range grp.Rules {
				k := txt.RuleLine(g, i)
				line := keyOf(txt.LineText(k))
				if want := map[RuleType]string{Allow: "allow", Disallow: "di"}[r.Type]; !strings.HasPrefix(line, want) { // disallow and its misspellings
					t.Fatalf("rule %d of group %d (%s) at line %d %q", i, g, r.Type, k, line)
				}
				if k <= prev {
					t.Fatalf("rule %d of group %d at line %d, not after %d", i, g, k, prev)
				}
				prev = k
				sel := []int{g}
				if gx, ix, lk, ok := txt.DecidingRule(sel, r); !ok || gx != g || txt.File.Groups[gx].Rules[ix] != r || lk > k {
					t.Fatalf("DecidingRule(%d, %v) = %d %d %d %v", g, r, gx, ix, lk, ok)
				}
			}
		}
	})
}
