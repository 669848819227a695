-- Rotates wrk's requests over every route of bench/soak.Caddyfile.
local paths = {"/robots.txt", "/drafts/100k.html", "/doc.pdf", "/", "/articles/x", "/drafts/small.html"}
local i = 0
request = function()
	i = i % #paths + 1
	return wrk.format("GET", paths[i], {["Accept-Encoding"] = (i % 2 == 0) and "gzip" or "identity"})
end
