package gen

import (
	"strings"
	"testing"
)

// The checks that keep a rule from claiming what is not the platform's each stop the
// generator, naming the problem.
func TestParsePlatformsRefuses(t *testing.T) {
	const ok = `{"method": "https://m.example/", "platforms": [{"id": "a", "name": "A", "operators": ["A"], "hosts": [{"names": ["a.example"], "subdomains": true, "product": "P", "source": "https://a.example/"}]}]}`
	if _, err := ParsePlatforms([]byte(ok)); err != nil {
		t.Fatal(err)
	}
	for bad, want := range map[string]string{
		`"a.example"`:                    `"co.uk"`,
		`"subdomains": true`:             `"subdomain": true`,
		`"id": "a"`:                      `"id": "A b"`,
		`"operators": ["A"]`:             `"operators": []`,
		`"source": "https://a.example/"`: `"source": "a.example"`,
		`"names": ["a.example"]`:         `"names": ["a.example", "a.example"]`,
	} {
		in := strings.Replace(ok, bad, want, 1)
		if _, err := ParsePlatforms([]byte(in)); err == nil {
			t.Errorf("%s: accepted", want)
		}
	}
	for _, h := range []string{"Google.com", "com", "github.io", "a..b", "-a.example", "a_b.example"} {
		if checkHost(h) == nil {
			t.Errorf("checkHost(%q) accepted", h)
		}
	}
}
