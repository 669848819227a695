package tagemit

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf16"
)

func TestASCIICompatible(t *testing.T) {
	incompatible := []string{
		// WHATWG labels of UTF-16BE, UTF-16LE, ISO-2022-JP and replacement
		"utf-16", "UTF-16", "utf-16le", "UTF-16BE", "unicodefffe", "unicodeFEFF", "csunicode",
		"iso-10646-ucs-2", "ucs-2", "unicode", "iso-2022-jp", "csISO2022JP", "csiso2022kr",
		"hz-gb-2312", "iso-2022-cn", "iso-2022-cn-ext", "iso-2022-kr", "replacement",
		// spelling variants
		` "UTF-16LE" `, `'utf-16'`, "utf16", "UTF_16", "Utf-16Le", "x-utf-16le", "utf-16-be",
		"\tutf-16\n", "ucs2", "ISO_2022_JP", "iso2022jp", "ISO-2022-JP-2", "iso-2022-jp-3",
		"csISO2022JP2", "HZ", "unicodebig", "UnicodeLittleUnmarked", "unicode-1-1",
		// outside WHATWG, not ASCII-compatible
		"utf-32", "UTF-32LE", "utf-32be", "ucs-4", "iso-10646-ucs-4", "csUCS4", "utf-7",
		"csUTF7", "unicode-1-1-utf-7", "SCSU", "BOCU-1", "utf-ebcdic", "IBM037", "cp037",
		"ebcdic-cp-us", "IBM1047", "cp1140", "ibm-500", "CCSID01140", "windows-1200",
		"cp1201", "cp12000", "x-cp50220", "cp50221", "cp52936", "cp65000",
	}
	compatible := []string{
		"", "utf-8", "UTF8", `"utf-8"`, "unicode-1-1-utf-8", "unicode11utf8", "x-unicode20utf8",
		"iso-8859-1", "latin1", "windows-1252", "us-ascii", "ascii", "shift_jis", "Shift-JIS",
		"sjis", "euc-jp", "EUC-KR", "gb2312", "gbk", "gb18030", "big5", "koi8-r", "koi8-u",
		"ibm866", "cp866", "cp1252", "windows-874", "macintosh", "x-mac-cyrillic",
		"x-user-defined", "iso-8859-15", "iso8859-2", "tis-620", "windows-31j",
		"no-such-charset", "utf-8-sig",
	}
	for _, l := range incompatible {
		if ASCIICompatible(l) {
			t.Errorf("ASCIICompatible(%q) = true", l)
		}
	}
	for _, l := range compatible {
		if !ASCIICompatible(l) {
			t.Errorf("ASCIICompatible(%q) = false", l)
		}
	}
}

