// Package bucket reads any lane's policy as the bucket every product can
// say: how many requests it admits at once, the rate it admits after, and
// whether it makes a request wait rather than refuse it; with the words
// for what that view leaves out. Products' writers start from it when the
// lane is not their own.
package bucket

import (
	"fmt"
	"time"

	"ratelab/algorithms"
)

// Bucket is a policy as a bucket.
type Bucket struct {
	// Size is how many requests it admits at once, from rest.
	Size int64
	// Rate is how fast it admits after.
	Rate algorithms.Rate
	// Delays says it makes a request wait instead of refusing it.
	Delays bool
}

// Of is p as a bucket, and what that leaves out of p's rule, one line
// each, said of product's bucket (nothing for the token bucket and GCRA,
// which are buckets).
func Of(p algorithms.Policy, product string) (Bucket, []string, error) {
	if err := p.Validate(); err != nil {
		return Bucket{}, nil, err
	}
	var (
		b       Bucket
		differs []string
	)
	switch p.Algorithm {
	case algorithms.TokenBucket, algorithms.FloatTokenBucket, algorithms.WholeTokenBucket:
		b = Bucket{Size: p.Capacity, Rate: p.Rate}
		if p.StartsEmpty {
			differs = append(differs, "this bucket starts empty; "+product+"'s starts full")
		}
	case algorithms.GCRA, algorithms.RedisRate:
		b = Bucket{Size: p.Burst, Rate: p.Rate}
	case algorithms.XTimeRate:
		b = Bucket{Size: p.Burst, Rate: p.Rate}
	case algorithms.XTimeRateReserve:
		b = Bucket{Size: p.Burst, Rate: p.Rate, Delays: true}
	case algorithms.NginxLimitReq:
		b = Bucket{Size: p.Burst + 1, Rate: p.Rate, Delays: !p.NoDelay}
		if !p.NoDelay && p.Delay > 0 {
			differs = append(differs, fmt.Sprintf("nginx passes the first %d at once and delays the rest (delay=%d)", p.Delay+1, p.Delay))
		}
	case algorithms.RedisCell:
		b = Bucket{Size: p.MaxBurst + 1, Rate: algorithms.Rate{N: p.CountPerPeriod, Per: p.Period}}
	case algorithms.EnvoyLocal:
		b = Bucket{Size: p.MaxTokens, Rate: algorithms.Rate{N: p.TokensPerFill, Per: p.FillInterval}}
		if p.Timer {
			// A lump never lifts the balance above max_tokens, so a fill
			// of more adds max_tokens at most: the rate it keeps up.
			b.Rate.N = min(p.TokensPerFill, p.MaxTokens)
			differs = append(differs, "Envoy's timer adds its tokens in lumps each fill interval; "+product+" refills continuously")
		}
	case algorithms.IntervalBucket:
		b = Bucket{Size: p.Capacity, Rate: algorithms.Rate{N: min(p.TokensPerFill, p.Capacity), Per: p.FillInterval}} // as Envoy's timer
		differs = append(differs, "this bucket refills in lumps each fill interval; "+product+" continuously")
	case algorithms.LeakyBucket:
		b = Bucket{Size: p.Queue + 1, Rate: p.Rate, Delays: true}
	case algorithms.FixedWindow, algorithms.SlidingLog, algorithms.SlidingCounter,
		algorithms.AttemptLog, algorithms.CollapsingLog, algorithms.ResettingWindow:
		b = Bucket{Size: p.Limit, Rate: algorithms.Rate{N: p.Limit, Per: p.Window}}
		differs = append(differs, fmt.Sprintf("%s counts up to %d requests a %s window; %s admits %d at once, then one every 1/rate", p.Algorithm, p.Limit, algorithms.FormatDuration(p.Window), product, p.Limit))
	case algorithms.Guava, algorithms.GuavaTry:
		perSec := p.Rate.N * int64(time.Second) / int64(p.Rate.Per)
		b = Bucket{Size: max(perSec, 1), Rate: p.Rate, Delays: p.Algorithm == algorithms.Guava}
		differs = append(differs, "Guava stores up to a second of permits, starting with none, and makes the caller after a large request pay; "+product+" admits its burst at once")
	default:
		return Bucket{}, nil, fmt.Errorf("%s has no bucket form", p.Algorithm)
	}
	return b, differs, nil
}
