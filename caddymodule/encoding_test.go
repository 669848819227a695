package caddymodule

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// TestRobotsTagEncodedBodyWarns: with meta on at site level and encode inside a handle block,
// the body reaches robots_tag already gzipped: the first such response logs a warning with the
// fix, once per robots_tag handler (a precompressed file on another site warns through its own
// handler), and the encoded bytes are left alone.
func TestRobotsTagEncodedBodyWarns(t *testing.T) {
	root := exampleRoot(t)
	pre := t.TempDir()
	page, err := os.ReadFile(filepath.Join(root, "drafts", "post.html"))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(page)
	_ = zw.Close()
	for name, b := range map[string][]byte{"post.html": page, "post.html.gz": gz.Bytes()} {
		if err := os.WriteFile(filepath.Join(pre, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	caddyTesterWithGlobals(t, `
	log {
		output file "`+logFile+`"
		level DEBUG
	}
`, strings.NewReplacer("@ROOT@", root, "@PRE@", pre).Replace(`
http://localhost:@PORT@ {
	root * "@ROOT@"
	robots_tag noindex {
		meta
	}
	handle /drafts/* {
		encode gzip
		file_server
	}
	handle {
		file_server
	}
}
http://localhost:@PORT2@ {
	root * "@PRE@"
	robots_tag noindex {
		meta
	}
	file_server {
		precompressed gzip
	}
}
`))
	warnings := func() []string {
		b, _ := os.ReadFile(logFile)
		var out []string
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "http.handlers.robots_tag") && strings.Contains(line, `"level":"warn"`) && strings.Contains(line, "already encoded") {
				out = append(out, line)
			}
		}
		return out
	}
	waitWarnings := func(n int) []string {
		deadline := time.Now().Add(10 * time.Second)
		for {
			w := warnings()
			if len(w) >= n || time.Now().After(deadline) {
				time.Sleep(200 * time.Millisecond) // let a wrongly repeated warning show up
				return warnings()
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	p := tagPolicy(t, map[string][]string{"*": {"noindex"}})

	// Not encoded: rewritten, no warning.
	resp, body := do(t, "GET", siteURL("/drafts/post.html"))
	wantStatus(t, resp, 200)
	wantInjected(t, body, page, p)
	for i := 0; i < 3; i++ {
		resp, body = do(t, "GET", siteURL("/drafts/post.html"), "Accept-Encoding: gzip")
		wantStatus(t, resp, 200)
		wantRobotsTag(t, resp, p)
		if resp.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(gunzip(t, body), page) {
			t.Fatalf("encoded body: Content-Encoding %q, changed", resp.Header.Get("Content-Encoding"))
		}
	}
	w := waitWarnings(1)
	if len(w) != 1 {
		t.Fatalf("%d warnings for one handler, want 1:\n%s", len(w), strings.Join(w, "\n"))
	}
	for _, want := range []string{"meta elements not added", "gzip", "inside the block", "encode at site level"} {
		if !strings.Contains(w[0], want) {
			t.Errorf("warning does not mention %q: %s", want, w[0])
		}
	}

	// A precompressed file, through the other site's handler.
	for i := 0; i < 2; i++ {
		resp, body = do(t, "GET", site2URL("/post.html"), "Accept-Encoding: gzip")
		wantStatus(t, resp, 200)
		wantRobotsTag(t, resp, p)
		if !bytes.Equal(body, gz.Bytes()) {
			t.Fatalf("precompressed file changed")
		}
	}
	if w := waitWarnings(2); len(w) != 2 || !strings.Contains(w[1], "precompressed") {
		t.Fatalf("%d warnings after the precompressed file, want 2 (one per handler):\n%s", len(w), strings.Join(w, "\n"))
	}
}

func utf16LEBytes(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

// TestRobotsTagEncodingsLeftAlone: behind file_server and respond, pages in encodings that are
// not ASCII-compatible go out byte for byte with the header set; an ASCII-compatible legacy
// charset is rewritten.
func TestRobotsTagEncodingsLeftAlone(t *testing.T) {
	dir := t.TempDir()
	const doc = `<!DOCTYPE html><html><head><title>t</title></head><body>x</body></html>`
	files := map[string][]byte{
		"utf16le-bom.html":   append([]byte{0xFF, 0xFE}, utf16LEBytes(doc)...),
		"utf16be-bom.html":   append([]byte{0xFE, 0xFF}, []byte("\x00<\x00h\x00e\x00a\x00d\x00>")...),
		"utf16-no-bom.html":  utf16LEBytes(doc),
		"meta-utf16.html":    []byte(`<!DOCTYPE html><html><head><meta charset="utf-16"><title>t</title></head></html>`),
		"meta-jp.html":       []byte("<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=ISO-2022-JP\"><title>\x1b$B<head>\x1b(B</title></head></html>"),
		"undeclared-jp.html": []byte("<html><!-- \x1b$B-->)\x1b(B <head> --><head></head><p>x</p></html>"),
		"sjis.html":          []byte(`<html><head><meta charset="Shift_JIS"><title>t</title></head></html>`),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	startCaddyfile(t, strings.NewReplacer("@DIR@", dir, "@DOC@", doc).Replace(`
http://localhost:@PORT@ {
	root * "@DIR@"
	robots_tag noindex {
		meta
	}
	handle /respond/utf16 {
		header Content-Type "text/html; charset=\"UTF-16\""
		respond "@DOC@"
	}
	handle /respond/jp {
		header Content-Type "text/html; charset=iso-2022-jp"
		respond "@DOC@"
	}
	handle {
		file_server
	}
}
`))
	p := tagPolicy(t, map[string][]string{"*": {"noindex"}})
	for name, b := range files {
		resp, body := do(t, "GET", siteURL("/"+name))
		wantStatus(t, resp, 200)
		wantRobotsTag(t, resp, p)
		if name == "sjis.html" {
			wantInjected(t, body, b, p)
			continue
		}
		if !bytes.Equal(body, b) || resp.Header.Get("Content-Length") != strconv.Itoa(len(b)) {
			t.Errorf("%s: %d bytes (file %d), Content-Length %q", name, len(body), len(b), resp.Header.Get("Content-Length"))
		}
	}
	for _, path := range []string{"/respond/utf16", "/respond/jp"} {
		resp, body := do(t, "GET", siteURL(path))
		wantStatus(t, resp, http.StatusOK)
		wantRobotsTag(t, resp, p)
		if string(body) != doc {
			t.Errorf("%s: body changed to %q", path, body)
		}
	}
}
