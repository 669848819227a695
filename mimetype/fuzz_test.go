package mimetype

import (
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/internal/httplex"
)

// refType is the record of the reference parser: the standard's steps written out one by one
// with a position variable and an ordered map, independent of the package's lazy reading.
type refType struct {
	essence string
	names   []string
	values  map[string]string
}

func (r refType) params() string {
	var out []string
	for _, n := range r.names {
		out = append(out, n+"="+r.values[n])
	}
	return strings.Join(out, "|")
}

func refIsWS(c byte) bool { return c == '\n' || c == '\r' || c == '\t' || c == ' ' }

func refIsToken(c byte) bool {
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func refAll(s string, f func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !f(s[i]) {
			return false
		}
	}
	return true
}

func refQuotedOK(c byte) bool { return c == '\t' || 0x20 <= c && c <= 0x7E || 0x80 <= c }

// refCollect collects bytes while f holds, from *pos.
func refCollect(in string, pos *int, f func(byte) bool) string {
	start := *pos
	for *pos < len(in) && f(in[*pos]) {
		*pos++
	}
	return in[start:*pos]
}

// refQuoted is "collect an HTTP quoted string".
func refQuoted(in string, pos *int, extract bool) string {
	start := *pos
	var value []byte
	*pos++
	for {
		value = append(value, refCollect(in, pos, func(c byte) bool { return c != '"' && c != '\\' })...)
		if *pos >= len(in) {
			break
		}
		q := in[*pos]
		*pos++
		if q == '\\' {
			if *pos >= len(in) {
				value = append(value, '\\')
				break
			}
			value = append(value, in[*pos])
			*pos++
		} else {
			break
		}
	}
	if extract {
		return string(value)
	}
	return in[start:*pos]
}

func refParse(input string) (refType, bool) {
	input = strings.TrimLeft(input, "\n\r\t ")
	input = strings.TrimRight(input, "\n\r\t ")
	pos := 0
	typ := refCollect(input, &pos, func(c byte) bool { return c != '/' })
	if typ == "" || !refAll(typ, refIsToken) || pos >= len(input) {
		return refType{}, false
	}
	pos++
	sub := refCollect(input, &pos, func(c byte) bool { return c != ';' })
	sub = strings.TrimRight(sub, "\n\r\t ")
	if sub == "" || !refAll(sub, refIsToken) {
		return refType{}, false
	}
	r := refType{essence: strings.ToLower(typ) + "/" + strings.ToLower(sub), values: map[string]string{}}
	for pos < len(input) {
		pos++
		refCollect(input, &pos, refIsWS)
		name := strings.ToLower(refCollect(input, &pos, func(c byte) bool { return c != ';' && c != '=' }))
		if pos < len(input) {
			if input[pos] == ';' {
				continue
			}
			pos++
		}
		if pos >= len(input) {
			break
		}
		var value string
		if input[pos] == '"' {
			value = refQuoted(input, &pos, true)
			refCollect(input, &pos, func(c byte) bool { return c != ';' })
		} else {
			value = refCollect(input, &pos, func(c byte) bool { return c != ';' })
			value = strings.TrimRight(value, "\n\r\t ")
			if value == "" {
				continue
			}
		}
		if _, exists := r.values[name]; name != "" && refAll(name, refIsToken) && refAll(value, refQuotedOK) && !exists {
			r.names = append(r.names, name)
			r.values[name] = value
		}
	}
	return r, true
}

// refExtract is Fetch's "extract a MIME type" over "get, decode, and split".
func refExtract(lines []string) (refType, bool) {
	if len(lines) == 0 {
		return refType{}, false
	}
	input := strings.Join(lines, ", ")
	var values []string
	pos := 0
	tmp := ""
	for {
		tmp += refCollect(input, &pos, func(c byte) bool { return c != '"' && c != ',' })
		if pos < len(input) && input[pos] == '"' {
			tmp += refQuoted(input, &pos, false)
			if pos < len(input) {
				continue
			}
		}
		values = append(values, strings.Trim(tmp, " \t"))
		tmp = ""
		if pos >= len(input) {
			break
		}
		pos++
	}
	var mt refType
	found := false
	essence, charset, hasCharset := "", "", false
	for _, v := range values {
		t, ok := refParse(v)
		if !ok || t.essence == "*/*" {
			continue
		}
		mt, found = t, true
		if t.essence != essence {
			charset, hasCharset = t.values["charset"]
			essence = t.essence
		} else if _, has := t.values["charset"]; !has && hasCharset {
			mt.names = append(mt.names, "charset")
			mt.values["charset"] = charset
		}
	}
	return mt, found
}

// FuzzParseMIMEType: Parse and Extract agree with the reference reading of the standards on
// every input, never panic, give a lower-case essence of token characters, and their
// serialisation parses back to the same record.
func FuzzParseMIMEType(f *testing.F) {
	for _, s := range [][2]string{
		{"text/html; charset", ""}, {"text/html;;", ""}, {`text/html; charset=""`, ""},
		{"text/html; charset=utf-8; foo", "text/html"}, {"TEXT/HTML", "*/*"},
		{" \ttext/html ;charset=utf-8\t", ""}, {"text/html; charset=a; charset=b", ""},
		{`text/html; charset="\"\\x`, ""}, {"application/xhtml+xml", "text/plain"},
		{"text/html;charset=gbk, text/html", "text/html;x=y"}, {`a/b;x="c,d", e/f`, ""},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		m, ok := Parse(a)
		r, rok := refParse(a)
		if ok != rok || m.Essence() != r.essence || params(m) != r.params() {
			t.Fatalf("Parse(%q) = %q [%s], %v; reference %q [%s], %v", a, m.Essence(), params(m), ok, r.essence, r.params(), rok)
		}
		if ok {
			if m.Essence() != strings.ToLower(m.Essence()) || !httplex.IsToken(m.Type()) || !httplex.IsToken(m.Subtype()) {
				t.Fatalf("Parse(%q): essence %q", a, m.Essence())
			}
			back, bok := Parse(m.String())
			if !bok || back.Essence() != m.Essence() || params(back) != params(m) {
				t.Fatalf("Parse(%q).String() = %q reads back as %q [%s], %v", a, m.String(), back.Essence(), params(back), bok)
			}
			for k, v := range m.Params() {
				if got, has := m.Param(k); !has || got != v {
					t.Fatalf("Parse(%q).Param(%q) = %q, %v; Params says %q", a, k, got, has, v)
				}
			}
		}
		for _, lines := range [][]string{{a}, {a, b}, {b, a}} {
			e, eok := Extract(lines)
			r, rok := refExtract(lines)
			if eok != rok || e.Essence() != r.essence || params(e) != r.params() {
				t.Fatalf("Extract(%q) = %q [%s], %v; reference %q [%s], %v", lines, e.Essence(), params(e), eok, r.essence, r.params(), rok)
			}
		}
	})
}
