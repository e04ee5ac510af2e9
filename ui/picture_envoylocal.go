package ui

import "ratelab/algorithms"

func init() { register(algorithms.EnvoyLocal, envoyLocalPicture{}) }

// envoyLocalPicture shows Envoy's bucket with Envoy's names: max_tokens,
// and its fill rate tokens_per_fill per fill_interval, refilled
// continuously (Envoy 1.31 on).
type envoyLocalPicture struct{}

func (envoyLocalPicture) state(st *styles, v laneView, w, n int) []string {
	if s, ok := v.snap.(algorithms.IntervalBucketSnapshot); ok {
		// timer: true, Envoy before 1.31: the lumps of its fill timer.
		return []string{
			gaugeLine(st, fraction(s.Tokens, s.Capacity), itoa(s.Tokens)+" of max_tokens "+itoa(s.Capacity), w),
			first([]string{"fill timer: +" + itoa(s.TokensPerFill) + " at " + v.secs(s.NextFill), "+" + itoa(s.TokensPerFill) + " at " + v.secs(s.NextFill)}, w),
			st.muted.Render("admit if tokens ≥ cost; 429, no Retry-After"),
			st.muted.Render("Envoy before 1.31: one timer from t = 0"),
		}
	}
	s := v.snap.(algorithms.TokenBucketSnapshot)
	full := "full"
	if s.FullAt > s.Now {
		full = "full at " + v.secs(s.FullAt)
	}
	fill := itoa(s.Rate.N) + " per " + v.secs(s.Rate.Per)
	return []string{
		gaugeLine(st, ratio(s.Available, s.Capacity), qty(s.Available)+" of max_tokens "+itoa(s.Capacity), w),
		first([]string{"refill " + fill + ", continuous · " + full, "refill " + fill + " · " + full, full}, w),
		st.muted.Render("admit if tokens ≥ cost; 429, no Retry-After"),
		st.muted.Render("before Envoy 1.31: lumps on a timer"),
	}
}

func (envoyLocalPicture) row(v laneView) (fill float64, numbers string) {
	if s, ok := v.snap.(algorithms.IntervalBucketSnapshot); ok {
		return fraction(s.Tokens, s.Capacity), itoa(s.Tokens) + "/" + itoa(s.Capacity) + " next " + v.secs(s.NextFill)
	}
	s := v.snap.(algorithms.TokenBucketSnapshot)
	return ratio(s.Available, s.Capacity), qty(s.Available) + "/" + itoa(s.Capacity) + " tokens"
}

func (envoyLocalPicture) titles(p algorithms.Policy) []string {
	name, n, fill := string(p.Algorithm), itoa(p.MaxTokens), " "+itoa(p.TokensPerFill)+"/"+secs(p.FillInterval)
	if p.Timer {
		fill += " timer"
	}
	return []string{name + " max " + n + fill, name + " " + n + fill, name + " " + n}
}

func (envoyLocalPicture) glossary(p algorithms.Policy) []string {
	if p.Timer {
		return []string{"envoy-local (timer: true): Envoy's local rate limit before 1.31, a bucket of max_tokens that starts full and gains tokens_per_fill at once on one fill timer from the filter's start, every fill_interval."}
	}
	return []string{"envoy-local: Envoy's local rate limit, a bucket of max_tokens that starts full and, since Envoy 1.31, refills continuously at tokens_per_fill per fill_interval."}
}
