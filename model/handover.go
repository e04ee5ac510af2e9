package model

import (
	"iter"
	"time"
)

// handoverMin is the fewest requests whose merge handOver runs beside
// the timeline's building: below it a goroutine and its blocks cost more
// than the overlap saves.
const handoverMin = 1 << 16

// handoverBlock is the number of (item, time) pairs a block hands over:
// 128 KiB, so that the merge and the building touch different blocks and
// a hand-over (two channel operations) is rare.
const handoverBlock = 8192

// handoverBlocks is the number of blocks in flight: the merge runs at
// most this far ahead of the building.
const handoverBlocks = 4

// itemTime is one pair of scenarios.Scenario.ItemTimes.
type itemTime struct {
	item int32
	at   time.Duration
}

// handOver yields what seq yields, in the same order, running seq on a
// goroutine of its own that hands its pairs over in blocks: the merge of a
// scenario's items then runs on one core while the caller builds the
// timeline on the other (100,000 keys: the explorer's first frame). seq
// must be safe to run beside the caller (the merge reads the scenario
// only). A caller that stops early leaves the goroutine to finish seq and
// throw its blocks away.
func handOver(seq iter.Seq2[int, time.Duration]) iter.Seq2[int, time.Duration] {
	return func(yield func(int, time.Duration) bool) {
		full := make(chan []itemTime, handoverBlocks)
		free := make(chan []itemTime, handoverBlocks)
		for range handoverBlocks {
			free <- make([]itemTime, 0, handoverBlock)
		}
		go func() {
			b := <-free
			for item, at := range seq {
				b = append(b, itemTime{int32(item), at})
				if len(b) == handoverBlock {
					full <- b
					b = (<-free)[:0]
				}
			}
			full <- b
			close(full)
		}()
		for b := range full {
			for _, p := range b {
				if !yield(int(p.item), p.at) {
					go func() { // let the merge finish
						for b := range full {
							free <- b
						}
					}()
					return
				}
			}
			free <- b
		}
	}
}
