package logreport

// merge adds o's counts to p's: the section of the lines o read, merged into the section of
// the lines p read, as if p had read them all (Builders reading logs apart, then merged).
func (p *platformsAcc) merge(o *platformsAcc) {
	p.byType += o.byType
	p.byPath += o.byPath
	// to maps o's timeline series to p's: a platform's to the platform's.
	to := make([]int, len(o.timeline.data))
	for s := range seriesImpostors + 1 {
		to[s] = s
	}
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
			to[or.series+s] = r.series + s
		}
	}
	p.timeline.merge(&o.timeline, to)
}
