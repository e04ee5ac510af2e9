package model

import (
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// lesson is a canned scenario in a lab, with helpers to read what its
// about and notes texts claim.
type lesson struct {
	t     *testing.T
	lab   *Lab
	lanes map[string]int
}

func openLesson(t *testing.T, name string) *lesson {
	t.Helper()
	s, err := scenarios.Canned(name)
	if err != nil {
		t.Fatal(err)
	}
	ls := &lesson{t: t, lab: newLab(t, s), lanes: map[string]int{}}
	for i, l := range s.Lanes {
		ls.lanes[l.Name] = i
	}
	return ls
}

// at is lane's decisions, for key (any when ""), on the requests arriving
// in [from, until).
func (ls *lesson) at(lane, key string, from, until time.Duration) []algorithms.Decision {
	ls.t.Helper()
	i, ok := ls.lanes[lane]
	if !ok {
		ls.t.Fatalf("no lane %s", lane)
	}
	var ds []algorithms.Decision
	ls.lab.Records(from, until-1, func(r Record) bool {
		if r.Lane == i && (key == "" || r.Request.Key == key) {
			ds = append(ds, r.Decision)
		}
		return true
	})
	if len(ds) == 0 {
		ls.t.Fatalf("%s: no request in [%v, %v)", lane, from, until)
	}
	return ds
}

// says checks that a decision's explanation contains each of parts.
func (ls *lesson) says(d algorithms.Decision, parts ...string) {
	ls.t.Helper()
	for _, p := range parts {
		if !strings.Contains(d.Explain(), p) {
			ls.t.Errorf("the decision at %v says %q; the lesson says %q", d.At, d.Explain(), p)
		}
	}
}

// waits checks each decision's outcome and delay.
func (ls *lesson) waits(ds []algorithms.Decision, o algorithms.Outcome, delay time.Duration) {
	ls.t.Helper()
	for _, d := range ds {
		if d.Outcome != o || d.Delay != delay {
			ls.t.Errorf("at %v: %s delayed %v; the lesson says %s delayed %v: %s", d.At, d.Outcome, d.Delay, o, delay, d.Explain())
			return
		}
	}
}

func (ls *lesson) snapshot(lane, key string, t time.Duration) algorithms.Snapshot {
	ls.lab.Seek(t)
	return ls.lab.Snapshot(ls.lanes[lane], key)
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

// TestCannedLessonsTellTheTruth checks the numbers the canned lessons'
// about and notes texts state, beyond what their expect lists assert.
func TestCannedLessonsTellTheTruth(t *testing.T) {
	const key = scenarios.DefaultKey
	t.Run("boundary", func(t *testing.T) {
		ls := openLesson(t, "boundary")
		// "the token bucket … has 0.2 tokens left" at 60s.
		if got := ls.snapshot("bucket", key, ms(60000)).(algorithms.TokenBucketSnapshot).Available; got.Num*5 != got.Den {
			t.Errorf("bucket at 60s holds %s tokens, the lesson says 0.2", got)
		}
		// "less than 0.4 by the end of the burst", at 60s + ⌊119 × 100ms/120⌋.
		if got := ls.snapshot("bucket", key, 60099166666).(algorithms.TokenBucketSnapshot).Available; got.Num*5 >= 2*got.Den {
			t.Errorf("bucket at the end of the second burst holds %s tokens, the lesson says less than 0.4", got)
		}
		// "fell only from 120 to 120 × 59.9/60 ≈ 119.8".
		ls.says(ls.at("counter", key, ms(60000), ms(60001))[0], "estimate = 0 + 120 × (60s − 0s)/60s = 120;")
		if got := ls.snapshot("counter", key, ms(60100)).(algorithms.SlidingCounterSnapshot).Estimate; got.Num != 120*59900*int64(time.Millisecond) || got.Den != int64(time.Minute) {
			t.Errorf("counter at 60.1s estimates %d/%d, the lesson says 120 × 59.9/60", got.Num, got.Den)
		}
		// The log forgets the first request at exactly 119.9s, the burst before 120s.
		if got := ls.snapshot("log", key, ms(119900)).(algorithms.SlidingLogSnapshot).Count; got != 119 {
			t.Errorf("log at 119.9s holds %d, want 119: the request at 59.9s is exactly 60s old", got)
		}
		if got := ls.snapshot("log", key, 119999166666).(algorithms.SlidingLogSnapshot).Count; got != 0 {
			t.Errorf("log at 119.999166666s holds %d, want 0: the last request of the burst is exactly 60s old", got)
		}
	})
	t.Run("dashboard", func(t *testing.T) {
		ls := openLesson(t, "dashboard")
		load := ls.at("shaper", key, 0, 1)
		ls.waits(load[:1], algorithms.Allowed, 0)
		for i, d := range load[1:] { // "queues 9, the last released at 4.5s"
			ls.waits([]algorithms.Decision{d}, algorithms.Delayed, ms(500*int64(i+1)))
		}
		ls.waits(ls.at("shaper", key, ms(500), ms(30250)), algorithms.Delayed, ms(4500)) // "every poll waits 4.5s"
		reload := ls.at("shaper", key, ms(30250), ms(30251))
		ls.waits(reload[:1], algorithms.Delayed, ms(4750)) // "queues one more (4.75s wait) and rejects 9"
		ls.waits(reload[1:], algorithms.Rejected, 0)
		ls.waits(ls.at("shaper", key, ms(30500), ms(62000)), algorithms.Delayed, ms(5000)) // "from then on every poll waits 5s"
		if got := ls.snapshot("bucket", key, ms(30250)).(algorithms.TokenBucketSnapshot).Available; got.Num*2 != got.Den {
			t.Errorf("bucket at 30.25s holds %s, the lesson says half a token", got)
		}
		// "admits everything until its minute runs out at 50s".
		ls.waits(ls.at("fixed", key, 0, ms(50001)), algorithms.Allowed, 0)
		ls.waits(ls.at("fixed", key, ms(50001), ms(60000)), algorithms.Rejected, 0)
	})
	t.Run("counter-blind-spot", func(t *testing.T) {
		ls := openLesson(t, "counter-blind-spot")
		for _, k := range []string{"early", "late"} {
			ls.says(ls.at("counter", k, ms(90000), ms(90001))[0], "estimate = 0 + 100 × (60s − 30s)/60s = 50;")
		}
	})
	t.Run("shaping-vs-policing", func(t *testing.T) {
		ls := openLesson(t, "shaping-vs-policing")
		ds := ls.at("shaper", key, 0, 1)
		for i, d := range ds[1:5] { // "waits of 1s, 2s, 3s and 4s"
			ls.waits([]algorithms.Decision{d}, algorithms.Delayed, time.Duration(i+1)*time.Second)
		}
		ls.waits(ds[5:], algorithms.Rejected, 0)
	})
	t.Run("costly-requests", func(t *testing.T) {
		ls := openLesson(t, "costly-requests")
		ls.says(ls.at("bucket", "export", ms(3000), ms(3001))[0], "= 4 ≥ cost 4", "0 left")
		ls.says(ls.at("bucket", "export", ms(4000), ms(4001))[0], "= 2 < cost 4")
		ls.says(ls.at("bucket", "export", ms(5000), ms(5001))[0], "= 4 ≥ cost 4")
		ls.waits(ls.at("log", "export", ms(5000), ms(5001)), algorithms.Allowed, 0) // "forgets the export of 0s only now"
		ls.waits(ls.at("log", "export", ms(4000), ms(4001)), algorithms.Rejected, 0)
	})
	t.Run("retries-refill", func(t *testing.T) {
		ls := openLesson(t, "retries-refill")
		ls.says(ls.at("bucket", key, ms(100), ms(101))[0], "= 0.1 < cost 1")
		for s := int64(1); s <= 9; s++ { // "the retry at each whole second gets through"
			ls.says(ls.at("bucket", key, ms(1000*s), ms(1000*s+1))[0], "= 1 ≥ cost 1")
		}
		ls.waits(ls.at("log", key, ms(5000), ms(5500)), algorithms.Allowed, 0)
	})
	t.Run("gcra-is-token-bucket", func(t *testing.T) {
		ls := openLesson(t, "gcra-is-token-bucket")
		ls.says(ls.at("bucket", key, ms(2500), ms(2501))[0], "= 1 ≥ cost 1")
		ls.says(ls.at("gcra", key, ms(2500), ms(2501))[0], "new TAT = max(TAT 4.5s, now 2.5s) + 1 × 0.5s = 5s; allow at = 5s − 5 × 0.5s = 2.5s ≤ now 2.5s")
		// "11 of these 17 are admitted, the same ones in both lanes".
		b, g := ls.at("bucket", key, ms(1000), ms(6000)), ls.at("gcra", key, ms(1000), ms(6000))
		for i := range b {
			if b[i].Outcome != g[i].Outcome || b[i].RetryAfter != g[i].RetryAfter {
				t.Errorf("at %v: bucket %s, gcra %s", b[i].At, b[i].Explain(), g[i].Explain())
			}
		}
	})
	t.Run("float-drift", func(t *testing.T) {
		ls := openLesson(t, "float-drift")
		ls.says(ls.at("bucket", key, ms(90), ms(91))[0], "= 0.9 < cost 1")
		ls.says(ls.at("bucket", key, ms(100), ms(101))[0], "= 1 ≥ cost 1")
		// "At 300ms ... it holds 0.9999999999999998 tokens ... and rejects".
		ls.says(ls.at("float", key, ms(100), ms(101))[0], "= 1 ≥ cost 1")
		ls.says(ls.at("float", key, ms(290), ms(291))[0], "= 0.8999999999999997 < cost 1")
		ls.says(ls.at("float", key, ms(300), ms(301))[0], "(0.3 − 0.29) × 10) = 0.9999999999999998 < cost 1", "float64 rounding, not time")
		ls.says(ls.at("bucket", key, ms(300), ms(301))[0], "= 1 ≥ cost 1")
		ls.says(ls.at("float", key, ms(400), ms(401))[0], "= 0.9000000000000002 < cost 1")
	})
}

// TestMistakeLessonsTellTheTruth checks the numbers the mistake lessons'
// about and notes texts state, beyond what their expect lists assert.
func TestMistakeLessonsTellTheTruth(t *testing.T) {
	const key = scenarios.DefaultKey
	t.Run("attempts-counted", func(t *testing.T) {
		ls := openLesson(t, "attempts-counted")
		// "10 attempts, twice its limit" at 6s; 9 at 10s and at 20s, none admitted.
		ls.says(ls.at("attempts", key, ms(6000), ms(6001))[0], "= 10 (5 of them admitted)", "logged all the same")
		ls.says(ls.at("attempts", key, ms(10000), ms(10001))[0], "attempts in (0s, 10s] = 9 (0 of them admitted)")
		ls.says(ls.at("attempts", key, ms(20000), ms(20001))[0], "attempts in (10s, 20s] = 9 (0 of them admitted)", "retry after 6s")
		ls.says(ls.at("log", key, ms(10000), ms(10001))[0], "= 0; 0 + cost 1 = 1 ≤ limit 5")
	})
	t.Run("expiry-reset", func(t *testing.T) {
		ls := openLesson(t, "expiry-reset")
		ls.says(ls.at("resetting", key, ms(2000), ms(2001))[0], "count 5 + cost 1 = 6", "expiry reset to 2s + 10s = 12s")
		ls.says(ls.at("resetting", key, ms(10000), ms(10001))[0], "expiring at 18s; count 9 + cost 1 = 10")
		ls.says(ls.at("resetting", key, ms(40000), ms(40001))[0], "count 24 + cost 1 = 25", "retry after 10s")
		ls.says(ls.at("resetting", key, ms(50000), ms(50001))[0], "no key")
		ls.says(ls.at("fixed", key, ms(10000), ms(10001))[0], "window [10s, 20s): count 0")
	})
	t.Run("whole-token-refill", func(t *testing.T) {
		ls := openLesson(t, "whole-token-refill")
		ls.says(ls.at("whole", key, ms(400), ms(401))[0], "⌊0.4s × 2/s⌋) = 0", "0.8 of it dropped")
		ls.says(ls.at("bucket", key, ms(800), ms(801))[0], "= 1.6 ≥ cost 1")
		ls.says(ls.at("whole", key, ms(8600), ms(8601))[0], "= 2 (1s × 2/s = 2 earned)")
		ls.says(ls.at("whole", key, ms(9200), ms(9201))[0], "1.2 earned; 0.2 of it dropped")
		// "It has dropped 15.2 tokens" by 7.6s.
		if s := ls.snapshot("whole", key, ms(7600)).(algorithms.WholeTokenBucketSnapshot); s.Lost.String() != "15.2" {
			t.Errorf("dropped by 7.6s: %v, the note says 15.2", s.Lost)
		}
	})
	t.Run("collapsing-members", func(t *testing.T) {
		ls := openLesson(t, "collapsing-members")
		ls.says(ls.at("members", key, 0, 1)[19], "1 member in (-1s, 0s], counting 1", "already in the set")
		ls.says(ls.at("members", key, ms(2000), ms(3000))[9], "5 members in", "> limit 5 → rejected")
		if s := ls.snapshot("members", key, ms(2010)).(algorithms.CollapsingLogSnapshot); len(s.Members) != 5 || s.Collapsed != 19+4 {
			t.Errorf("at 2.01s: %d members, %d collapsed; want 5 and 23", len(s.Members), s.Collapsed)
		}
	})
}
