package model

import (
	"testing"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

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
