package nethttp

import "github.com/sitepolicy/caddy-robots/policy"

// The config schema is package policy's; these names keep the middleware's API whole.
type (
	// Config is policy.Config.
	Config = policy.Config
	// RobotsTxtConfig is policy.RobotsTxt.
	RobotsTxtConfig = policy.RobotsTxt
	// Enforce is policy.Enforce.
	Enforce = policy.Enforce
	// MergeConfig is policy.Merge.
	MergeConfig = policy.Merge
	// Route is policy.Route.
	Route = policy.Route
	// TagConfig is policy.Tags.
	TagConfig = policy.Tags
	// Duration is policy.Duration.
	Duration = policy.Duration
	// TDM is policy.TDM, a route's TDMRep declaration.
	TDM = policy.TDM
)
