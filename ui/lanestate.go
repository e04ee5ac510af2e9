package ui

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
)

// stateLines draws a lane's limiter state for the clock in n lines (1 to 3)
// of w cells, most telling first: a gauge of the balance or count against
// its bound, then the numbers that move it. Everything comes from the
// lane's Snapshot (and, for the sliding counter, model's exact trailing
// count); the ui only lays the numbers out.
func stateLines(st *styles, v laneView, w, n int) []string {
	var lines []string
	switch s := v.snap.(type) {
	case algorithms.TokenBucketSnapshot:
		lines = tokenBucketLines(st, s, w, n)
	case algorithms.GCRASnapshot:
		lines = gcraLines(st, s, w, n)
	case algorithms.FixedWindowSnapshot:
		lines = fixedWindowLines(st, s, w, n)
	case algorithms.SlidingLogSnapshot:
		lines = slidingLogLines(st, s, w, n)
	case algorithms.SlidingCounterSnapshot:
		lines = slidingCounterLines(st, s, v.exact, w, n)
	case algorithms.LeakyBucketSnapshot:
		lines = leakyBucketLines(st, s, w, n)
	default:
		lines = []string{st.muted.Render("(no picture of this algorithm)")}
	}
	if len(lines) > n {
		lines = lines[:n]
	}
	return lines
}

// gaugeLine is a gauge followed by its numbers, the gauge taking what the
// numbers leave (3 to 24 cells); only the numbers when there is no room.
func gaugeLine(st *styles, frac float64, numbers string, w int) string {
	gw := min(w-ansi.StringWidth(numbers)-3, 24) // 2 for the brackets, 1 space
	if gw < 3 {
		return numbers
	}
	return gauge(st, frac, gw) + " " + numbers
}

// fraction is n / of, how much of a gauge is filled; ratio is the same for
// a Quantity. Both draw, never decide.
func fraction(n, of int64) float64 { return float64(n) / float64(max(of, 1)) }

func ratio(q algorithms.Quantity, of int64) float64 {
	if of <= 0 {
		return 0
	}
	return q.Float64() / float64(of)
}

func tokenBucketLines(st *styles, s algorithms.TokenBucketSnapshot, w, n int) []string {
	bal := gaugeLine(st, ratio(s.Available, s.Capacity), qty(s.Available)+" of "+itoa(s.Capacity)+" tokens", w)
	full := "full"
	if s.FullAt > s.Now {
		full = "full at " + secs(s.FullAt)
	}
	return []string{
		bal,
		"refill " + s.Rate.String() + " · " + full,
		st.muted.Render("admit if tokens ≥ cost; spend cost"),
	}
}

// quantityDuration shows a duration held as a Quantity of nanoseconds.
func quantityDuration(q algorithms.Quantity) string {
	if q.Den <= 0 { // a Quantity with Den ≤ 0 stands for 0
		return "0s"
	}
	if q.Num%q.Den == 0 {
		return secs(time.Duration(q.Num / q.Den))
	}
	return "≈" + algorithms.FormatSeconds(time.Duration(math.Round(q.Float64()/1e6))*time.Millisecond)
}

func gcraLines(st *styles, s algorithms.GCRASnapshot, w, n int) []string {
	bal := gaugeLine(st, ratio(s.Available, s.Burst), qty(s.Available)+" of "+itoa(s.Burst)+" as tokens", w)
	tat := "TAT = now (idle)"
	if s.TAT > s.Now {
		tat = "TAT " + secs(s.TAT) + " = now+" + secs(s.TAT-s.Now)
	}
	tol := "τ = " + itoa(s.Burst) + "×T = " + quantityDuration(s.Tolerance)
	if n == 2 {
		return []string{bal, first([]string{tat + " · τ " + quantityDuration(s.Tolerance), tat}, w)}
	}
	return []string{bal, tat, "T " + quantityDuration(s.Interval) + " · " + tol}
}

func fixedWindowLines(st *styles, s algorithms.FixedWindowSnapshot, w, n int) []string {
	count := gaugeLine(st, fraction(s.Count, s.Limit), itoa(s.Count)+" of "+itoa(s.Limit)+" this window", w)
	window := "[" + secs(s.Start) + ", " + secs(s.End) + ") · " + secs(s.Now-s.Start) + " in"
	prev := "previous window " + itoa(s.Previous)
	if n == 2 {
		return []string{count, window + " · prev " + itoa(s.Previous)}
	}
	return []string{count, window, prev}
}