func TestExtractCharset(t *testing.T) {
	cases := map[string]string{
		"text/html; charset=utf-16":        "utf-16",
		"text/html;charset = 'UTF-16LE'":   "UTF-16LE",
		`text/html; CHARSET="iso-2022-jp"`: "iso-2022-jp",
		"charset=x;y":                      "x",
		"charsetcharset=z":                 "z",
		"charset x; charset=ok":            "ok",
		"text/html":                        "",
		`charset="unterminated`:            "",
		"charset=":                         "",
	}
	for in, want := range cases {
		got, _ := extractCharset([]byte(in))
		if got != want {
			t.Errorf("extractCharset(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPrescan(t *testing.T) {
	cases := []struct {
		doc  string
		want []string
	}{
		{`<meta charset="utf-16">`, []string{"utf-16"}},
		{`<META CHARSET=UTF-16LE>`, []string{"UTF-16LE"}},
		{`<meta/charset='iso-2022-jp'/>`, []string{"iso-2022-jp"}},
		{`<meta http-equiv="Content-Type" content="text/html; charset=ISO-2022-KR">`, []string{"ISO-2022-KR"}},
		{`<meta content="text/html; charset=utf-16" http-equiv=content-type>`, []string{"utf-16"}},
		{`<meta content="text/html; charset=utf-16">`, nil}, // no pragma
		{`<meta charset=a charset=b>`, []string{"a"}},
		{`<!-- <meta charset=utf-16> --><meta charset=x>`, []string{"x"}},
		{`<!--><meta charset=y>`, []string{"y"}},
		{`<p title="<meta charset=utf-16>"><meta charset=z>`, []string{"z"}},
		{`<script>'<meta charset=s>'</script>`, []string{"s"}}, // the prescan does not know script
		{`<?xml <meta charset=q>?><meta charset=r>`, []string{"r"}},
		{`<metal charset=no><meta charset=yes>`, []string{"yes"}},
		{`</meta charset=no><meta charset=yes>`, []string{"yes"}},
	}
	for _, c := range cases {
		for _, chunk := range []int{1, 2, 5, len(c.doc)} {
			// Feed growing prefixes, as the injector does, restarting where it stopped.
			var got []string
			pos := 0
			for end := chunk; ; end += chunk {
				eof := end >= len(c.doc)
				end = min(end, len(c.doc))
				pos += prescan([]byte(c.doc[pos:end]), eof, func(l string, _ int) bool { got = append(got, l); return false })
				if eof {
					break
				}
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("prescan(%q) chunk %d = %q, want %q", c.doc, chunk, got, c.want)
			}
		}
	}
}

func utf16Bytes(s string, bigEndian bool) []byte {
	var b bytes.Buffer
	for _, u := range utf16.Encode([]rune(s)) {
		if bigEndian {
			b.Write([]byte{byte(u >> 8), byte(u)})
		} else {
			b.Write([]byte{byte(u), byte(u >> 8)})
		}
	}
	return b.Bytes()
}

// TestInjectorEncodings: pages in encodings that are not ASCII-compatible go through byte for
// byte, however they are written, and their ASCII-compatible twins get the meta elements.
func TestInjectorEncodings(t *testing.T) {
	p := corpusPolicy(t)
	const page = `<!DOCTYPE html><html><head><title>t</title></head><body>x</body></html>`
	esc := "\x1b"
	cases := []struct {
		name    string
		doc     []byte
		charset string
		pass    bool
	}{
		{"utf-16le bom", append([]byte{0xFF, 0xFE}, utf16Bytes(page, false)...), "", true},
		{"utf-16be bom", append([]byte{0xFE, 0xFF}, utf16Bytes(page, true)...), "", true},
		{"utf-32le bom", []byte("\xff\xfe\x00\x00<\x00\x00\x00"), "", true},
		{"utf-32be bom", []byte("\x00\x00\xfe\xff\x00\x00\x00<"), "", true},
		{"utf-16le no bom", utf16Bytes(page, false), "", true},
		{"utf-16be no bom", utf16Bytes("\r\n"+page, true), "", true},
		{"utf-16 bom only", []byte{0xFF, 0xFE}, "", true},
		{"two bytes utf-16le", []byte("x\x00"), "", true},
		{"utf-8 bom", append(append([]byte{}, utf8BOM...), page...), "", false},
		{"one nul", []byte("\x00<p>x</p>"), "", false},
		{"Content-Type utf-16", []byte(page), "UTF-16", true},
		{"Content-Type quoted", []byte(page), `"utf-16be"`, true},
		{"Content-Type iso-2022-jp", []byte(page), "ISO-2022-JP", true},
		{"Content-Type utf-8", []byte(page), "utf-8", false},
		{"Content-Type unknown label", []byte(page), "klingon", false},
		{"meta charset before head", []byte(`<meta charset="utf-16"><title>t</title><p>x`), "", true},
		{"meta charset in head", []byte(`<html><head><meta charset=UTF-32><title>t</title></head>`), "", true},
		{"http-equiv in head", []byte(`<head><META HTTP-EQUIV="content-type" CONTENT="text/html;charset='iso-2022-kr'"></head><p>`), "", true},
		{"http-equiv entity", []byte(`<head><meta http-equiv="Content-Type" content="text/html; charset=utf&#45;16"></head>`), "", true},
		{"iso-2022-jp escape in head", []byte("<html><head><title>" + esc + "$B<head>" + esc + "(B</title></head>"), "", true},
		{"iso-2022-jp escape before head", []byte("<!--" + esc + "$B-->)" + esc + "(B <head> --><head></head>"), "", true},
		{"meta charset in body within window", []byte(`<head></head><body><p>x</p><meta charset=utf-7>`), "", true},
		{"meta utf-8", []byte(`<head><meta charset=utf-8></head><p>x`), "", false},
		{"meta windows-1252", []byte(`<head><meta charset="windows-1252"></head><p>x`), "", false},
		{"meta utf-16 in comment", []byte(`<head><!-- <meta charset=utf-16> --></head><p>x`), "", false},
		{"meta utf-16 after window", []byte(`<head></head><body>` + strings.Repeat("y", PrescanLen) + `<meta charset=utf-16>`), "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, chunk := range []int{1, 2, 3, 5, 64, len(c.doc) + 1} {
				opts := InjectorOptions{Charset: c.charset}
				in, w := runInjector(t, c.doc, p, opts, func() int { return chunk }, false)
				checkDOM(t, c.doc, w.out.Bytes(), in, p)
				if got := in.State() == PassedThrough; got != c.pass {
					t.Fatalf("chunk %d: state %v (%s), want pass-through %v", chunk, in.State(), in.Reason(), c.pass)
				}
				if c.pass && !strings.Contains(in.Reason(), "ASCII-compatible") {
					t.Fatalf("reason %q does not say why", in.Reason())
				}
			}
		})
	}
}

// TestInjectorPrescanWait: a decision to inject waits for the prescan window, so a
// declaration that comes after the end of the head but within the window is seen; MaxBuffer
// below the window, the end of the body, or Flush end the wait.
func TestInjectorPrescanWait(t *testing.T) {
	p := corpusPolicy(t)
	var dst bytes.Buffer
	in := NewInjector(&dst, p, InjectorOptions{})
	in.Write([]byte(`<html><head><title>t</title></head><body><p>`))
	if in.State() != Pending || dst.Len() != 0 {
		t.Fatalf("decided before the prescan window was read: %v %q", in.State(), dst.String())
	}
	in.Write([]byte(`x</p><meta charset="iso-2022-jp">`))
	in.Close()
	if in.State() != PassedThrough {
		t.Fatalf("state %v", in.State())
	}

	dst.Reset()
	in = NewInjector(&dst, p, InjectorOptions{})
	in.Write([]byte(`<html><head><title>t</title></head><body><p>`))
	in.Write(bytes.Repeat([]byte("z"), PrescanLen))
	if in.State() != Injected || dst.Len() == 0 {
		t.Fatalf("window full: state %v, %d bytes out", in.State(), dst.Len())
	}

	dst.Reset()
	in = NewInjector(&dst, p, InjectorOptions{MaxBuffer: 100})
	in.Write([]byte(`<html><head></head><body>` + strings.Repeat("z", 100)))
	if in.State() != Injected {
		t.Fatalf("MaxBuffer below the window: state %v", in.State())
	}

	dst.Reset()
	in = NewInjector(&dst, p, InjectorOptions{})
	in.Write([]byte(`<html><head><title>t</title></head><body><p>`))
	in.Flush()
	if in.State() != Injected || !strings.Contains(dst.String(), "<head><meta") {
		t.Fatalf("flush: state %v, out %q", in.State(), dst.String())
	}
}
