package logreport

// merge adds o's counts to p's: the section of the lines o read, merged into the section of
// the lines p read, as if p had read them all (Builders reading logs apart, then merged).
func (p *platformsAcc) merge(o *platformsAcc) {
	p.byType += o.byType
	p.byPath += o.byPath
	t, ot := &p.timeline, &o.timeline
	for i, or := range o.rows {
		if or == nil {
			continue
		}
		r := p.row(i)
		r.verified += or.verified
		r.unverified += or.unverified
		r.referrals += or.referrals
		for c := range or.crawlers {
			r.crawlers[c] = true
		}
		for s := range 3 {
			for b, v := range ot.data[or.series+s][:ot.n] {
				if v == 0 {
					continue
				}
				// add places the bucket's start (growing or widening p's timeline as it
				// must), then the rest of its count goes where it went.
				ts := ot.start + int64(b)*ot.width
				t.add(ts, r.series+s)
				t.data[r.series+s][floorDiv(ts-t.start, t.width)] += v - 1
			}
		}
	}
}
