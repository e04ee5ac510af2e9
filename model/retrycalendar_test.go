package model

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestRetryCalendarOrder pushes retries as lanes do (each due no earlier
// than the clock) and takes them as the clock moves, against a sorted
// list: waits within the wheel's days, far past them, crowded on one
// instant, and a clone taken midway that must go on alike.
func TestRetryCalendarOrder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shift uint
		due   func(r *rand.Rand, now time.Duration) time.Duration // a retry's, made at now
	}{
		{"within the days", calendarShift(40 * time.Millisecond), func(r *rand.Rand, now time.Duration) time.Duration {
			return now + time.Duration(r.Int64N(int64(40*time.Millisecond)))
		}},
		{"past the days", calendarShift(time.Millisecond), func(r *rand.Rand, now time.Duration) time.Duration {
			return now + time.Duration(r.Int64N(int64(time.Second)))
		}},
		{"crowded instants", calendarShift(time.Second), func(r *rand.Rand, now time.Duration) time.Duration {
			return now.Truncate(100*time.Millisecond) + time.Duration(1+r.IntN(3))*100*time.Millisecond
		}},
		{"at once", 0, func(r *rand.Rand, now time.Duration) time.Duration { return now + time.Duration(r.IntN(2)) }},
		{"mixed", calendarShift(10 * time.Millisecond), func(r *rand.Rand, now time.Duration) time.Duration {
			if r.IntN(10) == 0 {
				return now + time.Duration(r.Int64N(int64(time.Minute)))
			}
			return now + time.Duration(r.Int64N(int64(10*time.Millisecond)))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, uint64(tc.shift)))
			cal := newRetryCalendar(tc.shift)
			c := &cal
			var want []owedTry
			var clone *retryCalendar
			var cloneWant []owedTry
			var now time.Duration
			var seq int64
			take := func(c *retryCalendar, want *[]owedTry, t0 time.Duration) {
				for {
					x, ok := c.popUntil(t0)
					if ok != (len(*want) > 0 && (*want)[0].At <= t0) {
						t.Fatalf("at %v: popUntil %v, want %v (%d held)", t0, ok, !ok, len(*want))
					}
					if !ok {
						return
					}
					// want's slots are the requests' orig: a clone
					// packs the requests in slots of its own.
					w := (*want)[0]
					// orig, the retry's Seq here, tells ties apart.
					if x.At != w.At || x.V.n != w.V.n || c.reqs[x.V.slot].orig != int(w.V.slot) {
						t.Fatalf("at %v: popped %+v (orig %d), want %+v", t0, x, c.reqs[x.V.slot].orig, w)
					}
					c.release(x.V.slot)
					*want = (*want)[1:]
				}
			}
			for step := range 20000 {
				now += time.Duration(r.Int64N(int64(2 * time.Millisecond)))
				take(c, &want, now)
				if clone != nil {
					take(clone, &cloneWant, now)
				}
				for range r.IntN(3) {
					x := owedTry{At: tc.due(r, now), Seq: seq, V: owedRef{slot: int32(seq), n: 2}}
					seq++
					c.push(now, x.At, owedRef{slot: c.hold(&retryReq{orig: int(x.V.slot)}), n: x.V.n})
					i, _ := slices.BinarySearchFunc(want, x, func(a, b owedTry) int {
						if a.Before(&b) {
							return -1
						}
						return 1
					})
					want = slices.Insert(want, i, x)
					if clone != nil {
						clone.push(now, x.At, owedRef{slot: clone.hold(&retryReq{orig: int(x.V.slot)}), n: x.V.n})
						cloneWant = slices.Clone(want)
					}
				}
				if c.len() != len(want) {
					t.Fatalf("len %d, want %d", c.len(), len(want))
				}
				if at, ok := c.next(); ok != (len(want) > 0) || ok && at != want[0].At {
					t.Fatalf("next %v %v, want %+v", at, ok, want)
				}
				if step == 10000 {
					cl := c.clone()
					clone, cloneWant = &cl, slices.Clone(want)
				}
			}
			take(c, &want, endOfTime)
			take(clone, &cloneWant, endOfTime)
			if len(c.over) != 0 || c.count != 0 || c.wheel != nil && c.wheel.words != 0 || len(c.free) != len(c.reqs) {
				var days uint64
				if c.wheel != nil {
					days = c.wheel.words
				}
				t.Errorf("emptied, the calendar still holds %d + %d, days %#x, %d of %d requests", c.count, len(c.over), days, len(c.reqs)-len(c.free), len(c.reqs))
			}
		})
	}
}

