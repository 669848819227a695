package logreport

import (
	"bytes"
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/metrics"
)

// The crawl-to-refer section: per platform of the catalogue (an operator whose crawlers fetch
// pages and whose products send readers), the HTML pages its crawlers fetched and the HTML
// visits its products referred, and their ratio, over the log and per bucket of the timeline.
//
// Its counts live in platformsAcc, apart from the rest of the Builder, with their own
// timeline (rebinned to the report's at the end) so that the section stays one struct with
// its own merge.

// platformsAcc is what the Builder counts for the crawl-to-refer section.
type platformsAcc struct {
	// rows are by the platform's index in crawlers.Platforms; nil until seen.
	rows []*platformAcc
	// byType and byPath count the responses the section classified as HTML or not, by the
	// logged Content-Type and by the path (the fallback).
	byType, byPath int64
	// lastRef is the scheme and host of the last Referer looked up, and lastPlatform its
	// platform (-1 for none).
	lastRef      []byte
	lastPlatform int
	// timeline holds three series per platform: its verified and unverified crawlers' HTML
	// pages and its referred visits. Its buckets are never wider than the report's, whose
	// events are a superset: Report rebins it to them.
	timeline timeline
}

// platformAcc is one platform's counts.
type platformAcc struct {
	verified, unverified, referrals int64
	// crawlers are the names of its crawlers seen fetching an HTML page; lastCrawler the
	// last one added.
	crawlers    map[string]bool
	lastCrawler string
	// series is the first of its three series in platformsAcc.timeline.
	series int
}

// Series offsets of a platform in platformsAcc.timeline.
const (
	seriesVerified = iota
	seriesUnverified
	seriesReferrals
)

func (p *platformsAcc) init() {
	p.rows = make([]*platformAcc, crawlers.NumPlatforms())
	p.timeline.init(MaxBuckets)
}

func (p *platformsAcc) row(platform int) *platformAcc {
	r := p.rows[platform]
	if r == nil {
		r = &platformAcc{crawlers: map[string]bool{}, series: p.timeline.newSeries(false)}
		p.timeline.newSeries(false)
		p.timeline.newSeries(false)
		p.rows[platform] = r
	}
	return r
}

// crawl counts a request of a crawler of the platform (not an impostor's: the Builder never
// calls it for one), when its response is an HTML page.
func (p *platformsAcc) crawl(platform int, crawler string, verified bool, e *Entry, ts int64) {
	if !p.html(e) {
		return
	}
	r := p.row(platform)
	s := seriesUnverified
	if verified {
		r.verified++
		s = seriesVerified
	} else {
		r.unverified++
	}
	if crawler != r.lastCrawler { // a row's name is one string: most often a pointer compare
		r.lastCrawler = crawler
		r.crawlers[crawler] = true
	}
	p.timeline.add(ts, r.series+s)
}

// referral counts a browser's request (one whose User-Agent names no crawler or tool) whose
// Referer is a host of a platform's products, when its response is an HTML page. It costs
// nothing for a request without a Referer.
func (p *platformsAcc) referral(e *Entry, ts int64) {
	if len(e.referer) == 0 {
		return
	}
	// Only the scheme and the host matter: cut the rest, so that the string passed stays on
	// the stack (up to 32 bytes) for most Referers rather than be allocated per request,
	// and a Combined line's escapes are undone only where they are in the host (no host of
	// the catalogue has them; the servers never escape the "/" cut at).
	ref := e.referer
	if i := bytes.Index(ref, []byte("://")); i >= 0 {
		if j := bytes.IndexAny(ref[i+3:], "/?#"); j >= 0 {
			ref = ref[:i+3+j]
		}
	}
	if e.refererEscaped && bytes.IndexByte(ref, '\\') >= 0 {
		ref = e.Referer()
	}
	// A log's Referers repeat (a search engine's, the site's own pages): the last one's
	// platform is kept.
	if !bytes.Equal(ref, p.lastRef) {
		_, i, ok := crawlers.RefererPlatform(string(ref))
		if !ok {
			i = -1
		}
		p.lastRef, p.lastPlatform = append(p.lastRef[:0], ref...), i
	}
	platform := p.lastPlatform
	if platform < 0 || !p.html(e) {
		return
	}
	r := p.row(platform)
	r.referrals++
	p.timeline.add(ts, r.series+seriesReferrals)
}

