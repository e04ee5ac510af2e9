package fit

import "math/big"

// knee is the index of the frontier's knee among points (see
// Frontier.Knee), −1 if none is feasible. It is computed in exact
// rationals: x is the rate in requests per ns (or the window in ns), y the
// size, each scaled to [0, 1] between its smallest and largest value over
// the feasible points; the knee is the feasible point farthest from the
// line joining the first feasible point to the last, the earliest on a
// tie, or when every point lies on that line, the earliest of the smallest
// size.
func knee(points []Point, axis Axis) int {
	var idx []int
	for i, p := range points {
		if p.Feasible {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return -1
	}
	xs := make([]*big.Rat, len(idx))
	ys := make([]*big.Rat, len(idx))
	for j, i := range idx {
		xs[j] = xOf(points[i], axis)
		ys[j] = new(big.Rat).SetInt64(points[i].Size)
	}
	scale(xs)
	scale(ys)
	// |cross(B − A, P − A)| is the distance from P to the line AB times
	// |B − A|, the same for every P: compare it alone.
	a, b := len(idx)-1, 0
	dx := new(big.Rat).Sub(xs[a], xs[b])
	dy := new(big.Rat).Sub(ys[a], ys[b])
	best, bestDist := -1, new(big.Rat)
	for j := range idx {
		px := new(big.Rat).Sub(xs[j], xs[b])
		py := new(big.Rat).Sub(ys[j], ys[b])
		d := new(big.Rat).Sub(new(big.Rat).Mul(dx, py), new(big.Rat).Mul(dy, px))
		d.Abs(d)
		if d.Cmp(bestDist) > 0 {
			best, bestDist = j, d
		}
	}
	if best >= 0 {
		return idx[best]
	}
	smallest := idx[0]
	for _, i := range idx {
		if points[i].Size < points[smallest].Size {
			smallest = i
		}
	}
	return smallest
}

// xOf is a point's place on its axis: the rate N/Per, or the window.
func xOf(p Point, axis Axis) *big.Rat {
	if axis == ByWindow {
		return new(big.Rat).SetInt64(int64(p.Window))
	}
	return big.NewRat(p.Rate.N, int64(p.Rate.Per))
}

// scale maps vs onto [0, 1] between their smallest and largest value (all
// to 0 if they are equal).
func scale(vs []*big.Rat) {
	lo, hi := vs[0], vs[0]
	for _, v := range vs {
		if v.Cmp(lo) < 0 {
			lo = v
		}
		if v.Cmp(hi) > 0 {
			hi = v
		}
	}
	span := new(big.Rat).Sub(hi, lo)
	lo = new(big.Rat).Set(lo)
	for i, v := range vs {
		d := new(big.Rat).Sub(v, lo)
		if span.Sign() != 0 {
			d.Quo(d, span)
		}
		vs[i] = d
	}
}
