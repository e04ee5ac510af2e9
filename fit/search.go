package fit

import (
	"time"

	"ratelab/algorithms"
)

// search looks for the smallest size whose refused share, measured by a
// whole pass of the real limiter, is at most allow parts per million: it
// keeps a size lo that refuses more (or lies below the smallest valid size)
// and a size hi that refuses at most that, and narrows them until they are
// neighbours. It assumes that refusing within the share is monotone in the
// size; where it is not, the answer still refuses within the share and the
// size one less still refuses more, both measured, but a smaller size
// might refuse within it too.
type search struct {
	policy               func(size int64) algorithms.Policy
	min                  int64 // the smallest valid size
	allow                int64 // parts per million
	lo, hi               int64
	hiKnown              bool // hi refuses within the share (else galloping up from lo)
	hiProbed             bool // hi's share was measured, not computed
	loProbed             bool // lo's share was measured
	loRefused, hiRefused int64
	// hiWait is the longest delay the limiter of size hi gave, loFirst
	// the first refusal of size lo's (when measured).
	hiWait  time.Duration
	loFirst time.Duration
	// failed says why no size refuses within the share: the galloping
	// reached an invalid size.
	failed string
	probes []*probe
}

// done reports whether the search has its answer (or failed).
func (s *search) done() bool {
	return s.failed != "" || (s.hiKnown && s.hiProbed && s.hi-s.lo <= 1 && (s.lo < s.min || s.loProbed))
}

// next adds the probes of the search's next pass to ps: hi, if it was not
// measured, and up to three sizes splitting (lo, hi), or when no size is
// known to pass, twice lo.
func (s *search) next(ps []*probe) []*probe {
	s.probes = s.probes[:0]
	add := func(size int64) {
		p := s.policy(size)
		if err := p.Validate(); err != nil {
			s.failed = "no valid size refuses within the share: " + err.Error()
			return
		}
		s.probes = append(s.probes, &probe{policy: p})
	}
	switch {
	case !s.hiKnown:
		add(max(2*s.lo, s.lo+1, s.min))
	default:
		if !s.hiProbed {
			add(s.hi)
		}
		if !s.loProbed && s.lo >= s.min {
			add(s.lo)
		}
		last := s.lo
		for j := int64(1); j <= 3; j++ {
			if size := s.lo + (s.hi-s.lo)*j/4; size > last && size < s.hi && size >= s.min {
				add(size)
				last = size
			}
		}
	}
	if s.failed != "" {
		s.probes = nil
	}
	return append(ps, s.probes...)
}

// settle reads the pass's probes: the smallest size within the share is
// the new hi, the largest size refusing more below it the new lo.
func (s *search) settle(requests int64) {
	for _, p := range s.probes {
		if size := sizeOf(p.policy); mulLE(p.refused, PPM, s.allow, requests) && (!s.hiKnown || size <= s.hi) {
			s.hi, s.hiKnown, s.hiProbed, s.hiRefused, s.hiWait = size, true, true, p.refused, p.longestWait
		}
	}
	for _, p := range s.probes {
		if size := sizeOf(p.policy); size == s.hi && !s.hiProbed && !mulLE(p.refused, PPM, s.allow, requests) {
			// The size believed to pass does not: gallop up from it.
			s.hiKnown, s.lo, s.loProbed, s.loRefused, s.loFirst = false, size, true, p.refused, p.first
		}
	}
	for _, p := range s.probes {
		if size := sizeOf(p.policy); !mulLE(p.refused, PPM, s.allow, requests) && size >= s.lo && (!s.hiKnown || size < s.hi) {
			s.lo, s.loProbed, s.loRefused, s.loFirst = size, true, p.refused, p.first
		}
	}
	if s.hiKnown && s.lo >= s.hi { // refusals not monotone in the size: measure the size below hi
		s.lo, s.loProbed = s.hi-1, false
	}
}

// mulLE reports whether a × b ≤ c × d, for non-negative products below
// 2^63.
func mulLE(a, b, c, d int64) bool { return cmp128(mul128(a, b), mul128(c, d)) <= 0 }

// sizeOf is the size parameter of a policy fit made.
func sizeOf(p algorithms.Policy) int64 { return *sizeField(&p) }

// sizeField is p's size parameter, the one its algorithm's Description
// names Size (capacity, burst, queue, max_burst, limit).
func sizeField(p *algorithms.Policy) *int64 {
	d := algorithms.Describe(p.Algorithm)
	for _, q := range d.Params {
		if q.Name == d.Size {
			return q.CountOf(p)
		}
	}
	panic("fit: " + string(p.Algorithm) + " has no size parameter") // every family has one
}

// maxRounds bounds a search's passes: galloping doubles the size at
// each, up to 2^40, and bisecting quarters the gap.
const maxRounds = 100

// runSearches runs the searches to their end, all of a round's probes in
// one pass over src's requests.
func runSearches(src Source, byKey bool, requests int64, searches []*search) error {
	for round := 0; ; round++ {
		if round == maxRounds {
			for _, s := range searches {
				if !s.done() {
					s.failed = "the search with real runs did not settle"
				}
			}
			return nil
		}
		var ps []*probe
		for _, s := range searches {
			if !s.done() {
				ps = s.next(ps)
			}
		}
		if len(ps) == 0 {
			return nil
		}
		n, err := run(src, byKey, ps)
		if err != nil {
			return err
		}
		if n != requests {
			return changed(requests, n)
		}
		for _, s := range searches {
			if len(s.probes) > 0 {
				s.settle(n)
			}
		}
	}
}