// html says whether e's response is an HTML page, as the live counter decides it:
// metrics.HTMLPage, a GET answered 2xx whose Content-Type is text/html or
// application/xhtml+xml as browsers read it. Where the log does not record the response's
// headers (Common, Combined, a JSON line without resp_headers), the path stands in for the
// Content-Type (htmlPath). It counts how it was told.
func (p *platformsAcc) html(e *Entry) bool {
	if e.Target == nil {
		return false
	}
	if !e.HasContentType {
		p.byPath++
		// metrics.HTMLPage with the Content-Type text/html (TestHTMLPageByPath), without
		// parsing one per request.
		return string(e.Method) == http.MethodGet && e.Status >= 200 && e.Status <= 299 && htmlPath(pathOf(e.Target))
	}
	p.byType++
	return metrics.HTMLPage(string(e.Method), e.Status, e.ContentType)
}

// htmlPath is the fallback when the log does not record the Content-Type: a path whose last
// segment has no extension ("/", "/news/1", "/about") or ends in .html or .htm (in any case)
// is taken as an HTML page; any other extension (.css, .js, .png, .txt, .xml) is not.
func htmlPath(path []byte) bool {
	seg := path[bytes.LastIndexByte(path, '/')+1:]
	dot := bytes.LastIndexByte(seg, '.')
	if dot < 0 {
		return true
	}
	ext := seg[dot:]
	return bytes.EqualFold(ext, []byte(".html")) || bytes.EqualFold(ext, []byte(".htm"))
}

// report fills the section of rep, whose timeline it rebins its own to.
func (p *platformsAcc) report(tl Timeline) CrawlToRefer {
	out := CrawlToRefer{HTMLBy: HTMLBy{ContentType: p.byType, Path: p.byPath}, Platforms: make([]*Platform, 0, len(p.rows))}
	n := len(tl.Crawlers)
	all := crawlers.Platforms()
	for i, r := range p.rows {
		if r == nil {
			continue
		}
		row := &Platform{ID: all[i].ID, Name: all[i].Name, Verified: r.verified, Unverified: r.unverified, Referrals: r.referrals, Ratio: ratio(r.verified+r.unverified, r.referrals)}
		for c := range r.crawlers {
			row.Crawlers = append(row.Crawlers, c)
		}
		slices.Sort(row.Crawlers)
		pt := PlatformTimeline{Verified: make([]int64, n), Unverified: make([]int64, n), Referrals: make([]int64, n), Ratio: make([]*float64, n)}
		p.rebin(tl, r.series+seriesVerified, pt.Verified)
		p.rebin(tl, r.series+seriesUnverified, pt.Unverified)
		p.rebin(tl, r.series+seriesReferrals, pt.Referrals)
		for i := range n {
			pt.Ratio[i] = ratio(pt.Verified[i]+pt.Unverified[i], pt.Referrals[i])
		}
		row.Timeline = pt
		out.Platforms = append(out.Platforms, row)
	}
	slices.SortFunc(out.Platforms, func(a, b *Platform) int {
		return cmp.Or(cmp.Compare(b.Verified+b.Unverified, a.Verified+a.Unverified), cmp.Compare(b.Referrals, a.Referrals), strings.Compare(a.Name, b.Name))
	})
	return out
}

// rebin adds series s of the section's timeline into out, the buckets of tl: the section's
// buckets are as wide as tl's or narrower, both aligned to multiples of their widths (60 s
// times a power of two), so each falls in one of tl's.
func (p *platformsAcc) rebin(tl Timeline, s int, out []int64) {
	t := &p.timeline
	if t.n == 0 || len(out) == 0 {
		return
	}
	start := tl.Start.Unix()
	for i, v := range t.data[s][:t.n] {
		if v == 0 {
			continue
		}
		j := floorDiv(t.start+int64(i)*t.width-start, tl.BucketSeconds)
		out[min(max(j, 0), int64(len(out)-1))] += v
	}
}

