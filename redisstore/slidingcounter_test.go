package redisstore

import (
	"slices"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestSlidingCounterBound: the sliding counter's products are limit × the
// (sub-)window; a policy taking them past 2^53 is refused, naming them,
// and sub-windows bring them down.
func TestSlidingCounterBound(t *testing.T) {
	p := algorithms.Policy{Algorithm: algorithms.SlidingCounter, Limit: 50_000, Window: 24 * time.Hour}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	err := Check(p, time.Hour)
	if err == nil || !strings.Contains(err.Error(), "limit × window in ns, plus the limit is 4320000000000050000") {
		t.Errorf("Check(%s) = %v", p, err)
	}
	p.SubWindows = 1000
	if err := Check(p, time.Hour); err != nil {
		t.Errorf("Check(%s) = %v", p, err)
	}
	p.SubWindows = 10
	if err := Check(p, time.Hour); err == nil || !strings.Contains(err.Error(), "limit × sub-window (window / sub_windows) in ns, plus the limit") {
		t.Errorf("Check(%s) = %v", p, err)
	}
}

// TestSlidingCounterHash: what HGETALL shows of a key, with and without
// sub-windows.
func TestSlidingCounterHash(t *testing.T) {
	sec := time.Second
	for _, c := range []struct {
		p    algorithms.Policy
		want map[string]string
	}{
		{algorithms.Policy{Algorithm: algorithms.SlidingCounter, Limit: 5, Window: 10 * sec},
			map[string]string{"count": "1", "prev": "2", "last": "12000000000"}},
		{algorithms.Policy{Algorithm: algorithms.SlidingCounter, Limit: 5, Window: 10 * sec, SubWindows: 5},
			// The counts, one field each (see lua/prelude.lua), rolled by six
			// sub-windows since the first admission: seqs 6 to 11; _inner,
			// the script's cache of the 5 most recent counts' sum.
			map[string]string{"counts.head": "6", "counts.next": "12", "counts:6": "1", "counts:7": "0",
				"counts:8": "0", "counts:9": "0", "counts:10": "0", "counts:11": "1", "last": "12000000000",
				"_inner": "1"}},
	} {
		st := open(t, servers(t)[0])
		ks := algorithms.NewKeys()
		lim, err := st.Maker("hash", time.Minute)(c.p, ks)
		if err != nil {
			t.Fatal(err)
		}
		k := ks.Key("k")
		for _, at := range []time.Duration{sec, 2 * sec, 12 * sec} {
			lim.DecideKey(at, k, 1)
		}
		if err := st.Err(); err != nil {
			t.Fatal(err)
		}
		got, err := st.client.HGetAll(t.Context(), HashKey("hash", "k")).Result()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(sortedPairs(got), " ") != strings.Join(sortedPairs(c.want), " ") {
			t.Errorf("%s: HGETALL %v, want %v", c.p, got, c.want)
		}
	}
}

func sortedPairs(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}
