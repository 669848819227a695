package tdmrep_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/internal/fixture"
	"github.com/sitepolicy/caddy-robots/tdmrep"
)

// The examples of the W3C TDMRep Final Community Group Report (10 May 2024), as the report
// writes them.
const (
	// #sec-tdm-file-example: a rightsholder opting out for every file.
	reportFileAll = `[
  {
  "location": "/",
  "tdm-reservation": 1
  }
]`
	// #sec-tdm-file-example: three groups of files.
	reportFileGroups = `[
  {
  "location": "/directory-a/",
  "tdm-reservation": 1
  },
  {
  "location": "/directory-b/html/",
  "tdm-reservation": 1,
  "tdm-policy":"https://provider.com/policies/policy.json"
  },
  {
  "location": "/directory-b/images/*.jpg",
  "tdm-reservation": 0
  }
]`
	// #sec-tdm-html-meta: an html document associated with a TDM Policy.
	reportHTML = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="tdm-reservation" content="1">
    <meta name="tdm-policy" content="https://provider.com/policies/policy.json">
    <title>Document title</title>
  </head>
  <body>
  </body>
</html>`
	reportPolicy = "https://provider.com/policies/policy.json"
)

// TestFileReportExamples: File writes the report's two tdmrep.json examples (#sec-tdm-file) as the
// same JSON values.
func TestFileReportExamples(t *testing.T) {
	for _, c := range []struct {
		rules []tdmrep.Rule
		want  string
	}{
		{[]tdmrep.Rule{{Location: "/", Reservation: 1}}, reportFileAll},
		{[]tdmrep.Rule{
			{Location: "/directory-a/", Reservation: 1},
			{Location: "/directory-b/html/", Reservation: 1, Policy: reportPolicy},
			{Location: "/directory-b/images/*.jpg", Reservation: 0},
		}, reportFileGroups},
	} {
		var got, want any
		if err := json.Unmarshal(tdmrep.File(c.rules), &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(c.want), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("File = %v, want the report's %v", got, want)
		}
	}
	// "they are mandatory even if you express only one rule": an empty file is an array too.
	if got := strings.TrimSpace(string(tdmrep.File(nil))); got != "[]" {
		t.Errorf("File(nil) = %q, want []", got)
	}
}

// TestMetaElementsReportExample: the elements read back by the HTML parser are the report's
// #sec-tdm-html-meta example's.
func TestMetaElementsReportExample(t *testing.T) {
	want := fixture.HeadMeta(t, []byte(reportHTML))
	d := tdmrep.Declaration{Reservation: tdmrep.Reserved, Policy: reportPolicy}
	got := fixture.HeadMeta(t, []byte("<!DOCTYPE html><html><head>"+string(d.MetaElements())+"</head></html>"))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("meta elements %v, want the report's %v", got, want)
	}
	if got := string((tdmrep.Declaration{Reservation: tdmrep.NotReserved}).MetaElements()); got != `<meta name="tdm-reservation" content="0">` {
		t.Errorf("0 without policy: %q", got)
	}
	if got := string((tdmrep.Declaration{Policy: reportPolicy}).MetaElements()); got != `<meta name="tdm-policy" content="`+reportPolicy+`">` {
		t.Errorf("policy alone: %q", got)
	}
	if got := (tdmrep.Declaration{}).MetaElements(); len(got) != 0 {
		t.Errorf("empty: %q", got)
	}
}

// TestParseReservation: "1" and "0" around white space; every other value is a protocol
// error, unset (#sec-tdm-reservation).
func TestParseReservation(t *testing.T) {
	for in, want := range map[string]tdmrep.Reservation{
		"1": tdmrep.Reserved, " 1 ": tdmrep.Reserved, "\t0": tdmrep.NotReserved, "0": tdmrep.NotReserved,
		"": tdmrep.Unset, "2": tdmrep.Unset, "true": tdmrep.Unset, "1, 0": tdmrep.Unset, "01": tdmrep.Unset,
		"yes": tdmrep.Unset, "1;": tdmrep.Unset, "-1": tdmrep.Unset,
	} {
		if got := tdmrep.ParseReservation(in); got != want {
			t.Errorf("ParseReservation(%q) = %v, want %v", in, got, want)
		}
	}
	for r, v := range map[tdmrep.Reservation]string{tdmrep.Reserved: "1", tdmrep.NotReserved: "0", tdmrep.Unset: ""} {
		if r.Value() != v || (v != "" && tdmrep.ParseReservation(v) != r) {
			t.Errorf("%d.Value() = %q, want %q, round trip", r, r.Value(), v)
		}
	}
}

// TestCombine: the greater reservation wins with its own policy; equal reservations keep
// the first policy, or the second's when the first has none; combining is associative and
// never lowers a reservation.
func TestCombine(t *testing.T) {
	var ds []tdmrep.Declaration
	for _, r := range []tdmrep.Reservation{tdmrep.Unset, tdmrep.NotReserved, tdmrep.Reserved} {
		for _, p := range []string{"", "https://a.example/p", "https://b.example/p"} {
			ds = append(ds, tdmrep.Declaration{Reservation: r, Policy: p})
		}
	}
	for _, a := range ds {
		for _, b := range ds {
			c := tdmrep.Combine(a, b)
			if want := max(a.Reservation, b.Reservation); c.Reservation != want {
				t.Errorf("Combine(%v, %v) = %v: reservation want %v", a, b, c, want)
			}
			wantPolicy := a.Policy
			switch {
			case b.Reservation > a.Reservation:
				wantPolicy = b.Policy
			case a.Reservation > b.Reservation:
			case a.Policy == "":
				wantPolicy = b.Policy
			}
			if c.Policy != wantPolicy {
				t.Errorf("Combine(%v, %v) = %v: policy want %q", a, b, c, wantPolicy)
			}
			for _, e := range ds {
				if l, r := tdmrep.Combine(tdmrep.Combine(a, b), e), tdmrep.Combine(a, tdmrep.Combine(b, e)); l != r {
					t.Errorf("not associative: %v %v %v: %v vs %v", a, b, e, l, r)
				}
			}
		}
	}
}

// TestCheckPolicy: an absolute http(s) URL of printable ASCII; control characters, spaces,
// non-ASCII, relative references and other schemes are refused with a reason.
func TestCheckPolicy(t *testing.T) {
	for _, ok := range []string{reportPolicy, "http://example.com/tdm", "https://example.com:8443/p?x=1&y=2#f", "https://[::1]/p", "https://example.com/%C3%A9"} {
		if msg := tdmrep.CheckPolicy(ok); msg != "" {
			t.Errorf("CheckPolicy(%q) = %q, want ok", ok, msg)
		}
	}
	for in, want := range map[string]string{
		"":                          "empty",
		"/policies/policy.json":     "absolute http(s) URL",
		"policy.json":               "absolute http(s) URL",
		"//example.com/p":           "absolute http(s) URL",
		"ftp://example.com/p":       "absolute http(s) URL",
		"mailto:tdm@example.com":    "absolute http(s) URL",
		"https:///p":                "absolute http(s) URL",
		"https://example.com/a\nb":  "control",
		"https://example.com/a\rb":  "control",
		"https://example.com/a\x00": "control",
		"https://example.com/a\x7f": "control",
		"https://example.com/a b":   "spaces",
		"https://example.com/é":     "ASCII",
		"https://example.com/\xff":  "UTF-8",
		"https://exa mple.com/":     "spaces",
		"https://example.com:x/":    "absolute http(s) URL",
		// What a license URL refuses (syntax.URIExcluded), every one of them.
		`https://example.com/a"b`: `percent-encode '"'`,
		"https://example.com/<p>": `percent-encode '<'`,
		"https://example.com/p>":  `percent-encode '>'`,
		"https://example.com/{p}": `percent-encode '{'`,
		"https://example.com/a|b": `percent-encode '|'`,
		`https://example.com/a\b`: `percent-encode '\\'`,
		"https://example.com/a^b": `percent-encode '^'`,
		"https://example.com/a`b": "percent-encode '`'",
	} {
		if msg := tdmrep.CheckPolicy(in); !strings.Contains(msg, want) {
			t.Errorf("CheckPolicy(%q) = %q, want it to say %q", in, msg, want)
		}
	}
}