// ratio is crawls per referral; nil without referrals (a ratio of infinity, or of nothing).
func ratio(crawls, referrals int64) *float64 {
	if referrals == 0 {
		return nil
	}
	r := float64(crawls) / float64(referrals)
	return &r
}

// CrawlToRefer is the crawl-to-refer section: per platform, the HTML pages its crawlers
// fetched and the HTML visits its products referred.
type CrawlToRefer struct {
	// HTMLBy says how responses were told to be HTML pages, and how many each way.
	HTMLBy HTMLBy `json:"html_by"`
	// Platforms are the platforms seen (crawling an HTML page or referring a visit to one),
	// most pages crawled first.
	Platforms []*Platform `json:"platforms"`
}

// HTMLBy counts the responses the section classified (its platforms' crawlers' requests, and
// browsers' requests referred by a platform's host) by how it told whether each was an HTML
// page.
type HTMLBy struct {
	// ContentType were told by the Content-Type the log records (Caddy's JSON access log's
	// resp_headers): text/html or application/xhtml+xml.
	ContentType int64 `json:"content_type"`
	// Path were told by their path, the log recording no Content-Type (Common, Combined, or
	// a JSON line without resp_headers): no extension in the last segment, or .html, .htm.
	Path int64 `json:"path"`
}

// Platform is what one platform's crawlers took and what its products sent back.
type Platform struct {
	// ID and Name are the platform's in the catalogue (crawlers.Platform): "openai",
	// "OpenAI".
	ID   string `json:"id"`
	Name string `json:"name"`
	// Crawlers are the names of its crawlers seen fetching an HTML page.
	Crawlers []string `json:"crawlers"`
	// Verified are the HTML pages its crawlers fetched whose claim the site's verification
	// proves; Unverified those it neither proves nor disproves (a crawler it cannot verify,
	// or no verification configured). Impostors' requests (claims it disproves) are never
	// counted as the platform's.
	Verified   int64 `json:"verified"`
	Unverified int64 `json:"unverified"`
	// Referrals are the HTML visits its products referred: browsers' requests (a User-Agent
	// naming no crawler or tool) whose Referer's host is one of the platform's.
	Referrals int64 `json:"referrals"`
	// Ratio is the crawl-to-refer ratio, (Verified + Unverified) / Referrals; null when it
	// referred no visit.
	Ratio *float64 `json:"ratio"`
	// Timeline is the same per bucket of the report's timeline.
	Timeline PlatformTimeline `json:"timeline"`
}

// PlatformTimeline is a platform's counts per bucket of Report.Timeline.
type PlatformTimeline struct {
	Verified   []int64 `json:"verified"`
	Unverified []int64 `json:"unverified"`
	Referrals  []int64 `json:"referrals"`
	// Ratio is, per bucket, the crawl-to-refer ratio; null where it referred no visit.
	Ratio []*float64 `json:"ratio"`
}

// Crawled are the HTML pages its crawlers fetched, verified or not.
func (p *Platform) Crawled() int64 { return p.Verified + p.Unverified }

// fmtRatio writes a ratio as the text and the page show it: "14:1", "2.5:1", "∞" without
// referrals (then the counts say how many pages for none).
func fmtRatio(r *float64) string {
	switch {
	case r == nil:
		return "∞"
	case *r >= 100:
		return strconv.FormatFloat(*r, 'f', 0, 64) + ":1"
	}
	return strconv.FormatFloat(*r, 'f', 1, 64) + ":1"
}

// sinceBucket is the start of bucket i of tl.
func sinceBucket(tl Timeline, i int) time.Time {
	return tl.Start.Add(time.Duration(i) * time.Duration(tl.BucketSeconds) * time.Second)
}
