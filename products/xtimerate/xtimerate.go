// Package xtimerate reads and writes golang.org/x/time/rate limiters as
// Go code constructs them: rate.NewLimiter(r, b), r a number of events a
// second (rate.Limit(x), or rate.Every(interval)). The lanes are the real
// library (x-time-rate, asked AllowN; x-time-rate-reserve when the code
// waits or reserves), so a limiter read is decided exactly when the lane's
// float64 limit is the one the code makes, which Read checks.
package xtimerate

import (
	"fmt"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"ratelab/algorithms"
	"ratelab/products/bucket"
	"ratelab/products/snippet"
)

// Constructor is the call Read looks for.
const Constructor = "rate.NewLimiter"

// Read finds every rate.NewLimiter call in src.
func Read(src string) ([]snippet.Found, error) {
	calls, err := snippet.Find(src, Constructor)
	if err != nil {
		return nil, err
	}
	if len(calls) == 0 {
		return nil, fmt.Errorf("no %s(r, b) call", Constructor)
	}
	waits := strings.Contains(src, ".Wait(") || strings.Contains(src, ".WaitN(") || strings.Contains(src, ".Reserve(") || strings.Contains(src, ".ReserveN(")
	var out []snippet.Found
	for _, c := range calls {
		f, err := limiter(c, waits)
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", c.Line, c.Text, err)
		}
		out = append(out, f)
	}
	return out, nil
}

// limiter is the lane of one rate.NewLimiter(r, b) call.
func limiter(c snippet.Call, waits bool) (snippet.Found, error) {
	if len(c.Args) != 2 {
		return snippet.Found{}, fmt.Errorf("rate.NewLimiter takes a rate and a burst")
	}
	r, err := snippet.Eval(c.Args[0])
	if err != nil {
		return snippet.Found{}, err
	}
	b, err := snippet.Eval(c.Args[1])
	if err != nil {
		return snippet.Found{}, err
	}
	burst, ok := b.Int()
	if !ok || burst < 0 {
		return snippet.Found{}, fmt.Errorf("the burst is not a whole number of 0 or more")
	}
	if r.Inf {
		return snippet.Found{}, fmt.Errorf("rate.Inf allows every event: there is nothing to limit")
	}
	if r.Num.Sign() <= 0 {
		return snippet.Found{}, fmt.Errorf("a rate of 0 or less admits only the burst, once: ratelab's lanes take a positive rate")
	}
	lr, ok := laneRate(r)
	if !ok {
		return snippet.Found{}, fmt.Errorf("the rate %s a second has no exact N per duration a lane takes", r.Num.RatString())
	}
	f := snippet.Found{Var: c.Var, Line: c.Line, Policy: algorithms.Policy{Algorithm: algorithms.XTimeRate, Burst: burst, Rate: lr}}
	if waits {
		f.Policy.Algorithm = algorithms.XTimeRateReserve
		f.Notes = append(f.Notes, "the code waits or reserves (Wait, Reserve): the lane asks ReserveN, and a Wait's deadline is not read (give the lane max_wait)")
	}
	if err := f.Policy.Validate(); err != nil {
		return snippet.Found{}, err
	}
	if lib, lane := libraryLimit(r), LaneLimit(lr); lib != lane {
		f.Notes = append(f.Notes, fmt.Sprintf("the code's limit is %v events a second and the lane's %v: float64 rounds them apart", float64(lib), float64(lane)))
	}
	return f, nil
}

// laneRate is r events a second as N per duration: 1 per the interval for
// rate.Every, else the fraction in canonical form (snippet.Canonical).
func laneRate(r snippet.Value) (algorithms.Rate, bool) {
	if r.Every > 0 {
		return algorithms.Rate{N: 1, Per: time.Duration(r.Every)}, true
	}
	rate, ok := snippet.PerSecond(r.Num)
	return rate, ok && rate.Validate() == nil
}

// libraryLimit is the rate.Limit the code makes of r.
func libraryLimit(r snippet.Value) rate.Limit {
	if r.Every > 0 {
		return rate.Every(time.Duration(r.Every))
	}
	return rate.Limit(r.Float64()) // the program's own float64
}

// LaneLimit is the rate.Limit the lanes make of a rate, as
// algorithms.XTimeRate says: N / Per in seconds.
func LaneLimit(r algorithms.Rate) rate.Limit { return rate.Limit(snippet.RateFloat(r)) }

// Nearest is the x/time/rate lane nearest to p: itself for an x/time/rate
// lane (its rate in lowest terms, as Write writes it, said when float64
// rounds that apart); else a limiter of burst the bucket's size at its
// rate (AllowN, or ReserveN when p delays), with what differs.
func Nearest(p algorithms.Policy) (algorithms.Policy, []string, error) {
	if p.Algorithm == algorithms.XTimeRate || p.Algorithm == algorithms.XTimeRateReserve {
		q := p
		q.Rate = snippet.Canonical(p.Rate)
		var differs []string
		if LaneLimit(q.Rate) != LaneLimit(p.Rate) {
			differs = append(differs, fmt.Sprintf("the rate %s in lowest terms, %s, is %v events a second in float64, not %v", p.Rate, q.Rate, float64(LaneLimit(q.Rate)), float64(LaneLimit(p.Rate))))
		}
		return q, differs, p.Validate()
	}
	b, differs, err := bucket.Of(p, "x/time/rate")
	if err != nil {
		return algorithms.Policy{}, nil, err
	}
	q := algorithms.Policy{Algorithm: algorithms.XTimeRate, Burst: b.Size, Rate: b.Rate}
	if b.Delays {
		q.Algorithm = algorithms.XTimeRateReserve
	}
	differs = append(differs, "x/time/rate keeps its tokens in float64 and its clock in nanoseconds")
	return q, differs, q.Validate()
}

// Write is p, an x/time/rate lane, as the Go code that makes its limiter,
// and how the code asks it.
func Write(name string, p algorithms.Policy) (string, error) {
	if p.Algorithm != algorithms.XTimeRate && p.Algorithm != algorithms.XTimeRateReserve {
		return "", fmt.Errorf("%s is not an x/time/rate lane: take Nearest first", p.Algorithm)
	}
	p.Rate = snippet.Canonical(p.Rate)
	var r string
	switch {
	case p.Rate.N == 1:
		r = "rate.Every(" + snippet.GoDuration(int64(p.Rate.Per)) + ")"
	case p.Rate.Per == time.Second:
		r = fmt.Sprint(p.Rate.N)
	default:
		r = fmt.Sprintf("rate.Limit(float64(%d) / (%s).Seconds())", p.Rate.N, snippet.GoDuration(int64(p.Rate.Per)))
	}
	ask := "if !limiter.Allow() { /* refuse */ }"
	if p.Algorithm == algorithms.XTimeRateReserve {
		ask = "r := limiter.Reserve(); time.Sleep(r.Delay()) // a wait"
		if p.MaxWait > 0 {
			ask = fmt.Sprintf("ctx, cancel := context.WithTimeout(ctx, %s); err := limiter.Wait(ctx); cancel()", snippet.GoDuration(int64(p.MaxWait)))
		}
	}
	return fmt.Sprintf("// %s: ratelab's lane as golang.org/x/time/rate, one limiter a key.\nlimiter := rate.NewLimiter(%s, %d)\n%s\n", name, r, p.Burst, ask), nil
}
