package ui

import "ratelab/algorithms"

func init() { register(algorithms.IntervalBucket, intervalBucketPicture{}) }

// intervalBucketPicture shows a bucket refilled in lumps: its whole tokens,
// when the next lump comes, and that nothing refills in between.
type intervalBucketPicture struct{}

func (intervalBucketPicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.IntervalBucketSnapshot)
	full := "full"
	if s.FullAt > s.Now {
		full = "full at " + v.secs(s.FullAt)
	}
	lump := "+" + itoa(s.TokensPerFill) + " every " + v.secs(s.FillInterval)
	return []string{
		gaugeLine(st, fraction(s.Tokens, s.Capacity), itoa(s.Tokens)+" of "+itoa(s.Capacity)+" tokens", w),
		first([]string{lump + " · next +" + itoa(s.TokensPerFill) + " at " + v.secs(s.NextFill), "next +" + itoa(s.TokensPerFill) + " at " + v.secs(s.NextFill)}, w),
		full,
		st.muted.Render("nothing refills between fills"),
		st.muted.Render("admit if tokens ≥ cost; spend cost"),
	}
}

func (intervalBucketPicture) row(v laneView) (fill float64, numbers string) {
	s := v.snap.(algorithms.IntervalBucketSnapshot)
	return fraction(s.Tokens, s.Capacity), itoa(s.Tokens) + "/" + itoa(s.Capacity) + " next " + v.secs(s.NextFill)
}

func (intervalBucketPicture) titles(p algorithms.Policy) []string {
	name, n, lump := string(p.Algorithm), itoa(p.Capacity), " +"+itoa(p.TokensPerFill)+"/"+secs(p.FillInterval)
	empty := ""
	if p.StartsEmpty {
		empty = " empty"
	}
	return []string{name + " cap " + n + lump + empty, name + " " + n + lump, name + " " + n}
}

func (intervalBucketPicture) glossary(algorithms.Policy) []string {
	return []string{"interval bucket: a token bucket refilled in lumps, tokens_per_fill at once every fill_interval counted from the key's first request, up to the capacity; between two fills nothing comes back."}
}
