package policy_test

import (
	"fmt"

	"github.com/sitepolicy/caddy-robots/policy"
)

// Decode reads the JSON every front end shares, refusing a misspelt field.
func ExampleDecode() {
	cfg, err := policy.Decode([]byte(`{
		"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}], "max_age": "1d"},
		"robots_tag": [{"paths": ["*.pdf"], "rules": {"*": ["noindex"]}}]
	}`))
	fmt.Println(err, cfg.RobotsTxt.Groups[0].Rules[0].Path, cfg.RobotsTxt.MaxAge, cfg.RobotsTag[0].Paths, cfg.RobotsTag[0].Rules)

	_, err = policy.Decode([]byte(`{"robots_tag": [{"rule": {"*": ["noindex"]}}]}`))
	fmt.Println(err)
	// Output:
	// <nil> /admin/ 24h0m0s [*.pdf] map[*:[noindex]]
	// json: unknown field "rule"
}
