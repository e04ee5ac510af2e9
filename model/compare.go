package model

import (
	"fmt"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// Comparison is how two lanes' decisions on the same requests differ.
type Comparison struct {
	// Requests is how many requests both decided (first attempts only: a
	// retry is a lane's own consequence, not the traffic's).
	Requests int
	// OnlyA and OnlyB count the requests one lane admitted (at once or
	// delayed) and the other refused; Delays those both admitted with
	// different delays.
	OnlyA, OnlyB, Delays int
	// First is the arrival of the first request decided differently, when
	// Differ() is above 0.
	First time.Duration
}

// Differ is how many requests the lanes decided differently.
func (c Comparison) Differ() int { return c.OnlyA + c.OnlyB + c.Delays }

// Compare runs s and compares lanes a and b (indexes into s.Lanes) on each
// request, holding no more than the run does.
func Compare(s *scenarios.Scenario, a, b int) (Comparison, error) {
	if a < 0 || b < 0 || a >= len(s.Lanes) || b >= len(s.Lanes) || a == b {
		return Comparison{}, fmt.Errorf("model: compare lanes %d and %d of %d", a, b, len(s.Lanes))
	}
	var c Comparison
	first, second := min(a, b), max(a, b) // each request's records come in lane order
	var earlier algorithms.Decision
	_, err := Run(s, Options{}, func(r Record) error {
		switch {
		case r.Attempt.N > 1:
		case r.Lane == first:
			earlier = r.Decision
		case r.Lane == second:
			da, db := earlier, r.Decision
			if a > b {
				da, db = db, da
			}
			c.add(da, db, r.Request.At)
		}
		return nil
	})
	return c, err
}

// add counts one request's two decisions.
func (c *Comparison) add(da, db algorithms.Decision, at time.Duration) {
	c.Requests++
	before := c.Differ()
	switch aa, ab := da.Outcome.Admitted(), db.Outcome.Admitted(); {
	case aa && !ab:
		c.OnlyA++
	case ab && !aa:
		c.OnlyB++
	case aa && da.Delay != db.Delay:
		c.Delays++
	}
	if before == 0 && c.Differ() == 1 {
		c.First = at
	}
}
