module github.com/sitepolicy/caddy-robots

go 1.26
