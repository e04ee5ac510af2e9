package fit

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"ratelab/algorithms"
)

// A pass of tracks that takes a state's requests at one instant as one
// run finds what it finds taking them one by one: every frontier, every
// key's need, every confirmation, on random traces whose times are cut
// to whole seconds (a common-format log's) or to 100 ms, so that many
// requests share an instant, by key and for all the traffic.
func TestRunsAreRequests(t *testing.T) {
	extraRates := []algorithms.Rate{{N: 7, Per: 3 * time.Second}, {N: 13, Per: 10}}
	extraWindows := []time.Duration{700 * time.Millisecond}
	for seed := uint64(1); seed <= 12; seed++ {
		byKey := seed%2 == 0
		cut := time.Second
		if seed%3 == 0 {
			cut = 100 * time.Millisecond
		}
		reqs := randomTrace(seed, 400+int(seed)*50, 1+int(seed%4), 1+int64(seed%3))
		for i := range reqs {
			reqs[i].At = reqs[i].At.Truncate(cut)
		}
		t.Run(fmt.Sprintf("seed %d, by key %v, times cut to %s", seed, byKey, cut), func(t *testing.T) {
			o := Options{Algorithms: Supported, ByKey: byKey, Rates: extraRates, Windows: extraWindows, Confirm: ConfirmAll}
			mergeRuns = false
			one, err := Fit(Requests(reqs), o)
			mergeRuns = true
			if err != nil {
				t.Fatal(err)
			}
			runs, err := Fit(Requests(reqs), o)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(one, runs) {
				for i := range one.Frontiers {
					if !reflect.DeepEqual(one.Frontiers[i], runs.Frontiers[i]) {
						t.Errorf("%s: request by request\n%+v\nby runs\n%+v", one.Frontiers[i].Algorithm, one.Frontiers[i], runs.Frontiers[i])
					}
				}
				t.Fatalf("the results differ")
			}
		})
	}
}
