// Package redisrate reads and writes go-redis/redis_rate limits as Go code
// makes them: redis_rate.PerSecond(n), PerMinute(n), PerHour(n) (burst n),
// or a redis_rate.Limit{Rate, Burst, Period} literal. The lane, redis-rate,
// is its GCRA decided exactly (the script's double seconds differ from it
// only at microsecond boundaries, as the lane says).
package redisrate

import (
	"fmt"
	"go/ast"
	"time"

	"ratelab/algorithms"
	"ratelab/products/bucket"
	"ratelab/products/snippet"
)

// constructors are redis_rate's Limit helpers and their periods.
var constructors = []struct {
	name   string
	period time.Duration
}{{"redis_rate.PerSecond", time.Second}, {"redis_rate.PerMinute", time.Minute}, {"redis_rate.PerHour", time.Hour}}

// Marker is what every limit Read reads names.
const Marker = "redis_rate."

// Read finds every limit in src, in order of its kind then place.
func Read(src string) ([]snippet.Found, error) {
	var out []snippet.Found
	for _, c := range constructors {
		calls, err := snippet.Find(src, c.name)
		if err != nil {
			return nil, err
		}
		for _, call := range calls {
			if len(call.Args) != 1 {
				return nil, fmt.Errorf("line %d: %s takes one rate", call.Line, c.name)
			}
			n, err := whole(call.Args[0])
			if err != nil {
				return nil, fmt.Errorf("line %d: %s: %w", call.Line, call.Text, err)
			}
			f, err := found(call.Var, call.Line, n, n, c.period)
			if err != nil {
				return nil, fmt.Errorf("line %d: %s: %w", call.Line, call.Text, err)
			}
			out = append(out, f)
		}
	}
	lits, err := snippet.FindLiterals(src, "redis_rate.Limit", []string{"Rate", "Burst", "Period"})
	if err != nil {
		return nil, err
	}
	for _, l := range lits {
		var v [3]int64
		for i, name := range []string{"Rate", "Burst", "Period"} {
			e, ok := l.Fields[name]
			if !ok {
				return nil, fmt.Errorf("line %d: %s: no %s (redis_rate's zero %s limits everything)", l.Line, l.Text, name, name)
			}
			if v[i], err = whole(e); err != nil {
				return nil, fmt.Errorf("line %d: %s: %s: %w", l.Line, l.Text, name, err)
			}
		}
		f, err := found(l.Var, l.Line, v[0], v[1], time.Duration(v[2]))
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", l.Line, l.Text, err)
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no redis_rate.PerSecond, PerMinute, PerHour or redis_rate.Limit{…}")
	}
	return out, nil
}

// whole evaluates a whole-number argument (a count, or a duration's
// nanoseconds).
func whole(e ast.Expr) (int64, error) {
	v, err := snippet.Eval(e)
	if err != nil {
		return 0, err
	}
	n, ok := v.Int()
	if !ok {
		return 0, fmt.Errorf("%s is not a whole number", v.Num.RatString())
	}
	return n, nil
}

// found is the lane of a limit: rate requests every period, burst at once.
func found(name string, line int, rate, burst int64, period time.Duration) (snippet.Found, error) {
	f := snippet.Found{Var: name, Line: line, Policy: algorithms.Policy{Algorithm: algorithms.RedisRate, Burst: burst, Rate: algorithms.Rate{N: rate, Per: period}}}
	if err := f.Policy.Validate(); err != nil {
		return f, err // a rate of 0 too, before the note divides by it
	}
	if burst != rate {
		f.Notes = append(f.Notes, fmt.Sprintf("burst %d beside rate %d: the GCRA admits %d at once, then one every %s", burst, rate, burst, algorithms.FormatDuration(period/time.Duration(rate))))
	}
	return f, nil
}

// Nearest is the redis_rate limit nearest to p: itself for a redis-rate
// lane; else burst the bucket's size at its rate.
func Nearest(p algorithms.Policy) (algorithms.Policy, []string, error) {
	if p.Algorithm == algorithms.RedisRate {
		return p, nil, p.Validate()
	}
	b, differs, err := bucket.Of(p, "redis_rate")
	if err != nil {
		return algorithms.Policy{}, nil, err
	}
	if b.Delays {
		differs = append(differs, "redis_rate's Allow refuses at once, where this lane makes a request wait")
	}
	q := algorithms.Policy{Algorithm: algorithms.RedisRate, Burst: b.Size, Rate: b.Rate}
	return q, differs, q.Validate()
}

// Write is p, a redis-rate lane, as the Go code that makes its limit and
// asks it.
func Write(name string, p algorithms.Policy) (string, error) {
	if p.Algorithm != algorithms.RedisRate {
		return "", fmt.Errorf("%s is not a redis-rate lane: take Nearest first", p.Algorithm)
	}
	limit := fmt.Sprintf("redis_rate.Limit{Rate: %d, Burst: %d, Period: %s}", p.Rate.N, p.Burst, snippet.GoDuration(int64(p.Rate.Per)))
	for _, c := range constructors {
		if p.Rate.Per == c.period && p.Burst == p.Rate.N {
			limit = fmt.Sprintf("%s(%d)", c.name, p.Rate.N)
		}
	}
	return fmt.Sprintf("// %s: ratelab's lane as go-redis/redis_rate, a key for each client.\nlimit := %s\nres, err := limiter.Allow(ctx, %q+client, limit) // res.Allowed == 0: refuse\n", name, limit, name+":"), nil
}
