package xtimerate

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products/snippet"
)

func TestRead(t *testing.T) {
	sec := time.Second
	for _, c := range []struct {
		src  string
		want algorithms.Policy
		note string
	}{
		{"l := rate.NewLimiter(10, 5)", algorithms.Policy{Algorithm: algorithms.XTimeRate, Burst: 5, Rate: algorithms.Rate{N: 10, Per: sec}}, ""},
		{"rate.NewLimiter(rate.Every(100*time.Millisecond), 1)", algorithms.Policy{Algorithm: algorithms.XTimeRate, Burst: 1, Rate: algorithms.Rate{N: 1, Per: 100 * time.Millisecond}}, ""},
		{"rate.NewLimiter(rate.Limit(2.5), 4)", algorithms.Policy{Algorithm: algorithms.XTimeRate, Burst: 4, Rate: algorithms.Rate{N: 5, Per: 2 * sec}}, ""},
		{"rate.NewLimiter(0.3, 2)", algorithms.Policy{Algorithm: algorithms.XTimeRate, Burst: 2, Rate: algorithms.Rate{N: 3, Per: 10 * sec}}, ""},
		{"lim := rate.NewLimiter(rate.Every(time.Minute/120), 10)\nlim.Wait(ctx)", algorithms.Policy{Algorithm: algorithms.XTimeRateReserve, Burst: 10, Rate: algorithms.Rate{N: 1, Per: 500 * time.Millisecond}}, "the code waits or reserves"},
		{"rate.NewLimiter(rate.Every(time.Second/3), 1)", algorithms.Policy{Algorithm: algorithms.XTimeRate, Burst: 1, Rate: algorithms.Rate{N: 1, Per: 333333333}}, ""},
	} {
		fs, err := Read(c.src)
		if err != nil || len(fs) != 1 {
			t.Errorf("%q: %v %v", c.src, fs, err)
			continue
		}
		if fs[0].Policy != c.want {
			t.Errorf("%q: %v, want %v", c.src, fs[0].Policy, c.want)
		}
		if notes := strings.Join(fs[0].Notes, "; "); c.note == "" && notes != "" || !strings.Contains(notes, c.note) {
			t.Errorf("%q: notes %q, want %q", c.src, notes, c.note)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"x := 1", "no rate.NewLimiter(r, b) call"},
		{"rate.NewLimiter(rate.Inf, 1)", "rate.Inf allows every event"},
		{"rate.NewLimiter(0, 1)", "a rate of 0 or less"},
		{"rate.NewLimiter(10, -1)", "the burst is not a whole number"},
		{"rate.NewLimiter(10)", "takes a rate and a burst"},
		{"rate.NewLimiter(r, 5)", "r is not a constant"},
	} {
		if _, err := Read(c.src); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
}

// What Write writes, Read reads back to the same rate, burst and float64
// limit, with no note.
func TestWriteReadsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		p := algorithms.Policy{Algorithm: []algorithms.Algorithm{algorithms.XTimeRate, algorithms.XTimeRateReserve}[r.IntN(2)],
			Burst: r.Int64N(50),
			Rate:  algorithms.Rate{N: 1 + r.Int64N(1000), Per: []time.Duration{time.Second, time.Minute, 7 * time.Millisecond, time.Duration(1 + r.Int64N(1e10))}[r.IntN(4)]}}
		text, err := Write("l", p)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := Read(text)
		if err != nil {
			t.Fatalf("%v: %v\n%s", p, err, text)
		}
		got := fs[0].Policy
		if got.Algorithm != p.Algorithm || got.Burst != p.Burst || got.Rate != snippet.Canonical(p.Rate) {
			t.Fatalf("%v read back as %v\n%s", p, got, text)
		}
		for _, n := range fs[0].Notes {
			if !strings.HasPrefix(n, "the code waits or reserves") {
				t.Errorf("%v: note %q\n%s", p, n, text)
			}
		}
	}
}

func TestNearest(t *testing.T) {
	tb := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 10, Rate: algorithms.Rate{N: 2, Per: time.Second}}
	got, differs, err := Nearest(tb)
	if err != nil || got != (algorithms.Policy{Algorithm: algorithms.XTimeRate, Burst: 10, Rate: tb.Rate}) || len(differs) != 1 {
		t.Errorf("%v %q %v", got, differs, err)
	}
	lb := algorithms.Policy{Algorithm: algorithms.LeakyBucket, Queue: 4, Rate: algorithms.Rate{N: 1, Per: time.Second}}
	if got, _, _ := Nearest(lb); got.Algorithm != algorithms.XTimeRateReserve || got.Burst != 5 {
		t.Errorf("leaky bucket: %v", got)
	}
}
