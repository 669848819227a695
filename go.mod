module github.com/sitepolicy/caddy-robots

go 1.26.0

require (
	github.com/dunglas/httpsfv v1.1.2
	github.com/jimsmart/grobotstxt v1.0.3
	github.com/temoto/robotstxt v1.1.2
	golang.org/x/net v0.62.0
)

require golang.org/x/text v0.43.0 // indirect
