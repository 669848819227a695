package serve

import "testing"

func TestMayBeHTML(t *testing.T) {
	for p, want := range map[string]bool{
		"/": true, "/blog/post": true, "/a.html": true, "/A.HTM": true, "/index.php": true, "/x.xhtml": true,
		"/v.mp4": false, "/doc.pdf": false, "/img.JPG": false, "/a.zip": false, "/s.css": false, "/app.js": false,
		"/data.json": false, "/feed.xml": false, "/font.woff2": false,
	} {
		if got := mayBeHTML(p); got != want {
			t.Errorf("mayBeHTML(%q) = %v", p, got)
		}
	}
}
