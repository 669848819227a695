package logreport

import "time"

// merge adds what o counted to b, exactly: the report of b after it is the report of the
// lines both read, whatever lines each read. Counts add, first and last times are the
// earliest and the latest, bounded tables keep the keys of the smallest rank, examples the
// first by log name and line, and the timeline is the one all the events make (its width and
// start depend on the set of events only). ReadLogs merges its workers' Builders with it.
//
// A field added to what a Builder counts must be merged here (or in the merge of its
// struct): TestMergeEveryField fails otherwise.
func (b *Builder) merge(o *Builder) {
	if b.rep.Totals.Requests == 0 || (o.rep.Totals.Requests > 0 && o.rep.Range.First.Before(b.rep.Range.First)) {
		b.rep.Range.First = o.rep.Range.First
	}
	if o.rep.Range.Last.After(b.rep.Range.Last) {
		b.rep.Range.Last = o.rep.Range.Last
	}
	b.rep.Totals.merge(&o.rep.Totals)
	b.rep.Unreadable.Count += o.rep.Unreadable.Count
	for _, ex := range o.rep.Unreadable.Examples {
		b.rep.Unreadable.Examples = addExample(b.rep.Unreadable.Examples, ex)
	}
	// series maps o's timeline series to b's: the fixed ones to themselves, a row's to the
	// row's.
	series := make([]int, len(o.timeline.data))
	for s := range seriesImpostors + 1 {
		series[s] = s
	}
	for k, oc := range o.byID {
		c := b.byID[k]
		if c == nil {
			out := *oc.out
			out.Statuses = map[string]int64{}
			out.Requests, out.Bytes, out.Verified, out.RobotsTxt, out.Violations = 0, 0, 0, RobotsFetches{}, Violations{}
			out.PaymentRequired, out.Paid = 0, 0
			c = b.newCrawler(k, &out, oc.tool)
		}
		c.merge(oc)
		series[oc.series] = c.series
	}
	for k, oi := range o.impostors {
		im := b.impostors[k]
		if im == nil {
			out := *oi.out
			out.Requests, out.Bytes, out.Disallowed = 0, 0, 0
			im = &impostorAcc{out: &out, statuses: map[int]int64{}}
			b.impostors[k] = im
		}
		im.merge(oi)
	}
	b.timeline.merge(&o.timeline, series)
	b.platforms.merge(&o.platforms)
}

// merge adds the totals o to t.
func (t *Totals) merge(o *Totals) {
	t.Requests += o.Requests
	t.Bytes = addSat(t.Bytes, o.Bytes)
	t.CrawlerRequests += o.CrawlerRequests
	t.CrawlerBytes = addSat(t.CrawlerBytes, o.CrawlerBytes)
	t.ToolRequests += o.ToolRequests
	t.ToolBytes = addSat(t.ToolBytes, o.ToolBytes)
	t.OtherRequests += o.OtherRequests
	t.OtherBytes = addSat(t.OtherBytes, o.OtherBytes)
	t.Violations += o.Violations
	t.Impostors += o.Impostors
	t.ImpostorBytes = addSat(t.ImpostorBytes, o.ImpostorBytes)
	t.OtherHosts += o.OtherHosts
	t.PaymentRequired += o.PaymentRequired
	t.Paid += o.Paid
}

// merge adds what o counted of the same row to c.
func (c *crawlerAcc) merge(o *crawlerAcc) {
	c.out.Requests += o.out.Requests
	c.out.Bytes = addSat(c.out.Bytes, o.out.Bytes)
	c.out.Verified += o.out.Verified
	c.out.RobotsTxt.merge(&o.out.RobotsTxt)
	c.out.Violations.Count += o.out.Violations.Count
	c.out.PaymentRequired += o.out.PaymentRequired
	c.out.Paid += o.out.Paid
	for s, n := range o.statuses {
		c.statuses[s] += n
	}
	c.paths.merge(&o.paths)
	c.violations.merge(&o.violations)
}

// merge adds the fetches o to f.
func (f *RobotsFetches) merge(o *RobotsFetches) {
	f.Fetches += o.Fetches
	if o.First != nil && (f.First == nil || o.First.Before(*f.First)) {
		f.First = ptr(*o.First)
	}
	if o.Last != nil && (f.Last == nil || o.Last.After(*f.Last)) {
		f.Last = ptr(*o.Last)
	}
}

func ptr(t time.Time) *time.Time { return &t }

// merge adds what o counted of the same impostors to im.
func (im *impostorAcc) merge(o *impostorAcc) {
	out, oo := im.out, o.out
	if out.Requests == 0 || oo.First.Before(out.First) {
		out.First = oo.First
	}
	if out.Requests == 0 || oo.Last.After(out.Last) {
		out.Last = oo.Last
	}
	out.Requests += oo.Requests
	out.Bytes = addSat(out.Bytes, oo.Bytes)
	out.Disallowed += oo.Disallowed
	for s, n := range o.statuses {
		im.statuses[s] += n
	}
}

// merge adds the counts of o to c: a key in the smallest ranks of both is counted exactly in
// each, so in the sum; any other is other's in one of them at least, and so in the sum.
func (c *counter) merge(o *counter) {
	if c.n == nil {
		c.n = map[string]*int64{}
	}
	for k, n := range o.n {
		c.addN(k, *n)
	}
	c.other += o.other
}

// merge adds the rows of o to t, as counter's merge does.
func (t *violationTable) merge(o *violationTable) {
	for k, row := range o.rows {
		t.add(k, *row)
	}
	t.other += o.other
}

// merge adds the events of o to t, whose series to[s] is o's series s. o's buckets are
// whole buckets of t once t is at least as wide, since widths are a minute doubled and
// buckets aligned to their width: each is added as its count of events at its start, which
// falls where its events would.
func (t *timeline) merge(o *timeline, to []int) {
	if o.n == 0 {
		return
	}
	for t.width < o.width {
		if t.n == 0 {
			t.width = o.width
			break
		}
		t.coarsen()
	}
	for i := range o.n {
		ts := o.start + int64(i)*o.width
		for s, d := range o.data {
			if d[i] != 0 {
				t.addN(ts, to[s], d[i])
			}
		}
	}
}
