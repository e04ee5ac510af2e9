package redisstore

import (
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestNumbersNear2to53: a token bucket whose full balance, capacity × the
// rate's period in ns, is within 2^23 of 2^53, refilled by fractions of a
// token, keeps every balance exact on every server (a server or a test
// server that wrote a double with %.14g, or rounded one, would differ
// here), and Check refuses the next capacity up, which would pass 2^53.
func TestNumbersNear2to53(t *testing.T) {
	const per = 1_000_000_007 // ns: a rate period whose multiples are odd
	capacity := int64((MaxExact - 3) / per)
	p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: capacity, Rate: algorithms.Rate{N: 3, Per: per}}
	if full := capacity * per; full < MaxExact-per || full >= MaxExact {
		t.Fatalf("full balance %d is not just below 2^53", full)
	}
	if err := Check(p, time.Hour); err != nil {
		t.Fatalf("Check refuses %s: %v", p, err)
	}
	over := p
	over.Capacity++
	if err := Check(over, time.Hour); err == nil || !strings.Contains(err.Error(), "past 2^53") {
		t.Fatalf("Check takes %s: %v", over, err)
	}
	// Spend almost everything at once, then refill by fractions: 3 tokens a
	// period of ~1s, so a request 1ns apart adds 3 to the scaled balance.
	var trace []request
	trace = append(trace, request{0, "k", capacity - 1}, request{0, "k", 2})
	for i := range 50 {
		trace = append(trace, request{time.Duration(1 + i*333_333_336), "k", 1}, request{time.Duration(2 + i*333_333_336), "k", 1})
	}
	trace = append(trace, request{time.Hour, "k", capacity}, request{time.Hour + 1, "k", 1})
	for _, srv := range servers(t) {
		t.Run(srv.name, func(t *testing.T) {
			st := open(t, srv)
			replay(t, st, "near-2-53", p, trace)
			lim, err := st.Maker("near-2-53-full", 2*time.Hour)(p, algorithms.NewKeys())
			if err != nil {
				t.Fatal(err)
			}
			l := lim.(*Limiter)
			l.Decide(0, "k", 1)
			st2, found, err := l.read(l.ids.Key("k"))
			if err != nil || !found || st2.Fields[0] != (capacity-1)*per {
				t.Fatalf("after one token of %d: balance %v (%v), want %d", capacity, st2.Fields, err, (capacity-1)*per)
			}
		})
	}
}
