package algorithms

import (
	"fmt"
	"strconv"
	"time"
)

// RedisRate: go-redis/redis_rate's AllowN (v10), a GCRA run as a Lua script
// in Redis. Limit{Rate, Burst, Period}: emission_interval T = Period/Rate,
// burst_offset = Burst × T; new_tat = max(tat, now) + c × T, allow_at =
// new_tat − burst_offset; admitted iff now ≥ allow_at (diff = now −
// allow_at ≥ 0), then tat = new_tat. Burst N admits N at once, exactly the
// textbook GCRA of burst N. RetryAfter: allow_at − now. The script computes
// in double seconds with Redis' TIME (microseconds, seconds since 2017) and
// stores the TAT as a string of 14 significant digits; on the virtual clock
// this lane takes the virtual time and decides exactly, which differs from
// the script only by those roundings, at microsecond boundaries.
const RedisRate Algorithm = "redis-rate"

func init() {
	// A GCRA's parameters, bounds and horizon (sizedDescription), with
	// redis_rate's order (Limit{Rate, Burst}) and words.
	d := sizedDescription(BurstParam, Description{
		Algorithm: RedisRate,
		explain:   explainRedisRate,
		Family:    Library,
		Source:    "go-redis/redis_rate lua.go (allowN) and rate.go (Limit, AllowN)",
		Rule:      "T = period/rate; new_tat = max(tat, now) + c×T; admitted iff now ≥ new_tat − burst×T, then tat = new_tat (burst N admits N)",
		Words: func(p Policy) string {
			return "redis_rate: " + strconv.FormatInt(p.Rate.N, 10) + " per " + FormatSeconds(p.Rate.Per) + ", burst " + strconv.FormatInt(p.Burst, 10) +
				" (admits " + strconv.FormatInt(p.Burst, 10) + " at once)"
		},
		CostBound: func(p Policy) string { return fmt.Sprintf("its burst is %d, the most it admits at once", p.Burst) },
		Examples: []Example{
			{Name: "rrate", Policy: Policy{Algorithm: RedisRate, Rate: Rate{N: 2, Per: time.Second}, Burst: 10}},
		},
		Edges: []Policy{
			{Algorithm: RedisRate, Burst: 1, Rate: Rate{N: 7, Per: time.Second}},
			{Algorithm: RedisRate, Burst: 3, Rate: Rate{N: 3, Per: 700 * time.Millisecond}},
			{Algorithm: RedisRate, Burst: 100, Rate: Rate{N: 100, Per: time.Minute}},
		},
		new:   func(p Policy, ks *Keys) Limiter { return newKeyed[gcraState](redisRate(p), ks) },
		State: gcraForm, // the GCRA's: redisRate is one, renamed
	})
	d.Params = []Param{RateParam, BurstParam}
	d.Line = func(p Policy) string { return fmt.Sprintf("%s rate %s, burst %d", p.Algorithm, p.Rate, p.Burst) }
	register(d)
}

// redisRate is the textbook GCRA of the same burst and rate, with
// redis_rate's names and why text.
func redisRate(p Policy) *renamed[gcraState] {
	return &renamed[gcraState]{p: p, alg: newGCRA(Policy{Algorithm: GCRA, Burst: p.Burst, Rate: p.Rate}), explain: explainRedisRate}
}

// rateReply is what redis_rate's AllowN returns for the decision d of a
// redis-rate lane, on the grid of 1/N ns: remaining = diff / T (Redis
// truncates the Lua number to an integer), retry_after = −diff for a
// rejection (−1 when admitted), reset_after = new_tat − now when admitted,
// tat − now when not.
type rateReply struct {
	allowed, remaining int64
	retry, reset       instant // retry is meaningless when allowed
}

func rateReplyOf(d *Decision) rateReply {
	p := d.policy
	per, n := int64(p.Rate.Per), p.Rate.N
	tat, eff := instant{d.v[0], d.v[1]}, time.Duration(d.v[2])
	t := at(eff)
	base := max2(tat, t)
	allowAt := base.sub((p.Burst-d.Cost)*per, n)
	if d.Outcome == Allowed {
		return rateReply{allowed: d.Cost, remaining: t.minus(allowAt, n).scaled(n) / per, reset: allowAt.add(p.Burst*per, n).minus(t, n)}
	}
	r := rateReply{retry: allowAt.minus(t, n)}
	if t.before(tat) {
		r.reset = tat.minus(t, n)
	}
	return r
}

// explainRedisRate: v as GCRA's, {TAT before (ns, frac), time decided at}.
func explainRedisRate(b []byte, d Decision) []byte {
	p := d.policy
	per, n := int64(p.Rate.Per), p.Rate.N
	tat, eff := instant{d.v[0], d.v[1]}, time.Duration(d.v[2])
	allowAt := max2(tat, at(eff)).sub((p.Burst-d.Cost)*per, n)
	b = appendf(b, d.times, "%semission_interval T = %s/%d = %s; allow_at = max(tat %s, now %s) + %d×T − burst %d×T = %s",
		lateNote(&d, eff), secs(p.Rate.Per), n, gridSecs(per, n), instSecs{tat, n}, secs(eff), d.Cost, p.Burst, instSecs{allowAt, n})
	r := rateReplyOf(&d)
	if d.Outcome == Allowed {
		return appendf(b, d.times, " ≤ now → allowed; Result{Allowed %d, Remaining %d, RetryAfter -1, ResetAfter %s} (burst %d admits %d at once; redis_rate lua.go)",
			r.allowed, r.remaining, instSecs{r.reset, n}, p.Burst, p.Burst)
	}
	return appendf(b, d.times, " > now → rejected; retry after %s; Result{Allowed 0, Remaining 0, RetryAfter %s, ResetAfter %s} (redis_rate lua.go)",
		retryFrom(&d, eff), instSecs{r.retry, n}, instSecs{r.reset, n})
}
