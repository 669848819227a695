// Command gencrawlers writes catalog_gen.go of package crawlers from a
// robots.json of the ai.robots.txt project, and with -bots bots_gen.go from a
// well-known-bots.json of the arcjet/well-known-bots project, and with -platforms
// platforms_gen.go from data/platforms.json (the project's own data: no licence).
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
	"strings"

	"github.com/sitepolicy/caddy-robots/crawlers/internal/gen"
)

func main() {
	in := flag.String("in", "data/robots.json", "robots.json to read")
	data := flag.String("data", "data/robots.json", "the committed copy: -in is copied here when it differs; named in the generated header")
	license := flag.String("license", "", "MIT licence text of the data (default: LICENSE beside -data)")
	out := flag.String("out", "catalog_gen.go", "Go file to write")
	botsFlag := flag.Bool("bots", false, "the input is well-known-bots.json (the bot catalogue), not robots.json")
	platformsFlag := flag.Bool("platforms", false, "the input is platforms.json (the platforms), not robots.json")
	flag.Parse()
	generate := gen.Generate
	switch {
	case *botsFlag:
		generate = gen.GenerateBots
	case *platformsFlag:
		generate = gen.GeneratePlatforms
		*license = "-" // the project's own data
	}
	if *license == "" {
		*license = filepath.Join(filepath.Dir(*data), "LICENSE")
		if *botsFlag {
			*license = strings.TrimSuffix(*data, ".json") + ".LICENSE"
		}
	}
	if err := run(generate, *in, *data, *license, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gencrawlers:", err)
		os.Exit(1)
	}
}

func run(generate func(data, license []byte, source string) ([]byte, error), in, data, license, out string) error {
	src, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var lic []byte
	if license != "-" {
		if lic, err = os.ReadFile(license); err != nil {
			return err
		}
	}
	code, err := generate(src, lic, filepath.ToSlash(data))
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
