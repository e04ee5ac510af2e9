package fit

import "ratelab/algorithms"

// pointRef is a point of a Result's frontier.
type pointRef struct {
	f *Frontier
	j int
}

func (r pointRef) point() *Point { return &r.f.Points[r.j] }

// policyAt is the frontier's policy of the given size at point j.
func (r pointRef) policyAt(size int64) algorithms.Policy {
	p := r.point()
	return families[r.f.Algorithm].policy(p.Rate, p.Window, size)
}

// confirmation is the probes confirming one point: at its size, at its
// size less one (nil when that is not a valid size), and for a ByKey knee
// the quantile policy's.
type confirmation struct {
	ref                   pointRef
	at, smaller, quantile *probe
}

// confirm runs, in one pass, the real limiters at the points o.Confirm
// names, and records what they did; a point they disagree with is searched
// with real runs.
func confirm(src Source, res *Result, o Options) error {
	var cs []*confirmation
	var ps []*probe
	for i := range res.Frontiers {
		f := &res.Frontiers[i]
		for j := range f.Points {
			if !f.Points[j].Feasible || (o.Confirm == ConfirmKnees && j != f.Knee && !families[f.Algorithm].float) {
				continue
			}
			c := &confirmation{ref: pointRef{f, j}}
			p := c.ref.point()
			c.at = &probe{policy: p.Policy}
			ps = append(ps, c.at)
			if smaller := c.ref.policyAt(p.Size - 1); p.Size > MinSize(f.Algorithm) && smaller.Validate() == nil {
				c.smaller = &probe{policy: smaller}
				ps = append(ps, c.smaller)
			}
			if q := p.Quantile; q != nil && j == f.Knee && len(q.Keys) > 0 {
				c.quantile = watching(f, j, q)
				ps = append(ps, c.quantile)
			}
			cs = append(cs, c)
		}
	}
	if len(ps) == 0 {
		return nil
	}
	n, err := run(src, res.ByKey, ps)
	if err != nil {
		return err
	}
	if n != res.Requests {
		return changed(res.Requests, n)
	}
	var disagreed []*search
	var refs []pointRef
	for _, c := range cs {
		p := c.ref.point()
		p.Confirmation = Confirmation{Ran: true, Refused: c.at.refused, Requests: n, LongestWait: c.at.longestWait}
		if c.smaller != nil {
			p.Confirmation.SmallerValid = true
			p.Confirmation.SmallerRefused = c.smaller.refused
			p.Confirmation.FirstRefusal = c.smaller.first
		}
		if c.quantile != nil {
			p.Quantile.Keys = c.quantile.keys
			p.Quantile.Measured = true
		}
		agrees := c.at.refused == 0 && (c.smaller == nil || c.smaller.refused > 0)
		if agrees {
			p.Confirmation.Confirmed = true
			continue
		}
		disagreed = append(disagreed, researchOf(c))
		refs = append(refs, c.ref)
	}
	if err := runSearches(src, res.ByKey, n, disagreed); err != nil {
		return err
	}
	for i, s := range disagreed {
		settleSearched(refs[i], s, n)
	}
	return nil
}

// watching is the probe of point j's quantile policy, counting the
// refusals of the keys above it.
func watching(f *Frontier, j int, q *Quantile) *probe {
	keys := len(f.KeySizes) / len(f.Points)
	pr := &probe{policy: q.Policy, keys: append([]TopKey(nil), q.Keys...), watch: make([]int32, keys)}
	for id := range pr.watch {
		pr.watch[id] = -1
	}
	for i, k := range q.Keys {
		pr.watch[k.id] = int32(i)
	}
	return pr
}

// researchOf is the search for a point the real limiters disagreed with:
// up from its size if that refused something, else down from its size
// less one, which refused nothing.
func researchOf(c *confirmation) *search {
	p := c.ref.point()
	min := MinSize(c.ref.f.Algorithm)
	s := &search{policy: c.ref.policyAt, min: min, lo: min - 1}
	if c.at.refused > 0 {
		s.lo, s.loProbed, s.loRefused, s.loFirst = p.Size, true, c.at.refused, c.at.first
	} else {
		s.hi, s.hiKnown, s.hiProbed, s.hiWait = p.Size-1, true, true, c.smaller.longestWait
	}
	return s
}

// settleSearched writes what the search with real runs found at a point.
func settleSearched(r pointRef, s *search, requests int64) {
	p := r.point()
	if s.failed != "" {
		*p = Point{Rate: p.Rate, Window: p.Window, Why: s.failed, Confirmation: Confirmation{Ran: true, Searched: true, Requests: requests}}
		r.f.Knee = knee(r.f.Points, r.f.Axis)
		return
	}
	p.Size, p.Policy, p.LongestWait = s.hi, r.policyAt(s.hi), s.hiWait
	p.Confirmation = Confirmation{Ran: true, Confirmed: true, Searched: true, Requests: requests, LongestWait: s.hiWait,
		Refused: s.hiRefused, SmallerValid: s.lo >= s.min, SmallerRefused: s.loRefused, FirstRefusal: s.loFirst}
}

// budgets finds, with real runs, each feasible point's smallest size
// refusing at most o.RejectAtMost of the requests.
func budgets(src Source, res *Result, o Options) error {
	var ss []*search
	var refs []pointRef
	for i := range res.Frontiers {
		f := &res.Frontiers[i]
		for j := range f.Points {
			p := &f.Points[j]
			if !p.Feasible {
				continue
			}
			r := pointRef{f, j}
			min := MinSize(f.Algorithm)
			ss = append(ss, &search{policy: r.policyAt, min: min, allow: o.RejectAtMost, lo: min - 1, hi: p.Size, hiKnown: true})
			refs = append(refs, r)
		}
	}
	if err := runSearches(src, res.ByKey, res.Requests, ss); err != nil {
		return err
	}
	for i, s := range ss {
		if s.failed != "" || !s.hiKnown {
			continue
		}
		refs[i].point().Budget = &Budget{Size: s.hi, Policy: refs[i].policyAt(s.hi), Refused: s.hiRefused,
			SmallerValid: s.lo >= s.min, SmallerRefused: s.loRefused, Requests: res.Requests}
	}
	return nil
}