func slidingLogLines(st *styles, s algorithms.SlidingLogSnapshot, w, n int) []string {
	count := gaugeLine(st, fraction(s.Count, s.Limit), itoa(s.Count)+" of "+itoa(s.Limit)+" in last "+secs(s.Window), w)
	oldest := "log empty"
	short := ""
	if s.Count > 0 {
		oldest = "oldest leaves at " + secs(s.OldestExpiresAt)
		short = " out " + secs(s.OldestExpiresAt)
	}
	if n == 2 {
		return []string{count, logStrip(st, s, w-2-ansi.StringWidth(short)) + short}
	}
	return []string{count, logStrip(st, s, w-2), oldest}
}

func slidingCounterLines(st *styles, s algorithms.SlidingCounterSnapshot, exact int64, w, n int) []string {
	est := gaugeLine(st, ratio(s.Estimate, s.Limit), "est "+qty(s.Estimate)+" of "+itoa(s.Limit), w)
	formula := "= " + itoa(s.Current) + " + " + itoa(s.Previous) + " × " + qty(s.Weight)
	truth := "exact last " + secs(s.Window) + ": " + itoa(exact) + " " + st.muted.Render("(est "+offBy(s.Estimate, exact)+")")
	if n == 2 {
		return []string{est, formula + " · exact " + itoa(exact)}
	}
	return []string{est, formula, truth}
}

// offBy is how far the estimate lies from the exact count: "+0.2", "−1.5",
// "exact". It is for the learner's eye; no decision depends on it.
func offBy(est algorithms.Quantity, exact int64) string {
	d := est.Float64() - float64(exact)
	if math.Abs(d) < 0.0005 {
		return "= exact"
	}
	s := strconv.FormatFloat(math.Abs(d), 'f', 3, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if d < 0 {
		return "−" + s
	}
	return "+" + s
}

func leakyBucketLines(st *styles, s algorithms.LeakyBucketSnapshot, w, n int) []string {
	waiting := int64(len(s.Waiting))
	numbers := itoa(waiting) + " of " + itoa(s.Queue) + " queued"
	queue := numbers
	if sw := w - ansi.StringWidth(numbers) - 1; sw >= 3 {
		queue = slots(st, waiting, s.Queue, min(sw, 24)) + " " + numbers
	}
	releases := "queue empty"
	if waiting > 0 {
		var b strings.Builder
		b.WriteString("out at")
		for i, r := range s.Waiting {
			item := " " + secs(r.At)
			more := " +" + strconv.Itoa(len(s.Waiting)-i)
			if ansi.StringWidth(b.String()+item+more) > w && i < len(s.Waiting)-1 {
				b.WriteString(more)
				break
			}
			b.WriteString(item)
		}
		releases = b.String()
	}
	free := "pipe idle"
	if s.NextFree > s.Now {
		free = "next free " + secs(s.NextFree)
	}
	pace := "pace " + s.Rate.String()
	return []string{queue, releases, first([]string{
		pace + ", 1 per " + quantityDuration(s.Interval) + " · " + free,
		pace + " · " + free,
		free,
	}, w)}
}

// rowState is a lane's state in one short line for the row layout: a gauge
// and "61/120".
func rowState(st *styles, v laneView, w int) string {
	switch s := v.snap.(type) {
	case algorithms.TokenBucketSnapshot:
		return gaugeLine(st, ratio(s.Available, s.Capacity), qty(s.Available)+"/"+itoa(s.Capacity)+" tokens", w)
	case algorithms.GCRASnapshot:
		return gaugeLine(st, ratio(s.Available, s.Burst), qty(s.Available)+"/"+itoa(s.Burst)+" as tokens", w)
	case algorithms.FixedWindowSnapshot:
		return gaugeLine(st, fraction(s.Count, s.Limit), itoa(s.Count)+"/"+itoa(s.Limit)+" window", w)
	case algorithms.SlidingLogSnapshot:
		return gaugeLine(st, fraction(s.Count, s.Limit), itoa(s.Count)+"/"+itoa(s.Limit)+" in "+secs(s.Window), w)
	case algorithms.SlidingCounterSnapshot:
		return gaugeLine(st, ratio(s.Estimate, s.Limit), "est "+qty(s.Estimate)+"/"+itoa(s.Limit), w)
	case algorithms.LeakyBucketSnapshot:
		n := int64(len(s.Waiting))
		return gaugeLine(st, fraction(n, s.Queue), itoa(n)+"/"+itoa(s.Queue)+" queued", w)
	}
	return ""
}