// FuzzMetaElements: for any policy CheckPolicy accepts, the meta elements are exactly two
// elements whose parsed content is the reservation and the policy as given: nothing in the
// value can add markup.
func FuzzMetaElements(f *testing.F) {
	for _, s := range []string{reportPolicy, `https://e.com/"><script>`, "https://e.com/&amp;'", "https://e.com/?a=<b>"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, policy string, reserved bool) {
		if tdmrep.CheckPolicy(policy) != "" {
			return
		}
		d := tdmrep.Declaration{Reservation: tdmrep.NotReserved, Policy: policy}
		if reserved {
			d.Reservation = tdmrep.Reserved
		}
		el := d.MetaElements()
		if bytes.Count(el, []byte("<")) != 2 || bytes.Count(el, []byte(">")) != 2 {
			t.Fatalf("%q: markup in the elements", el)
		}
		got := fixture.HeadMeta(t, []byte("<html><head>"+string(el)+"</head></html>"))
		want := [][2]string{{"tdm-reservation", d.Reservation.Value()}, {"tdm-policy", policy}}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q parses as %v, want %v", el, got, want)
		}
		var rules []tdmrep.Rule
		if err := json.Unmarshal(tdmrep.File([]tdmrep.Rule{{Location: "/", Reservation: 1, Policy: policy}}), &rules); err != nil || rules[0].Policy != policy {
			t.Fatalf("File round trip: %v %v", rules, err)
		}
	})
}
