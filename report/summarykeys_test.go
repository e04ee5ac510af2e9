package report

import (
	"bytes"
	"fmt"
	"io"
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
		kt, byKey := runKeysBoth(t, s, opt)
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

// runKeysBoth runs s both ways a table by key is written from: the compact
// totals (model.RunKeys) and every key's Stats (model.RunByKey).
func runKeysBoth(t *testing.T, s *scenarios.Scenario, opt model.Options) (*model.KeyTotals, []model.KeyStats) {
	t.Helper()
	kt, err := model.RunKeys(s, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, byKey, err := model.RunByKey(s, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	return kt, byKey
}

// keysWithClients is a scenario of clients that retry, under many keys:
// wide and narrow keys, some that never retry.
func keysWithClients(t *testing.T, accounts int) *scenarios.Scenario {
	t.Helper()
	s, err := scenarios.Parse("clients.yaml", []byte(fmt.Sprintf(`title: clients
seed: 2
limiters:
  - {name: bucket, algorithm: token-bucket, capacity: 2, rate: 1/s}
  - {name: window-with-a-long-name, algorithm: fixed-window, limit: 3, window: 2s}
clients:
  - {name: eager, retry: at-once, attempts: 4}
  - {name: calm,  retry: give-up}
traffic:
  - {every: 200ms, until: 10s, accounts: %d, stagger: random, client: eager}
  - {at: 5s, count: 30, key: "clé ünïcödé ", client: calm}
`, accounts)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWriteClientsKeysIsByKey: the clients' table by key written from the
// compact totals is byte for byte the one written from every key's Stats.
func TestWriteClientsKeysIsByKey(t *testing.T) {
	s := keysWithClients(t, 12)
	lanes := model.LanesOf(s)
	for _, opt := range []model.Options{{}, {Until: 1}} {
		kt, byKey := runKeysBoth(t, s, opt)
		for _, ls := range [][]model.Lane{lanes, nil} {
			var got, want bytes.Buffer
			WriteClientsKeys(&got, ls, kt)
			WriteClientsByKey(&want, ls, byKey)
			if got.String() != want.String() {
				t.Errorf("until %v, %d lanes:\n%s\nwant:\n%s", opt.Until, len(ls), got.String(), want.String())
			}
		}
	}
}

// TestKeysTablesAllocatePerTable: the summary by key allocates as much for
// 400 keys as for 100: nothing a row or a cell; the clients' table by key
// nothing a cell but the amplification's text (model.Stats'), once a row
// on each of its two passes.
func TestKeysTablesAllocatePerTable(t *testing.T) {
	allocs := func(accounts int) (summary, clients float64, rows int) {
		s := keysWithClients(t, accounts)
		lanes := model.LanesOf(s)
		kt, err := model.RunKeys(s, model.Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		summary = testing.AllocsPerRun(5, func() { WriteSummaryKeys(io.Discard, lanes, time.Second, kt) })
		clients = testing.AllocsPerRun(5, func() { WriteClientsKeys(io.Discard, lanes, kt) })
		return summary, clients, len(lanes) * kt.Len()
	}
	s1, c1, rows1 := allocs(100)
	s4, c4, rows4 := allocs(400)
	if s4 > s1 {
		t.Errorf("the summary by key: %v allocations for %d rows, %v for %d", s1, rows1, s4, rows4)
	}
	if c4-c1 > float64(2*(rows4-rows1)) {
		t.Errorf("the clients by key: %v allocations for %d rows, %v for %d", c1, rows1, c4, rows4)
	}
}

// BenchmarkWriteKeys writes the summary and the clients' table by key of
// 20,000 keys on two lanes (40,000 rows each).
func BenchmarkWriteKeys(b *testing.B) {
	s, err := scenarios.Parse("keys.yaml", []byte(`title: keys
limiters:
  - {name: bucket, algorithm: token-bucket, capacity: 2, rate: 1/s}
  - {name: window-with-a-long-name, algorithm: fixed-window, limit: 3, window: 2s}
clients:
  - {name: eager, retry: at-once, attempts: 4}
traffic:
  - {every: 500ms, until: 2s, accounts: 10000, key: a, stagger: random, client: eager}
  - {every: 500ms, until: 2s, accounts: 10000, key: b, stagger: random, client: eager}
`))
	if err != nil {
		b.Fatal(err)
	}
	lanes := model.LanesOf(s)
	kt, err := model.RunKeys(s, model.Options{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("summary", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			WriteSummaryKeys(io.Discard, lanes, time.Second, kt)
		}
	})
	b.Run("clients", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			WriteClientsKeys(io.Discard, lanes, kt)
		}
	})
}
