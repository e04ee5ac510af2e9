package scenarios

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestQuizMarkString(t *testing.T) {
	for _, tt := range []struct {
		q    QuizMark
		want string
	}{
		{QuizMark{At: time.Minute, Request: 1}, "at 60s"},
		{QuizMark{Request: 11}, "at 0s, request 11"},
		{QuizMark{At: 4 * time.Second, Request: 2, Key: "export", Lane: "bucket"}, `at 4s, request 2, key "export", lane bucket`},
		{QuizMark{At: 30250 * time.Millisecond, Request: 1, Lane: "shaper"}, "at 30.25s, lane shaper"},
	} {
		if got := tt.q.String(); got != tt.want {
			t.Errorf("String = %q, want %q", got, tt.want)
		}
	}
}

// TestCountAtMatchesExpansion counts, for every instant of random traffic
// and the instants beside them, the requests the expansion puts there.
func TestCountAtMatchesExpansion(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		s := &Scenario{Traffic: randomTraffic(rng, 1+rng.IntN(10))}
		type at struct {
			t   time.Duration
			key string
		}
		want := map[at]int64{}
		for r := range s.Requests() {
			want[at{r.At, r.Key}]++
			want[at{r.At, ""}]++
		}
		for a, n := range want {
			if got := s.CountAt(a.t, a.key); got != n {
				t.Fatalf("trial %d: CountAt(%v, %q) = %d, want %d; traffic %+v", trial, a.t, a.key, got, n, s.Traffic)
			}
			for _, near := range []time.Duration{a.t - 1, a.t + 1} {
				if _, taken := want[at{near, a.key}]; !taken {
					if got := s.CountAt(near, a.key); got != 0 {
						t.Fatalf("trial %d: CountAt(%v, %q) = %d, want 0", trial, near, a.key, got)
					}
				}
			}
		}
	}
	// The largest burst over the longest spread is searched, not expanded.
	b := Traffic{Form: Burst, Spread: MaxTime, Count: MaxRequests}
	if got := b.CountAt(0); got != 1 {
		t.Errorf("a burst spread over a year has %d requests at 0, want 1", got)
	}
	if got := (Traffic{Form: Burst, At: time.Second, Count: MaxRequests}).CountAt(time.Second); got != MaxRequests {
		t.Errorf("a burst without spread has %d requests at its instant, want %d", got, MaxRequests)
	}
}
