// Package guava reads and writes Guava RateLimiters as Java code makes
// them: RateLimiter.create(permitsPerSecond), asked acquire() (the guava
// lane) or tryAcquire(…) (guava-try, with tryAcquire's timeout), and
// create(permitsPerSecond, warmupPeriod, unit) (guava-warmup). The lanes
// keep Guava's double arithmetic, so a limiter read is exact when the
// lane's double of its rate is the code's, which Read checks.
package guava

import (
	"fmt"
	"go/ast"
	"math/big"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/products/bucket"
	"ratelab/products/snippet"
)

// Constructor is the call Read looks for.
const Constructor = "RateLimiter.create"

// Read finds every RateLimiter.create call in src; the first tryAcquire
// call, if any, says how each is asked.
func Read(src string) ([]snippet.Found, error) {
	calls, err := snippet.Find(src, Constructor)
	if err != nil {
		return nil, err
	}
	if len(calls) == 0 {
		return nil, fmt.Errorf("no %s(permitsPerSecond) call", Constructor)
	}
	try, timeout, err := tryAcquire(src)
	if err != nil {
		return nil, err
	}
	var out []snippet.Found
	for _, c := range calls {
		f, err := limiter(c, try, timeout)
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", c.Line, c.Text, err)
		}
		out = append(out, f)
	}
	return out, nil
}

// tryAcquire reads the first tryAcquire call of src: whether there is one,
// and its timeout (0 without one): tryAcquire(), (permits), (timeout,
// unit), (permits, timeout, unit), (Duration) or (permits, Duration).
func tryAcquire(src string) (bool, time.Duration, error) {
	i := strings.Index(src, ".tryAcquire(")
	if i < 0 {
		return false, 0, nil
	}
	calls, err := snippet.Find(src[i+1:], "tryAcquire")
	if err != nil || len(calls) == 0 {
		return true, 0, err
	}
	args := calls[0].Args
	var vals []snippet.Value
	for _, a := range args {
		v, err := snippet.EvalJava(a)
		if err != nil {
			return true, 0, fmt.Errorf("tryAcquire: %w", err)
		}
		vals = append(vals, v)
	}
	n := len(vals)
	var ns *big.Rat
	switch {
	case n >= 2 && isUnit(args[n-1]): // (…, timeout, unit)
		ns = new(big.Rat).Mul(vals[n-2].Num, vals[n-1].Num)
	case n >= 1 && vals[n-1].Nanos: // (…, Duration)
		ns = vals[n-1].Num
	default:
		return true, 0, nil
	}
	if !ns.IsInt() || !ns.Num().IsInt64() || ns.Sign() < 0 {
		return true, 0, fmt.Errorf("tryAcquire's timeout is not a whole number of nanoseconds")
	}
	return true, time.Duration(ns.Num().Int64()), nil
}

// isUnit reports whether e names a TimeUnit.
func isUnit(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "TimeUnit"
}

// limiter is the lane of one RateLimiter.create(permitsPerSecond) call,
// or of create(permitsPerSecond, warmupPeriod, unit) or (…, Duration),
// the guava-warmup lane (which acquire asks: tryAcquire on a warming
// limiter is said, not modelled).
func limiter(c snippet.Call, try bool, timeout time.Duration) (snippet.Found, error) {
	if len(c.Args) < 1 || len(c.Args) > 3 {
		return snippet.Found{}, fmt.Errorf("RateLimiter.create takes a rate, and a warm-up period")
	}
	v, err := snippet.EvalJava(c.Args[0])
	if err != nil {
		return snippet.Found{}, err
	}
	if v.Num.Sign() <= 0 {
		return snippet.Found{}, fmt.Errorf("IllegalArgumentException: rate must be positive")
	}
	r, ok := snippet.PerSecond(v.Num)
	if !ok || r.Validate() != nil {
		return snippet.Found{}, fmt.Errorf("the rate %s a second has no exact N per duration a lane takes", v.Num.RatString())
	}
	f := snippet.Found{Var: c.Var, Line: c.Line, Policy: algorithms.Policy{Algorithm: algorithms.Guava, Rate: r}}
	if len(c.Args) > 1 {
		warmup, err := warmupOf(c.Args[1:])
		if err != nil {
			return snippet.Found{}, err
		}
		f.Policy.Algorithm, f.Policy.Warmup = algorithms.GuavaWarmup, warmup
		if try {
			f.Notes = append(f.Notes, "the code asks tryAcquire; the guava-warmup lane asks acquire, so it shows the waits tryAcquire would refuse")
		}
	} else if try {
		f.Policy.Algorithm, f.Policy.Timeout = algorithms.GuavaTry, timeout
		f.Notes = append(f.Notes, "the code asks tryAcquire: the guava-try lane, refused unless it can wait at most the timeout")
	}
	if code, lane := v.Float64(), snippet.RateFloat(r); code != lane {
		f.Notes = append(f.Notes, fmt.Sprintf("the code's rate is %v permits a second and the lane's %v: doubles round them apart", code, lane))
	}
	return f, f.Policy.Validate()
}

