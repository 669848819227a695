package tagemit

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// sink is an io.Discard-like writer without ReadFrom, so io.Copy and the injector see
// the same destination.
type sink struct{}

func (sink) Write(b []byte) (int, error) { return len(b), nil }

// stream hides bytes.Reader's WriterTo, so io.Copy moves the body through its 32 KiB
// buffer as it does for a network response body.
type stream struct{ r *bytes.Reader }

func (s stream) Read(p []byte) (int, error) { return s.r.Read(p) }

func benchDoc(size int) []byte {
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Benchmark page</title>\n<link rel=\"stylesheet\" href=\"/a.css\">\n</head>\n<body>\n")
	for i := 0; b.Len() < size-20; i++ {
		fmt.Fprintf(&b, "<div class=\"row\"><a href=\"/item/%d\">item %d</a></div>\n", i, i)
	}
	b.WriteString("</body></html>\n")
	return b.Bytes()[:size]
}

func BenchmarkRobotsTagPrecomputed(b *testing.B) {
	p := mustPolicy(b, map[string][]string{"*": {"noindex", "nosnippet"}, "examplebot": {"max-snippet=20", "max-image-preview=large"}})
	b.ReportAllocs()
	b.SetBytes(int64(len(p.RobotsTag())))
	n := 0
	for b.Loop() {
		n += len(p.RobotsTag())
	}
	if n == 0 {
		b.Fatal("empty")
	}
}

func BenchmarkParseRobotsTag1KiB(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 1024-60; i++ {
		fmt.Fprintf(&sb, "bot%s;noindex;max-snippet=%d, ", tokenName(i), i)
	}
	sb.WriteString(`*;nosnippet;unavailable_after="2027-01-01T00:00:00Z"`)
	v := []string{sb.String()}
	b.ReportAllocs()
	b.SetBytes(int64(len(v[0])))
	for b.Loop() {
		if _, errs := ParseRobotsTag(v); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}

func benchInjector(b *testing.B, size int) {
	p := mustPolicy(b, map[string][]string{"*": {"noindex", "nosnippet"}, "examplebot": {"max-snippet=20"}})
	doc := benchDoc(size)
	b.ReportAllocs()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		in := NewInjector(sink{}, p, InjectorOptions{})
		if _, err := io.Copy(in, stream{bytes.NewReader(doc)}); err != nil {
			b.Fatal(err)
		}
		if err := in.Close(); err != nil || in.State() != Injected {
			b.Fatal(err, in.State())
		}
	}
}

func benchIOCopy(b *testing.B, size int) {
	doc := benchDoc(size)
	b.ReportAllocs()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := io.Copy(sink{}, stream{bytes.NewReader(doc)}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchInjectorWhole writes the body in one Write (bytes.Reader's WriteTo), against
// io.Copy's zero-copy path for the same reader.
func benchInjectorWhole(b *testing.B, size int, inject bool) {
	p := mustPolicy(b, map[string][]string{"*": {"noindex", "nosnippet"}, "examplebot": {"max-snippet=20"}})
	doc := benchDoc(size)
	b.ReportAllocs()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if !inject {
			io.Copy(sink{}, bytes.NewReader(doc))
			continue
		}
		in := NewInjector(sink{}, p, InjectorOptions{})
		io.Copy(in, bytes.NewReader(doc))
		in.Close()
	}
}

func BenchmarkInjector100KiB(b *testing.B)    { benchInjector(b, 100<<10) }
func BenchmarkIOCopy100KiB(b *testing.B)      { benchIOCopy(b, 100<<10) }
func BenchmarkInjector1MiB(b *testing.B)      { benchInjector(b, 1<<20) }
func BenchmarkIOCopy1MiB(b *testing.B)        { benchIOCopy(b, 1<<20) }
func BenchmarkInjectorWhole1MiB(b *testing.B) { benchInjectorWhole(b, 1<<20, true) }
func BenchmarkIOCopyWhole1MiB(b *testing.B)   { benchInjectorWhole(b, 1<<20, false) }
