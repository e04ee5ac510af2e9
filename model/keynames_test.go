package model

import (
	"testing"
)

// TestKeyNamesFindFileAndFiredKeys: a lab's keys numbered by its file
// are found by name through the file's index, a key the file names but
// that had no request is numbered when fired, and undoing forgets fired
// keys only.
func TestKeyNamesFindFileAndFiredKeys(t *testing.T) {
	s := parse(t, `title: t
limiters:
  - {name: b, algorithm: token-bucket, capacity: 2, rate: 1/s}
traffic:
  - {every: 1s, until: 3s, accounts: 3, key: a}
  - {poisson: 1/h, until: 1ms, key: never}
  - {at: 0.5s, key: z}
`)
	tl := newTimeline(s, nil)
	if tl.keys.file == nil {
		t.Fatal("the file's keys are not numbered by the file")
	}
	if len(tl.keys.index) != 0 {
		t.Errorf("%d keys interned, want none", len(tl.keys.index))
	}
	for i, key := range tl.keys.list {
		if got, ok := tl.keys.lookup(key); !ok || int(got) != i {
			t.Errorf("lookup(%q) = %d, %v; want %d", key, got, ok, i)
		}
	}
	if _, ok := tl.keys.lookup("never"); ok {
		t.Error("a key with no request found")
	}
	base := len(tl.keys.list)
	for i, key := range []string{"never", "fresh", "a-2"} {
		want := int32(base + i)
		if key == "a-2" {
			want, _ = tl.keys.lookup("a-2")
		}
		if got := tl.keys.of(key); got != want {
			t.Errorf("of(%q) = %d, want %d", key, got, want)
		}
	}
	tl.keys.truncate(base)
	for _, key := range []string{"never", "fresh"} {
		if _, ok := tl.keys.lookup(key); ok {
			t.Errorf("%q found after truncate", key)
		}
	}
	if _, ok := tl.keys.lookup("a-3"); !ok {
		t.Error("a-3 lost by truncate")
	}
}
