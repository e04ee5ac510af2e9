package redisstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestCollapsingLogHash: the hash a learner reads with HGETALL after two
// admissions in one millisecond and one in the next but one: the second
// collapsed (admitted 3, added 2), members at whole milliseconds.
func TestCollapsingLogHash(t *testing.T) {
	st := open(t, servers(t)[0])
	p := algorithms.Policy{Algorithm: algorithms.CollapsingLog, Limit: 5, Window: time.Second}
	ks := algorithms.NewKeys()
	lim, err := st.Maker("members", 10*time.Second)(p, ks)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Duration{1000400 * time.Microsecond, 1000700 * time.Microsecond, 1002100 * time.Microsecond} {
		if d := lim.Decide(at, "alice", 1); d.Outcome != algorithms.Allowed {
			t.Fatalf("at %s: %s", algorithms.FormatSeconds(at), d.Explain())
		}
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	got, err := st.client.HGetAll(context.Background(), HashKey("members", "alice")).Result()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"last": "1002100000", "admitted": "3", "added": "2",
		"members.head": "0", "members.next": "2", "members:0": "1000 1", "members:1": "1002 1", "_sum": "2"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("HGETALL = %v, want %v", got, want)
	}
}
