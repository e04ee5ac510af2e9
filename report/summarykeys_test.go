package report

import (
	"bytes"
	"testing"
	"time"

	"ratelab/model"
	"ratelab/scenarios"
)

// TestWriteSummaryKeysIsByKey: the summary by key written from the compact
// totals, in one reused buffer, is byte for byte the one written from every
// key's Stats: wide and narrow keys (runes of several bytes, spaces at the
// end), zero peaks, an empty window, no lanes and no keys.
func TestWriteSummaryKeysIsByKey(t *testing.T) {
	s, err := scenarios.Parse("keys.yaml", []byte(`title: keys
seed: 4
limiters:
  - {name: log, algorithm: sliding-log, limit: 3, window: 2s}
  - {name: shaper-with-a-long-name, algorithm: leaky-bucket, queue: 4, rate: 2/s}
traffic:
  - {every: 100ms, until: 20s, accounts: 12, stagger: random}
  - {at: 5s, count: 30, key: "clé ünïcödé "}
  - {at: 7s, count: 3, key: "x"}
`))
	if err != nil {
		t.Fatal(err)
	}
	lanes := model.LanesOf(s)
	// Until 1ns: no key has sent anything yet, and there is no row.
	for _, opt := range []model.Options{{}, {Until: 1}} {
		kt, err := model.RunKeys(s, opt, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, byKey, err := model.RunByKey(s, opt, nil)
		if err != nil {
			t.Fatal(err)
		}
		if opt.Until == 1 && kt.Len() != 0 {
			t.Fatalf("%d keys by 1ns, want none", kt.Len())
		}
		for _, window := range []time.Duration{2 * time.Second, 0} {
			for _, ls := range [][]model.Lane{lanes, nil} {
				var got, want bytes.Buffer
				WriteSummaryKeys(&got, ls, window, kt)
				WriteSummaryByKey(&want, ls, window, byKey)
				if got.String() != want.String() {
					t.Errorf("until %v, window %v, %d lanes:\n%s\nwant:\n%s", opt.Until, window, len(ls), got.String(), want.String())
				}
			}
		}
	}
}
