package redisstore

import "ratelab/algorithms"

func init() {
	register(algorithms.SlidingCounter, &script{file: "sliding-counter.lua",
		args: func(p algorithms.Policy) []int64 {
			n := max(p.SubWindows, 1)
			return []int64{p.Limit, int64(p.Window), n, int64(p.Window) / n}
		},
		// The estimate is compared cross-multiplied: counts × the time
		// left of a (sub-)window against the room left × its length, each
		// at most limit × its length; fdiv/cdiv of those by a count (at most
		// the limit) may take the quotient's product one divisor further.
		bounds: func(p algorithms.Policy) []quantity {
			n := max(p.SubWindows, 1)
			what := "limit × window in ns, plus the limit"
			if n > 1 {
				what = "limit × sub-window (window / sub_windows) in ns, plus the limit"
			}
			return []quantity{sum(what, product("", p.Limit, int64(p.Window)/n), product("", p.Limit))}
		},
		// The two-window counter's, and the sub-windows' (their counts a log).
		forms: []algorithms.StateForm{
			algorithms.Policy{Algorithm: algorithms.SlidingCounter, SubWindows: 1}.StateForm(),
			algorithms.Policy{Algorithm: algorithms.SlidingCounter, SubWindows: 2}.StateForm(),
		},
		caches: []string{"_inner"},
	})
}
