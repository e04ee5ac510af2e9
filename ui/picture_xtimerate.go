package ui

import (
	"math"
	"strconv"

	"ratelab/algorithms"
)

func init() {
	register(algorithms.XTimeRate, xtimeratePicture{})
	register(algorithms.XTimeRateReserve, xtimeratePicture{})
}

// xtimeratePicture shows golang.org/x/time/rate's float64 balance: a gauge
// of the tokens against the burst, and for ReserveN the tokens the reserved
// requests owe ("1.5 tokens owed") and until when.
type xtimeratePicture struct{}

// floatCell writes a library's float64 for a lane: exactly when three
// decimals show it, else rounded with "≈" (the why panel shows every digit).
func floatCell(f float64) string {
	r := math.Round(f*1000) / 1000
	s := strconv.FormatFloat(r, 'f', -1, 64)
	if r == 0 {
		s = "0"
	}
	if r != f {
		return "≈" + s
	}
	return s
}

func (xtimeratePicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.XTimeRateSnapshot)
	bal := floatCell(s.Tokens) + " of " + itoa(s.Burst) + " tokens"
	full := "full"
	if s.FullAt > s.Now {
		full = "full at " + v.secs(s.FullAt)
	}
	rule := []string{"AllowN: admit if tokens ≥ n (float64)", "AllowN: tokens ≥ n"}
	last := "a rejection takes nothing"
	if s.Reserve {
		if s.Tokens < 0 {
			bal = owedText(s.Tokens)
			full = "owed until " + v.secs(s.PaidAt)
		}
		rule = []string{"ReserveN: take n now, wait while tokens are owed", "ReserveN: wait out what is owed"}
		last = "waits as long as it takes"
		if s.MaxWait > 0 {
			last = "refuses a wait over " + v.secs(s.MaxWait)
		}
	}
	lines := []string{
		gaugeLine(st, math.Max(s.Tokens, 0)/float64(max(s.Burst, 1)), bal, w),
		first([]string{"refill " + s.Rate.String() + " · " + full, full}, w),
		st.muted.Render(first(rule, w)),
		st.muted.Render(last),
	}
	if n == 2 {
		return lines[:2]
	}
	return lines
}

func (xtimeratePicture) row(v laneView) (fill float64, numbers string) {
	s := v.snap.(algorithms.XTimeRateSnapshot)
	fill = s.Tokens / float64(max(s.Burst, 1)) // below 0 while tokens are owed
	if s.Tokens < 0 {
		return fill, owedText(s.Tokens)
	}
	return fill, floatCell(s.Tokens) + "/" + itoa(s.Burst) + " tokens"
}

// canOwe: ReserveN takes tokens the balance does not hold; AllowN never.
func (xtimeratePicture) canOwe(p algorithms.Policy) bool {
	return p.Algorithm == algorithms.XTimeRateReserve
}

// full: the burst, as row divides the balance by it.
func (xtimeratePicture) full(p algorithms.Policy) float64 { return float64(max(p.Burst, 1)) }

// owedText is a reservation's negative balance in one wording wherever a
// lane shows it: "1.5 tokens owed" (the callers already told to wait have
// taken them ahead of the refill).
func owedText(tokens float64) string {
	n := floatCell(-tokens)
	if n == "1" {
		return "1 token owed"
	}
	return n + " tokens owed"
}

func (xtimeratePicture) titles(p algorithms.Policy) []string {
	t := sizedTitles(p, "burst", p.Burst)
	if p.MaxWait > 0 {
		t = append([]string{t[0] + " wait≤" + algorithms.FormatDuration(p.MaxWait)}, t...)
	}
	return t
}

func (xtimeratePicture) glossary(p algorithms.Policy) []string {
	words := []string{"x/time/rate: Go's golang.org/x/time/rate Limiter, the real library run on the virtual clock: a token bucket starting full whose balance is a float64, refilled at rate.Limit = N ÷ the period in seconds."}
	if p.Algorithm != algorithms.XTimeRateReserve {
		return append(words, "x/time/rate AllowN: admits n iff the balance covers it, else refuses, taking nothing; the lane's retry is what a Reservation would say.")
	}
	words = append(words, "x/time/rate ReserveN: takes n ≤ burst whatever the balance, which may go negative (tokens owed), and the request waits until the refill makes them up: a shaper with no bound on its queue.")
	if p.MaxWait > 0 {
		words = append(words, "x/time/rate max_wait: refuses, changing nothing, a reservation that would wait longer, as WaitN with a context deadline does.")
	}
	return words
}
