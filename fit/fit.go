package fit

import (
	"cmp"
	"fmt"
	"slices"

	"ratelab/algorithms"
)

// Fit finds, for the traffic src, each algorithm's smallest policy that
// refuses no request, at every point of its grid (see Result, Frontier,
// Point).
//
// It reads src in whole passes, never keeping the requests: one to learn
// the traffic's span, rates and keys and to check its order (the grids are
// chosen from it), unless Options.Survey brings that; one computing every
// algorithm's answer at every point, in the algorithm's own integer
// arithmetic; one running the real limiters
// (algorithms.New) at the answers to confirm (Options.Confirm) and at those
// sizes less one, together with, for a ByKey fit, the quantile policy at
// each knee; then, only if a confirmation disagreed or
// Options.RejectAtMost is positive, a few passes of bisection with real
// limiters. An empty traffic gives frontiers with no points.
func Fit(src Source, o Options) (*Result, error) {
	o, err := o.normalised()
	if err != nil {
		return nil, err
	}
	var sv survey
	if o.Survey != nil {
		sv, err = o.Survey.result()
	} else {
		sv, err = surveyPass(src, o.ByKey)
	}
	if err != nil {
		return nil, err
	}
	res := &Result{Requests: sv.requests, Cost: sv.cost, Keys: sv.keys, First: sv.first, Last: sv.last,
		ByKey: o.ByKey, KeyShare: o.KeyShare, RejectAtMost: o.RejectAtMost}
	var g *grid
	if sv.requests > 0 {
		g = newGrid(rateGrid(sv, o.Rates), windowGrid(sv, o.Windows), o.Algorithms)
	} else {
		g = newGrid(nil, nil, o.Algorithms)
	}
	keys, err := g.trackPass(src, o.ByKey)
	if err != nil {
		return nil, err
	}
	var n int64
	for _, k := range keys {
		n += k.requests
	}
	if n != sv.requests {
		return nil, changed(sv.requests, n)
	}
	if o.ByKey {
		res.PerKey = make([]KeyTraffic, len(keys))
		for k, kt := range keys {
			res.PerKey[k] = KeyTraffic{Key: kt.name, Requests: kt.requests}
		}
	}
	for _, a := range o.Algorithms {
		res.Frontiers = append(res.Frontiers, frontierOf(families[a], g, keys, res.PerKey, o))
	}
	keys = nil // read: free for the real limiters' states
	if err := confirm(src, res, o); err != nil {
		return nil, err
	}
	if o.RejectAtMost > 0 {
		if err := budgets(src, res, o); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// frontierOf reads family f's answers off the keys' tracks.
func frontierOf(f family, g *grid, keys []*keyTracks, perKey []KeyTraffic, o Options) Frontier {
	fr := Frontier{Algorithm: f.alg, Axis: f.axis, SizeName: f.sizeName}
	var at []int // the grid index of each point
	if f.axis == ByWindow {
		for i, w := range g.windows {
			fr.Points = append(fr.Points, Point{Window: w})
			at = append(at, i)
		}
	} else {
		for i, r := range g.rates {
			if f.takes(r) {
				fr.Points = append(fr.Points, Point{Rate: r})
				at = append(at, i)
			}
		}
	}
	n := len(fr.Points)
	var scratch []int64 // the quantile's sorted sizes, one point at a time
	if o.ByKey {
		fr.KeySizes = make([]int64, len(keys)*n)
		scratch = make([]int64, len(keys))
	}
	for j := range fr.Points {
		p := &fr.Points[j]
		feasible := len(keys) > 0
		for k, kt := range keys {
			size, wait, ok := f.need(kt, g, at[j])
			if !ok {
				feasible = false
				continue
			}
			size = max(size, MinSize(f.alg))
			p.Size = max(p.Size, size)
			p.LongestWait = max(p.LongestWait, wait)
			if o.ByKey {
				fr.KeySizes[k*n+j] = size
			}
		}
		p.Policy = f.policy(p.Rate, p.Window, p.Size)
		if err := p.Policy.Validate(); err != nil || !feasible {
			p.Why = "no valid policy refuses nothing: the size it needs passes the bounds of exact arithmetic (size ≤ 2^40, size × period ≤ 2^62 ns)"
			if err != nil && feasible {
				p.Why = "no valid policy refuses nothing: " + err.Error()
			}
			p.Size, p.LongestWait, p.Policy = 0, 0, algorithms.Policy{}
			if o.ByKey {
				for k := range keys {
					fr.KeySizes[k*n+j] = 0
				}
			}
			continue
		}
		p.Feasible = true
		if o.ByKey {
			p.Quantile = quantileOf(f, &fr, j, perKey, o.KeyShare, scratch)
		}
	}
	fr.Knee = knee(fr.Points, fr.Axis)
	return fr
}

// quantileOf is the KeyShare quantile of the keys' sizes at point j of
// fr: the smallest size s such that at least share ppm of the keys need at
// most s, and the keys needing more, largest need first (ties in the order
// keys first appear). sizes is room for the keys' sizes.
func quantileOf(f family, fr *Frontier, j int, perKey []KeyTraffic, share int64, sizes []int64) *Quantile {
	for k := range perKey {
		sizes[k] = fr.KeySize(k, j)
	}
	slices.Sort(sizes)
	// The smallest count c of keys with c × 10^6 ≥ share × keys; the c-th
	// smallest size.
	c := max(1, ceilDiv(share*int64(len(perKey)), PPM))
	p := &fr.Points[j]
	q := &Quantile{Size: sizes[c-1]}
	q.Policy = f.policy(p.Rate, p.Window, q.Size)
	for k, kt := range perKey {
		if size := fr.KeySize(k, j); size > q.Size {
			q.Keys = append(q.Keys, TopKey{Key: kt.Key, Requests: kt.Requests, Size: size, id: k})
		}
	}
	slices.SortStableFunc(q.Keys, func(a, b TopKey) int { return cmp.Compare(b.Size, a.Size) })
	return q
}

// changed is the error of a source whose passes differ.
func changed(first, now int64) error {
	return fmt.Errorf("fit: the source gave %d requests on its first pass and %d on a later one: every pass must give the same", first, now)
}
