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

func ExampleParseRobotsTag() {
	// A backend's header in the current syntax, plus one in the superseded draft-00
	// syntax; restrictions from both are kept, the unusable piece is reported.
	p, errs := tagemit.ParseRobotsTag([]string{"*;nosnippet, ExampleBot;NoIndex;max-snippet=20"})
	fmt.Println(p.RobotsTag(), len(errs))
	old, _ := tagemit.ParseRobotsTag([]string{"*=noindex, nosnippet; ExampleBot=;"})
	fmt.Println(p.Union(old).RobotsTag())
	_, errs = tagemit.ParseRobotsTag([]string{"*;noindex;max-snippet=lots"})
	fmt.Println(errs[0])
	// Output:
	// *;nosnippet, examplebot;noindex;max-snippet=20 0
	// *;noindex;nosnippet, examplebot;noindex;max-snippet=20
	// tagemit: token "*": dropped rule: rule "max-snippet": value "lots" is not an integer from -1 to 999999999999999
}

// RulesFor answers what one crawler obeys: the union of the rules for "*" and for its token.
func ExamplePolicy_RulesFor() {
	p, _ := tagemit.ParseRobotsTag([]string{"*;nosnippet, GPTBot;noindex, bingbot;max-snippet=20"})
	fmt.Println(p.RulesFor("GPTBot"))
	fmt.Println(p.RulesFor("Googlebot"))
	// Output:
	// [noindex nosnippet]
	// [nosnippet]
}

// Equal compares what two policies state, e.g. whether a backend's header already says
// everything a route would add.
func ExamplePolicy_Equal() {
	route, _ := tagemit.NewPolicy(map[string][]string{"*": {"noindex"}})
	backend, _ := tagemit.ParseRobotsTag([]string{"*;noindex;nosnippet"})
	fmt.Println(backend.Union(route).Equal(backend))
	// Output:
	// true
}
