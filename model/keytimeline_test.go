package model

import (
	"slices"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// keyMarks is a brute-force pass over a lab's records: what the timeline's
// marks of one key (or of all, key "") must be, the clock at (pos, now).
type keyMarks struct {
	recs     []Record
	origPos  []int // per record, the pos of its decision (see clientLog)
	pos      int
	now      time.Duration
	bookless bool
}

func bruteMarks(lab *Lab) *keyMarks {
	km := &keyMarks{pos: lab.Pos(), now: lab.Now(), bookless: len(lab.Clients()) == 0}
	seen := make([]int, len(lab.Lanes()))
	lab.Records(0, lab.End()+time.Hour, func(r Record) bool {
		p := r.Index
		if r.Attempt.N > 1 {
			p = seen[r.Lane] // decided after the originals before it
		} else {
			seen[r.Lane] = r.Index + 1
		}
		km.recs = append(km.recs, r)
		km.origPos = append(km.origPos, p)
		return true
	})
	return km
}

// decided reports whether record x is decided by the clock.
func (km *keyMarks) decided(x int) bool {
	r, p := &km.recs[x], km.origPos[x]
	if r.Attempt.N == 1 {
		return p < km.pos
	}
	return p < km.pos || p == km.pos && r.Request.At <= km.now
}

func (km *keyMarks) each(lane int, key string, fn func(r *Record)) {
	for x := range km.recs {
		if r := &km.recs[x]; r.Lane == lane && (key == "" || r.Request.Key == key) && km.decided(x) {
			fn(r)
		}
	}
}

func (km *keyMarks) tally(lane int, key string, lo, hi int) (t Tally, down, beyond int) {
	km.each(lane, key, func(r *Record) {
		if r.Attempt.N == 1 && lo <= r.Index && r.Index < hi {
			t.add(r.Decision.Outcome)
			if r.Decision.Fallback != algorithms.NoFallback && r.Decision.Outcome == algorithms.Rejected {
				down++
			}
			if r.Decision.Beyond > 0 {
				beyond++
			}
		}
	})
	return t, down, beyond
}

func (km *keyMarks) retries(lane int, key string, from, to time.Duration) (s RetrySpan) {
	if km.bookless {
		return s
	}
	km.each(lane, key, func(r *Record) {
		if r.Attempt.N > 1 && from <= r.Request.At && r.Request.At < to {
			s.Retries++
			if r.Decision.Outcome.Admitted() {
				s.Admitted++
			}
			s.Highest = max(s.Highest, r.Attempt.N)
		}
	})
	return s
}

func (km *keyMarks) released(lane int, key string, from, to time.Duration) int64 {
	return int64(len(km.releases(lane, key, from, to)))
}

// releases are the releases in [from, to), in time order.
func (km *keyMarks) releases(lane int, key string, from, to time.Duration) []time.Duration {
	var out []time.Duration
	km.each(lane, key, func(r *Record) {
		if r.Decision.Outcome.Admitted() && r.Decision.Delay > 0 && !r.Attempt.Cancelled {
			if at := r.Request.At + r.Decision.Delay; from <= at && at < to {
				out = append(out, at)
			}
		}
	})
	slices.Sort(out)
	return out
}

// keyTimelineScenarios have what no canned lesson has: gateway marks,
// releases without clients, and delayed retries (some given back), on
// several keys.
var keyTimelineScenarios = map[string]string{
	"two keys, gateways": `
title: two keys, gateways
step: 250ms
duration: 8s
limiters:
  - {name: open,  algorithm: token-bucket, capacity: 5, rate: 1/s, gateways: 2, store: shared, outages: [{from: 3s, until: 4s}], fallback: open}
  - {name: shut,  algorithm: token-bucket, capacity: 5, rate: 1/s, gateways: 2, store: shared, outages: [{from: 3s, until: 4s}], fallback: closed}
  - {name: local, algorithm: token-bucket, capacity: 5, rate: 1/s, gateways: 4, store: local}
traffic:
  - {every: 250ms, until: 7s, key: a}
  - {every: 500ms, until: 7s, key: b}
`,
	"two keys, shaped": `
title: two keys, shaped
step: 250ms
duration: 6s
limiters:
  - {name: leaky, algorithm: leaky-bucket, queue: 3, rate: 2/s}
  - {name: nginx, algorithm: nginx-limit-req, rate: 2/s, burst: 3, delay: 1}
traffic:
  - {at: 0s, count: 6, key: a}
  - {every: 250ms, until: 4s, key: b}
  - {every: 100ms, from: 2s, until: 3s, key: a}
`,
	"two keys, storms": `
title: two keys, storms
step: 100ms
duration: 6s
seed: 5
limiters:
  - {name: fixed,  algorithm: fixed-window, limit: 10, window: 1s}
  - {name: bucket, algorithm: token-bucket, capacity: 5, rate: 5/s}
clients:
  - {name: eager,  retry: backoff, base: 50ms, factor: 1, jitter: full, attempts: 9}
  - {name: steady, retry: backoff, base: 100ms, factor: 2, attempts: 5}
traffic:
  - {every: 20ms, until: 4s, key: a, client: eager}
  - {every: 50ms, until: 4s, key: b, client: steady}
`,
	"two keys, retries delayed": `
title: two keys, retries delayed
step: 250ms
duration: 10s
seed: 3
limiters:
  - {name: leaky,   algorithm: leaky-bucket,        queue: 3, rate: 2/s}
  - {name: reserve, algorithm: x-time-rate-reserve, burst: 1, rate: 2/s}
clients:
  - {name: eager,  retry: backoff, base: 500ms, factor: 2, jitter: full, attempts: 4}
  - {name: polite, retry: backoff, base: 500ms, factor: 2, attempts: 4, deadline: 1s, cancel: true}
traffic:
  - {at: 0s, count: 8, key: a, client: eager}
  - {every: 250ms, until: 4s, key: b, client: polite}
  - {every: 500ms, from: 1s, until: 5s, key: a, client: eager}
`,
}

// TestKeyTimelineBruteForce holds the key's marks (KeyTally, KeyMarked,
// KeyRetries, KeyReleased) against a pass over the lab's records for the
// key, and the lab-wide marks against the same pass over every key (which
// checks the pass), column by column as the timeline asks, at several
// clock positions, one inside an instant.
func TestKeyTimelineBruteForce(t *testing.T) {
	for _, name := range []string{
		"jitter-spreads-retries", "retry-storm", "deadlines-and-cancel", // clients
		"store-outage", "four-gateways", // gateways
		"nginx-config", "retry-after-not-a-reservation", // delays
		"two keys, gateways", "two keys, shaped", "two keys, retries delayed", "two keys, storms",
	} {
		t.Run(name, func(t *testing.T) {
			var lab *Lab
			if src, ok := keyTimelineScenarios[name]; ok {
				s, err := scenarios.Parse(name, []byte(src))
				if err != nil {
					t.Fatal(err)
				}
				lab = newLab(t, s)
			} else {
				lab = openLesson(t, name).lab
			}
			end := lab.End()
			steps := []time.Duration{end / 7, end / 3, end * 2 / 3, end + time.Second}
			type at struct {
				now time.Duration
				pos int // -1: after the instant
			}
			var clocks []at
			for _, s := range steps {
				clocks = append(clocks, at{s, -1})
			}
			// Inside an instant: a time with several requests, part decided.
			for i := 1; i < lab.Len(); i++ {
				if lab.Request(i).At == lab.Request(i-1).At && lab.Request(i).At > 0 {
					clocks = append(clocks, at{lab.Request(i).At, i})
					break
				}
			}
			// seen counts the columns where one key's pass found each kind
			// of mark: tallies, gateway marks, retries, releases.
			var seen [4]int
			most := 0 // the most retries of one key in a column
			for _, c := range clocks {
				if c.pos >= 0 {
					lab.SeekPos(c.pos)
				} else {
					lab.Seek(c.now)
				}
				if c.pos >= 0 && (lab.Pos() != c.pos || lab.Now() != c.now) {
					t.Fatalf("SeekPos(%d): clock at %d, %v", c.pos, lab.Pos(), lab.Now())
				}
				km := bruteMarks(lab)
				now := lab.Now()
				for _, key := range lab.Keys() {
					for lane := range lab.Lanes() {
						for _, r := range [][2]time.Duration{{0, end + time.Hour}, {end / 3, end * 2 / 3}, {now, now + 1}} {
							if got, want := lab.KeyReleases(lane, key, r[0], r[1]), km.releases(lane, key, r[0], r[1]); !slices.Equal(got, want) {
								t.Fatalf("at %v key %q lane %d: KeyReleases(%v, %v) = %v, brute force %v", now, key, lane, r[0], r[1], got, want)
							}
						}
					}
				}
				for _, dt := range []time.Duration{max(end/97, 1), max(end/13, 1)} {
					for _, key := range append([]string{""}, lab.Keys()...) {
						for lane := range lab.Lanes() {
							for from := time.Duration(0); from <= end; from += dt {
								to := from + dt
								lo, hi := lab.Search(from-1), min(lab.Search(to-1), lab.Pos())
								var gotT Tally
								var gotD, gotB int
								var gotR RetrySpan
								if key == "" {
									gotT = lab.Tally(lane, lo, hi)
									gotD, gotB = lab.Marked(lane, lo, hi)
									gotR = lab.Retries(lane, from, min(to, now+1))
								} else {
									gotT = lab.KeyTally(lane, key, lo, hi)
									gotD, gotB = lab.KeyMarked(lane, key, lo, hi)
									gotR = lab.KeyRetries(lane, key, from, min(to, now+1))
								}
								wantT, wantD, wantB := km.tally(lane, key, lo, hi)
								if gotT != wantT || gotD != wantD || gotB != wantB {
									t.Fatalf("at %v (pos %d) key %q lane %d [%d, %d): tally %+v %d %d, brute force %+v %d %d", now, lab.Pos(), key, lane, lo, hi, gotT, gotD, gotB, wantT, wantD, wantB)
								}
								if want := km.retries(lane, key, from, min(to, now+1)); gotR != want {
									t.Fatalf("at %v key %q lane %d [%v, %v): retries %+v, brute force %+v", now, key, lane, from, to, gotR, want)
								}
								for _, r := range [][2]time.Duration{{from, min(to, now+1)}, {max(from, now+1), to}} {
									var got int64
									if key == "" {
										got = lab.Released(lane, r[0], r[1])
									} else {
										got = lab.KeyReleased(lane, key, r[0], r[1])
									}
									if want := km.released(lane, key, r[0], r[1]); got != want {
										t.Fatalf("at %v key %q lane %d [%v, %v): released %d, brute force %d", now, key, lane, r[0], r[1], got, want)
									}
								}
								if key != "" {
									most = max(most, km.retries(lane, key, from, to).Retries)
								}
								if key != "" && len(lab.Keys()) > 1 {
									for k, n := range []int64{int64(wantT.Total()), int64(wantD + wantB), int64(km.retries(lane, key, from, to).Retries), km.released(lane, key, from, to)} {
										if n > 0 {
											seen[k]++
										}
									}
								}
							}
						}
					}
				}
			}
			// What each scenario must have shown of one key among several,
			// so that every part of the key's marks was held to the pass.
			want := map[string][4]bool{
				"jitter-spreads-retries":    {true, false, true, false},
				"retry-storm":               {true, false, true, false},
				"deadlines-and-cancel":      {true, false, false, true},
				"two keys, shaped":          {true, false, false, true},
				"two keys, gateways":        {true, true, false, false},
				"two keys, retries delayed": {true, false, true, true},
				"two keys, storms":          {true, false, true, false},
			}[name]
			// KeyRetries reads whole runs of 32 of a key's retries by
			// their sums: a column must hold several.
			if name == "two keys, storms" && most < 4*32 {
				t.Errorf("at most %d retries of a key in a column, want runs of 32 in some", most)
			}
			for k, w := range want {
				if w && seen[k] == 0 {
					t.Errorf("no column of one key showed %s", [...]string{"tallies", "gateway marks", "retries", "releases"}[k])
				}
			}
		})
	}
}

// TestKeyRequestsBefore counts each key's requests before each index, as a
// pass over the requests does, in the order the timeline asks: left to
// right, then back.
func TestKeyRequestsBefore(t *testing.T) {
	lab := openLesson(t, "deadlines-and-cancel").lab
	for _, key := range append(lab.Keys(), "nobody") {
		want := make([]int, lab.Len()+1)
		for i := range lab.Len() {
			want[i+1] = want[i]
			if lab.Request(i).Key == key {
				want[i+1]++
			}
		}
		for _, i := range []int{0, 1, lab.Len() / 3, lab.Len(), lab.Len() / 2, 2} {
			if got := lab.KeyRequestsBefore(key, i); got != want[i] {
				t.Errorf("KeyRequestsBefore(%q, %d) = %d, want %d", key, i, got, want[i])
			}
		}
		if want[lab.Len()] == 0 && key != "nobody" {
			t.Errorf("key %q sent nothing", key)
		}
	}
}

// TestKeyTimelineUnknownKey: a key that sent nothing marks nothing, and
// sent not every request (OnlyKey), which the only key did.
func TestKeyTimelineUnknownKey(t *testing.T) {
	lab := openLesson(t, "jitter-spreads-retries").lab
	lab.Seek(lab.End())
	if got := lab.KeyTally(0, "nobody", 0, lab.Len()); got != (Tally{}) {
		t.Errorf("KeyTally = %+v", got)
	}
	if got := lab.KeyRetries(0, "nobody", 0, lab.End()+1); got != (RetrySpan{}) {
		t.Errorf("KeyRetries = %+v", got)
	}
	if lab.OnlyKey("nobody") || lab.OnlyKey("sync") {
		t.Error("OnlyKey: true for a key among two, or one that sent nothing")
	}
	one := openLesson(t, "retry-after-not-a-reservation").lab
	if keys := one.Keys(); len(keys) != 1 || !one.OnlyKey(keys[0]) {
		t.Errorf("OnlyKey(%v) = false for the only key", keys)
	}
}