// warmupOf reads create's warm-up: (period, unit) or (Duration).
func warmupOf(args []ast.Expr) (time.Duration, error) {
	var ns *big.Rat
	switch len(args) {
	case 2:
		n, err := snippet.EvalJava(args[0])
		if err != nil {
			return 0, err
		}
		u, err := snippet.EvalJava(args[1])
		if err != nil || !u.Nanos || !isUnit(args[1]) {
			return 0, fmt.Errorf("the warm-up's unit is not a TimeUnit")
		}
		ns = new(big.Rat).Mul(n.Num, u.Num)
	case 1:
		d, err := snippet.EvalJava(args[0])
		if err != nil || !d.Nanos {
			return 0, fmt.Errorf("the warm-up is not a Duration")
		}
		ns = d.Num
	}
	if ns == nil || !ns.IsInt() || !ns.Num().IsInt64() || ns.Sign() < 0 {
		return 0, fmt.Errorf("IllegalArgumentException: warmupPeriod must not be negative")
	}
	return time.Duration(ns.Num().Int64()), nil
}

// Nearest is the Guava lane nearest to p: itself for a Guava lane; else
// RateLimiter.create at the bucket's rate, asked tryAcquire when p
// refuses, acquire when it makes requests wait; what differs is said
// (Guava stores one second of permits, whatever the bucket's size).
func Nearest(p algorithms.Policy) (algorithms.Policy, []string, error) {
	if p.Algorithm == algorithms.Guava || p.Algorithm == algorithms.GuavaTry || p.Algorithm == algorithms.GuavaWarmup {
		q := p
		q.Rate = snippet.Canonical(p.Rate) // as Write writes it
		var differs []string
		if snippet.RateFloat(q.Rate) != snippet.RateFloat(p.Rate) {
			differs = append(differs, fmt.Sprintf("the rate %s in lowest terms, %s, is %v permits a second as a double, not %v", p.Rate, q.Rate, snippet.RateFloat(q.Rate), snippet.RateFloat(p.Rate)))
		}
		return q, differs, p.Validate()
	}
	b, differs, err := bucket.Of(p, "Guava")
	if err != nil {
		return algorithms.Policy{}, nil, err
	}
	q := algorithms.Policy{Algorithm: algorithms.GuavaTry, Rate: b.Rate}
	if b.Delays {
		q.Algorithm = algorithms.Guava
	}
	perSec := snippet.RateFloat(b.Rate)
	differs = append(differs, fmt.Sprintf("Guava stores at most one second of permits (%v), starting with none, where this lane admits %d at once", perSec, b.Size))
	return q, differs, q.Validate()
}

// Write is p, a Guava lane, as the Java that makes and asks its limiter.
func Write(name string, p algorithms.Policy) (string, error) {
	if p.Algorithm != algorithms.Guava && p.Algorithm != algorithms.GuavaTry && p.Algorithm != algorithms.GuavaWarmup {
		return "", fmt.Errorf("%s is not a Guava lane: take Nearest first", p.Algorithm)
	}
	// The double the lanes make of the rate, N / Per in seconds, written
	// as Java computes it: Duration.Seconds's sec + nsec / 1e9.
	r := snippet.Canonical(p.Rate)
	sec, nsec := int64(r.Per/time.Second), int64(r.Per%time.Second)
	rate := fmt.Sprintf("%d.0 / %d.0", r.N, sec)
	switch {
	case nsec != 0:
		rate = fmt.Sprintf("%d.0 / (%d.0 + %d.0 / 1e9)", r.N, sec, nsec)
	case sec == 1:
		rate = fmt.Sprintf("%d.0", r.N)
	}
	ask := "limiter.acquire(); // waits its turn"
	if p.Algorithm == algorithms.GuavaTry {
		ask = "if (!limiter.tryAcquire()) { /* refuse */ }"
		if p.Timeout > 0 {
			ask = fmt.Sprintf("if (!limiter.tryAcquire(Duration.ofNanos(%d))) { /* refuse */ }", int64(p.Timeout))
		}
	}
	if p.Algorithm == algorithms.GuavaWarmup {
		rate += fmt.Sprintf(", Duration.ofNanos(%d)", int64(p.Warmup))
	}
	return fmt.Sprintf("// %s: ratelab's lane as Guava, one limiter a key.\nRateLimiter limiter = RateLimiter.create(%s);\n%s\n", name, rate, ask), nil
}
