package robotsgen

import (
	"fmt"
	"testing"
)

func BenchmarkRender1000Groups(b *testing.B) {
	f := &File{Sitemaps: []string{"/sitemap.xml"}}
	for i := 0; i < 1000; i++ {
		g := Group{UserAgents: []string{fmt.Sprintf("Bot-%c%c", 'a'+i%26, 'a'+i/26%26)}}
		if i%10 == 0 {
			g = Group{Purposes: []string{fmt.Sprintf("PURPOSE-%d", i)}}
		}
		for j := 0; j < 5; j++ {
			g.Rules = append(g.Rules, Rule{Disallow, fmt.Sprintf("/section-%d/page-%d/*.html$", i, j)})
		}
		f.Groups = append(f.Groups, g)
	}
	b.ReportAllocs()
	var n int
	for b.Loop() {
		out, err := f.Render("https://example.com")
		if err != nil {
			b.Fatal(err)
		}
		n = len(out)
	}
	b.SetBytes(int64(n))
}

func BenchmarkDecide200Rules(b *testing.B) {
	g := Group{UserAgents: []string{"ExampleBot"}}
	for i := 0; i < 200; i++ {
		t := Disallow
		if i%3 == 0 {
			t = Allow
		}
		p := fmt.Sprintf("/dir-%d/", i)
		if i%4 == 0 {
			p = fmt.Sprintf("/*/file-%d*.php$", i)
		}
		g.Rules = append(g.Rules, Rule{t, p})
	}
	m := NewMatcher(&File{Groups: []Group{g, {UserAgents: []string{"*"}, Rules: []Rule{{Disallow, "/"}}}}})
	paths := []string{"/dir-150/index.html", "/a/b/file-100x.php", "/nothing/here?q=%7Efoo", "/dir-7/%E3%83%84"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		d := m.Decide("examplebot", "", paths[i%len(paths)])
		if d.Group != 0 {
			b.Fatal("wrong group")
		}
		i++
	}
}
