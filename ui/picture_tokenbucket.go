package ui

import "ratelab/algorithms"

func init() { register(algorithms.TokenBucket, tokenBucketPicture{}) }

// tokenBucketPicture shows the balance as a gauge that refills smoothly
// while the clock runs, and when the bucket will be full again.
type tokenBucketPicture struct{}

func (tokenBucketPicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.TokenBucketSnapshot)
	full := "full"
	if s.FullAt > s.Now {
		full = "full at " + v.secs(s.FullAt)
	}
	return []string{
		gaugeLine(st, ratio(s.Available, s.Capacity), qty(s.Available)+" of "+itoa(s.Capacity)+" tokens", w),
		"refill " + s.Rate.String() + " · " + full,
		st.muted.Render("admit if tokens ≥ cost; spend cost"),
		st.muted.Render("a rejection spends nothing"),
	}
}

func (tokenBucketPicture) row(v laneView) (fill float64, numbers string) {
	s := v.snap.(algorithms.TokenBucketSnapshot)
	return ratio(s.Available, s.Capacity), qty(s.Available) + "/" + itoa(s.Capacity) + " tokens"
}

func (tokenBucketPicture) titles(p algorithms.Policy) []string {
	t := sizedTitles(p, "cap", p.Capacity)
	if p.StartsEmpty {
		t = append([]string{t[0] + " empty"}, t...)
	}
	return t
}

func (tokenBucketPicture) glossary(p algorithms.Policy) []string {
	words := []string{"token bucket: tokens refill continuously at the rate up to the capacity; a request is admitted when the balance covers its cost, which it then spends. It starts full."}
	if p.StartsEmpty {
		// Its own entry: beside a bucket that starts full (empty-start),
		// the bucket is explained once.
		words = append(words, "starts_empty: a token bucket that starts with no tokens instead, so it refuses a key's first requests until the refill covers their cost.")
	}
	return words
}

// sizedTitles are the titles of a policy with a size and a rate:
// "token-bucket cap 10 @2/s", then "token-bucket 10 @2/s".
func sizedTitles(p algorithms.Policy, word string, size int64) []string {
	name, n, rate := string(p.Algorithm), itoa(size), " @"+p.Rate.String()
	return []string{name + " " + word + " " + n + rate, name + " " + n + rate}
}
