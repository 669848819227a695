package tagemit_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/sitepolicy/caddy-robots/tagemit"
)

func ExamplePolicy_RobotsTag() {
	p, err := tagemit.NewPolicy(map[string][]string{
		"*":          {"NoSnippet", "noindex"},
		"ExampleBot": {"max-snippet=20", "max-image-preview=large"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.RobotsTag())
	fmt.Println(strings.Join(p.XRobotsTag(), "\n"))
	fmt.Println(string(p.MetaElements()))
	// Output:
	// *;noindex;nosnippet, examplebot;max-image-preview=large;max-snippet=20
	// noindex, nosnippet
	// examplebot: max-image-preview: large, max-snippet: 20
	// <meta name="robots" content="noindex, nosnippet"><meta name="examplebot" content="max-image-preview:large, max-snippet:20">
}

func ExampleNewInjector() {
	p, _ := tagemit.NewPolicy(map[string][]string{"*": {"noindex"}})
	in := tagemit.NewInjector(os.Stdout, p, tagemit.InjectorOptions{})
	in.Write([]byte("<!DOCTYPE html><html><HEAD lang=en>"))
	fmt.Println(in.State())
	in.Write([]byte("<title>Hi</title></head><body>Hello</body></html>\n"))
	in.Close()
	fmt.Println(in.State(), in.Inserted())
	// Output:
	// Pending
	// <!DOCTYPE html><html><HEAD lang=en><meta name="robots" content="noindex"><title>Hi</title></head><body>Hello</body></html>
	// Injected 38
}
