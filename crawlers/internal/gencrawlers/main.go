// Command gencrawlers writes catalog_gen.go of package crawlers from a
// robots.json of the ai.robots.txt project.
//
// From the crawlers directory (go generate ./crawlers/ runs it there):
//
//	go run ./internal/gencrawlers                          # regenerate from data/robots.json
//	go run ./internal/gencrawlers -in ~/robots.json        # update: copy it to data/robots.json, regenerate
//
// An update is one step: the new file is checked first (every function
// string must be in the reviewed table, see internal/gen/functions.go), and
// only then copied over the committed copy, so a failed run changes nothing.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sitepolicy/caddy-robots/crawlers/internal/gen"
)

func main() {
	in := flag.String("in", "data/robots.json", "robots.json to read")
	data := flag.String("data", "data/robots.json", "the committed copy: -in is copied here when it differs; named in the generated header")
	license := flag.String("license", "", "MIT licence text of the data (default: LICENSE beside -data)")
	out := flag.String("out", "catalog_gen.go", "Go file to write")
	flag.Parse()
	if *license == "" {
		*license = filepath.Join(filepath.Dir(*data), "LICENSE")
	}
	if err := run(*in, *data, *license, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gencrawlers:", err)
		os.Exit(1)
	}
}

func run(in, data, license, out string) error {
	src, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	lic, err := os.ReadFile(license)
	if err != nil {
		return err
	}
	code, err := gen.Generate(src, lic, filepath.ToSlash(data))
	if err != nil {
		return fmt.Errorf("%s:\n%w", in, err)
	}
	if old, err := os.ReadFile(data); err != nil || !bytes.Equal(old, src) {
		if err := os.WriteFile(data, src, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(out, code, 0o644)
}
