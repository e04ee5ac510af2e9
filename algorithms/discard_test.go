package algorithms

import (
	"testing"
	"time"
	"unsafe"
)

// TestForgetAndImportGiveMemoryBack: a log's or a queue's state forgotten
// (ForgetKey) or overwritten (ImportKey, CopyKey) gives its chunks back to
// the limiter's account: Memory ends where a limiter that never held them
// is.
func TestForgetAndImportGiveMemoryBack(t *testing.T) {
	for _, p := range []Policy{
		{Algorithm: SlidingLog, Limit: 2000, Window: time.Hour},
		{Algorithm: AttemptLog, Limit: 2000, Window: time.Hour},
		{Algorithm: CollapsingLog, Limit: 2000, Window: time.Hour},
		{Algorithm: LeakyBucket, Queue: 2000, Rate: Rate{N: 1, Per: time.Second}},
	} {
		ks := NewKeys()
		fresh, _ := NewWithKeys(p, ks)
		lim, _ := NewWithKeys(p, ks)
		small, _ := NewWithKeys(p, ks)
		a, b := ks.Key("a"), ks.Key("b")
		fresh.DecideKey(0, a, 1)
		fresh.DecideKey(0, b, 1)
		small.DecideKey(0, a, 1)
		small.DecideKey(0, b, 1)
		for i := range 1500 {
			lim.DecideKey(time.Duration(i)*time.Millisecond, a, 1)
			lim.DecideKey(time.Duration(i)*time.Millisecond, b, 1)
		}
		st, _ := small.(StateCodec).ExportKey(a)
		if err := lim.(StateCodec).ImportKey(a, st); err != nil {
			t.Fatal(err)
		}
		lim.(KeyCopier).CopyKey(small, b)
		if got, want := lim.Memory().State, fresh.Memory().State; got > want {
			t.Errorf("%s: after importing small states over large ones, state %d B, a limiter that never held them %d B", p.Algorithm, got, want)
		}
		lim.(KeyCopier).ForgetKey(a)
		lim.(KeyCopier).ForgetKey(b)
		empty, _ := NewWithKeys(p, ks)
		// What stays is the table of the keys' states, which an empty
		// limiter has not made yet.
		if got, want := lim.Memory().State, empty.Memory().State+keyTableBytes(lim); got > want {
			t.Errorf("%s: after forgetting every key, state %d B, an empty limiter %d B", p.Algorithm, got, want)
		}
	}
}

// keyTableBytes is what lim's table of key states takes: one chunk of
// keyChunk states here.
func keyTableBytes(lim Limiter) int64 {
	switch k := lim.(type) {
	case *keyed[slidingLogState]:
		return int64(unsafe.Sizeof(stateChunk[slidingLogState]{})) + int64(cap(k.chunks))*8
	case *keyed[attemptLogState]:
		return int64(unsafe.Sizeof(stateChunk[attemptLogState]{})) + int64(cap(k.chunks))*8
	case *keyed[collapsingLogState]:
		return int64(unsafe.Sizeof(stateChunk[collapsingLogState]{})) + int64(cap(k.chunks))*8
	case *keyed[leakyBucketState]:
		return int64(unsafe.Sizeof(stateChunk[leakyBucketState]{})) + int64(cap(k.chunks))*8
	}
	panic("not a log")
}