// TestRetryCalendarWheelStartsAtTheClock pushes, on an empty calendar, a
// long wait and then a shorter one made later: both go to the wheel's
// days, which start at the refusal's day, not the first retry's (a heap
// of them would take them in the same order, at a heap's cost).
func TestRetryCalendarWheelStartsAtTheClock(t *testing.T) {
	shift := calendarShift(time.Second)
	cal := newRetryCalendar(shift)
	c := &cal
	now := 5 * time.Second
	c.push(now, now+900*time.Millisecond, owedRef{slot: c.hold(&retryReq{orig: 0}), n: 2})
	c.push(now+time.Millisecond, now+2*time.Millisecond, owedRef{slot: c.hold(&retryReq{orig: 1}), n: 2})
	if c.count != 2 || len(c.over) != 0 {
		t.Errorf("%d retries on the wheel, %d in the heap; want 2 and 0", c.count, len(c.over))
	}
	for _, want := range []int{1, 0} {
		x, ok := c.popUntil(endOfTime)
		if !ok || c.reqs[x.V.slot].orig != want {
			t.Fatalf("popped %+v %v (orig %d), want orig %d", x, ok, c.reqs[x.V.slot].orig, want)
		}
	}
}

// BenchmarkRetryCalendar takes and makes retries as a lane of
// tools/million-retries.yaml does: an original a millisecond, nearly all
// refused, each refusal owing a retry after a full-jitter wait of 10 ms,
// 20 ms, then 40 ms, up to 4 attempts; an op is one retry pushed and taken
// (the waits drawn beforehand).
func BenchmarkRetryCalendar(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var draws [1 << 12]int64
	for i := range draws {
		draws[i] = r.Int64N(1 << 20)
	}
	waits := [...]time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond}
	cal := newRetryCalendar(calendarShift(waits[len(waits)-1]))
	c := &cal
	var now time.Duration
	var seq int64
	owe := func(at time.Duration, n int32, slot int32) {
		if n > int32(len(waits)) {
			c.release(slot)
			return
		}
		wait := time.Duration(int64(waits[n-1]) * draws[int(seq)&(len(draws)-1)] >> 20)
		if slot < 0 {
			slot = c.hold(&retryReq{})
		}
		c.push(at, at+wait, owedRef{slot: slot, n: n + 1})
		seq++
	}
	for i := 0; i < b.N; {
		now += time.Millisecond
		for {
			x, ok := c.popUntil(now)
			if !ok {
				break
			}
			owe(x.At, x.V.n, x.V.slot)
			i++
		}
		owe(now, 1, -1)
	}
}

// popUntil removes and returns c's earliest retry if it is due by t.
func (c *retryCalendar) popUntil(t time.Duration) (owedTry, bool) {
	if at, ok := c.next(); !ok || at > t {
		return owedTry{}, false
	}
	at, r := c.pop()
	return owedTry{At: at, V: r}, true
}

// TestRetryCalendarKeepsItsDaysWithTheClock: retries owed within the
// clients' longest wait, pushed and taken as the clock goes, all wait on
// the wheel: its days move on with what is taken, so none falls to the
// heap, which is only for a retry past the wheel's days.
func TestRetryCalendarKeepsItsDaysWithTheClock(t *testing.T) {
	const longest = time.Second
	r := rand.New(rand.NewPCG(7, 7))
	cal := newRetryCalendar(calendarShift(longest))
	c := &cal
	var now time.Duration
	slot := 0
	for step := range 200000 {
		now += time.Duration(r.Int64N(int64(time.Millisecond)))
		if step%5000 == 0 {
			now += 10 * longest // a quiet spell, after which all that is owed is due
		}
		for c.due(now) {
			_, r := c.pop()
			c.release(r.slot)
		}
		for range r.IntN(3) {
			c.push(now, now+time.Duration(r.Int64N(int64(longest))), owedRef{slot: c.hold(&retryReq{orig: slot}), n: 2})
			slot++
		}
		if len(c.over) > 0 {
			t.Fatalf("step %d at %v: %d retries on the heap, though every one is owed within %v", step, now, len(c.over), longest)
		}
	}
}
