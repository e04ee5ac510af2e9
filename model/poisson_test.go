package model

import (
	"reflect"
	"testing"
	"time"

	"ratelab/scenarios"
)

// TestRunPoisson runs a scenario of poisson items: every drawn request is
// decided in time order, each account in its own state, and a second load
// replays exactly the same decisions.
func TestRunPoisson(t *testing.T) {
	const file = `title: random arrivals
seed: 11
limiters:
  - {name: b, algorithm: token-bucket, capacity: 3, rate: 1/s}
  - {name: w, algorithm: fixed-window, limit: 10, window: 1s}
traffic:
  - {poisson: 20/s, until: 30s}
  - {poisson: 50/s, on: 2s, off: 8s, until: 60s, accounts: 3}
  - {every: 1s, until: 60s, key: steady}
`
	run := func() ([]Record, []Stats, *scenarios.Scenario) {
		s, err := scenarios.Parse("p.yaml", []byte(file))
		if err != nil {
			t.Fatal(err)
		}
		var recs []Record
		stats, err := Run(s, Options{}, func(r Record) error { recs = append(recs, r); return nil })
		if err != nil {
			t.Fatal(err)
		}
		return recs, stats, s
	}
	recs, stats, s := run()
	n := s.RequestCount()
	if n < 1000 || int64(len(recs)) != 2*n {
		t.Fatalf("%d records for %d requests", len(recs), n)
	}
	perKey := map[string]int64{}
	var last time.Duration
	for i, r := range recs {
		if r.Request.At < last {
			t.Fatalf("record %d at %s, before %s", i, r.Request.At, last)
		}
		last = r.Request.At
		if r.Lane == 0 {
			perKey[r.Request.Key]++
		}
	}
	for _, it := range s.Traffic {
		if perKey[it.Key] != it.Count {
			t.Errorf("key %s: %d requests run, %d drawn", it.Key, perKey[it.Key], it.Count)
		}
	}
	for i, st := range stats {
		if st.Admitted+st.Rejected != n || st.Admitted == 0 || st.Rejected == 0 {
			t.Errorf("lane %d: %+v of %d requests", i, st, n)
		}
	}
	again, stats2, _ := run()
	if len(again) != len(recs) || !reflect.DeepEqual(stats, stats2) {
		t.Fatal("a second load of the file ran differently")
	}
	for i, r := range again {
		if r.Request != recs[i].Request || r.Lane != recs[i].Lane || r.Decision.Outcome != recs[i].Decision.Outcome {
			t.Fatalf("record %d: %+v, then %+v", i, recs[i], r)
		}
	}
}

// TestSavePoisson: the lab holds a poisson scenario's drawn requests, and
// saving it with a fired request writes the poisson items as written, so
// the saved file draws the same requests again.
func TestSavePoisson(t *testing.T) {
	s, err := scenarios.Parse("p.yaml", []byte(`title: t
seed: 5
limiters:
  - {name: b, algorithm: token-bucket, capacity: 3, rate: 1/s}
traffic:
  - {poisson: 5/s, on: 1s, off: 1s, until: 20s, accounts: 2}
  - {poisson: 3/s, until: 20s}
`))
	if err != nil {
		t.Fatal(err)
	}
	l := newLab(t, s)
	if _, err := l.FireAt(3*time.Second, "me", 1); err != nil {
		t.Fatal(err)
	}
	data, _, err := l.Save("")
	if err != nil {
		t.Fatal(err)
	}
	saved, err := scenarios.Parse("saved.yaml", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	var want, got []scenarios.Request
	for r := range s.Requests() {
		want = append(want, r)
	}
	for r := range saved.Requests() {
		if r.Key != "me" {
			got = append(got, r)
		}
	}
	if len(want) < 50 || !reflect.DeepEqual(got, want) {
		t.Errorf("the saved file draws %d requests, the original %d (or others)", len(got), len(want))
	}
	for i := range min(10, int(s.RequestCount())) {
		if l.Request(i).At != want[i].At {
			t.Errorf("lab request %d at %s, want %s", i, l.Request(i).At, want[i].At)
		}
	}
}
