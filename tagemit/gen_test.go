package tagemit

import (
	"math/rand"
	"strconv"
	"time"
)

// randomToken returns a random RFC 9309 product token (mixed case, sometimes with a
// leading '-' or '_') or "*".
func randomToken(r *rand.Rand) string {
	if r.Intn(4) == 0 {
		return "*"
	}
	const first = "abcXYZ-_"
	const rest = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_"
	for {
		b := []byte{first[r.Intn(len(first))]}
		for n := r.Intn(12); n > 0; n-- {
			b = append(b, rest[r.Intn(len(rest))])
		}
		if _, problem, _ := checkToken(string(b)); problem == "" {
			return string(b)
		}
	}
}

var flagNames = []string{"noindex", "nosnippet", "nofollow", "none", "noarchive", "nocache", "noimageindex", "notranslate", "indexifembedded"}

// randomRule returns a random valid rule string in one of the accepted spellings.
func randomRule(r *rand.Rand) string {
	name, value := "", ""
	switch r.Intn(6) {
	case 0, 1:
		name = flagNames[r.Intn(len(flagNames))]
	case 2:
		name, value = "max-snippet", strconv.Itoa(r.Intn(400)-1)
	case 3:
		name, value = "max-video-preview", strconv.Itoa(r.Intn(400)-1)
	case 4:
		name, value = "max-image-preview", []string{"none", "standard", "LARGE"}[r.Intn(3)]
	case 5:
		t := time.Unix(r.Int63n(4e9), 0).UTC()
		layouts := []string{time.RFC3339, time.RFC1123, time.RFC850, "2006-01-02"}
		name, value = "unavailable_after", t.Format(layouts[r.Intn(len(layouts))])
	}
	if r.Intn(3) == 0 {
		b := []byte(name)
		for i := range b {
			if r.Intn(2) == 0 && 'a' <= b[i] && b[i] <= 'z' {
				b[i] -= 'a' - 'A'
			}
		}
		name = string(b)
	}
	if value == "" {
		return name
	}
	if r.Intn(2) == 0 {
		return name + "=" + value
	}
	return name + ": " + value
}

func randomRules(r *rand.Rand) map[string][]string {
	m := map[string][]string{}
	for n := r.Intn(5); n > 0; n-- {
		tok := randomToken(r)
		for k := 1 + r.Intn(5); k > 0; k-- {
			m[tok] = append(m[tok], randomRule(r))
		}
	}
	return m
}

func randomPolicy(r *rand.Rand) Policy {
	p, err := NewPolicy(randomRules(r))
	if err != nil {
		panic(err)
	}
	return p
}
