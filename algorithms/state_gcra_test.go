package algorithms

import (
	"fmt"
	"testing"
	"time"
)

// TestGCRAFamilyStateRefused: a state no limiter of the policy can be in is
// refused, with a reason.
func TestGCRAFamilyStateRefused(t *testing.T) {
	gcra := Policy{Algorithm: GCRA, Burst: 3, Rate: Rate{7, time.Second}} // T = 1/7 s: 3T = 3e9/7 ns
	rate := Policy{Algorithm: RedisRate, Burst: 3, Rate: Rate{7, time.Second}}
	cell := Policy{Algorithm: RedisCell, MaxBurst: 2, CountPerPeriod: 7, Period: time.Second} // T = 142857142 ns, DVT 3T
	ngx := Policy{Algorithm: NginxLimitReq, Rate: Rate{2, time.Second}, Burst: 3}
	for _, c := range []struct {
		p    Policy
		st   []int64
		want string // "" for a state accepted
	}{
		{gcra, []int64{5, 6, 5}, ""},
		{gcra, []int64{5, 0, 5, 1}, "4 fields"},
		{gcra, []int64{5, 7, 5}, "tat_frac 7"},
		{gcra, []int64{5, -1, 5}, "tat_frac -1"},
		{gcra, []int64{-1, 0, 5}, "before the scenario's start"},
		{gcra, []int64{5, 0, -5}, "before the scenario's start"},
		{gcra, []int64{5 + 428571428, 4, 5}, ""}, // exactly 3T past last
		{gcra, []int64{5 + 428571428, 5, 5}, "more than burst 3"},
		{rate, []int64{5 + 428571428, 5, 5}, "more than burst 3"},
		{gcra, []int64{1, 0, 5}, ""}, // a TAT before last: an idle key
		{cell, []int64{10, 10}, ""},
		{cell, []int64{10 + 3*142857142, 10}, ""},
		{cell, []int64{11 + 3*142857142, 10}, "out of range"},
		{cell, []int64{-1, 10}, "out of range"},
		{ngx, []int64{0, 0, 0, 7}, ""},
		{ngx, []int64{1, 3000, 7, 7_000_000}, ""},
		{ngx, []int64{2, 0, 0, 7}, ""}, // a bare node: made by a lookup, never accounted
		{ngx, []int64{3, 0, 0, 7}, "not 0, 1 or 2"},
		{ngx, []int64{2, 500, 0, 7}, "a bare node"},
		{ngx, []int64{2, 0, 3, 7_000_000}, "a bare node"},
		{ngx, []int64{0, 500, 0, 7}, "no node"},
		{ngx, []int64{1, 3001, 7, 7_000_000}, "not in [0, burst 3]"},
		{ngx, []int64{1, -1, 7, 7_000_000}, "not in [0, burst 3]"},
		{ngx, []int64{1, 0, 8, 7_999_999}, "last_ms 8"},
		{ngx, []int64{1, 0, 0, -1}, "latest -1"},
	} {
		checkImport(t, c.p, State{Fields: c.st}, c.want)
	}
}

// TestGCRAFamilyIdleTAT: a TAT left behind by time is written as the
// latest request's time, so that two idle keys write alike.
func TestGCRAFamilyIdleTAT(t *testing.T) {
	for _, c := range []struct {
		p    Policy
		want []int64
	}{
		{Policy{Algorithm: GCRA, Burst: 2, Rate: Rate{3, time.Second}}, []int64{int64(5 * time.Second), 0, int64(5 * time.Second)}},
		{Policy{Algorithm: RedisCell, MaxBurst: 1, CountPerPeriod: 3, Period: time.Second}, []int64{int64(5 * time.Second), int64(5 * time.Second)}},
	} {
		ks := NewKeys()
		l, err := NewWithKeys(c.p, ks)
		if err != nil {
			t.Fatal(err)
		}
		k := ks.Key("k")
		l.DecideKey(0, k, 1)
		l.DecideKey(5*time.Second, k, 100) // never fits: decided, state unchanged but for the time
		st, _ := l.(StateCodec).ExportKey(k)
		if fmt.Sprint(st.Fields) != fmt.Sprint(c.want) {
			t.Errorf("%s: state %v, want %v", c.p, st.Fields, c.want)
		}
	}
}
