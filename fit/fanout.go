package fit

import (
	"runtime"
	"sync"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// batch is a run of requests read from the source that the workers of a
// pass decide while the reader fills the next: each request's time and
// cost, and its key as the pass numbers it (keys) or its tracks (tracks),
// whichever the pass uses. It holds only what the workers read, column by
// column: what one processor writes and another then reads is the pass's
// cost as much as the deciding (a request's key string, 16 bytes, stays
// with the reader).
type batch struct {
	at     []time.Duration
	cost   []int64
	keys   []algorithms.Key
	tracks []*keyTracks
	// A pass of tracks takes a run of requests of one state at one
	// instant as one (see trackPass): cost is then the run's, last the
	// cost of its last request and runs how many it holds.
	last, runs []int64
	done       sync.WaitGroup // the workers still deciding it
}

// len is how many requests b holds.
func (b *batch) len() int { return len(b.at) }

// batchSize is how many requests a batch holds: a worker goes through a
// batch one part of its work at a time (a probe, a kind of track), keeping
// that part's state hot; two batches are in memory.
const batchSize = 8192

// fanOut reads src once into batches, label adding each request to its
// batch (or, merged, to the request before it, which the batch then holds
// for both), and has every part run over every batch, in order. The parts run
// in as many goroutines as there are processors (each its own share of
// the parts), while the reader fills the other batch; parts must touch
// nothing another part does. It returns how many requests there were and
// the source's error.
func fanOut(src Source, label func(b *batch, r scenarios.Request) (merged bool), parts []func(b *batch)) (int64, error) {
	workers := max(1, min(runtime.GOMAXPROCS(0), len(parts)))
	work := make([]chan *batch, workers)
	var finished sync.WaitGroup
	for w := range work {
		work[w] = make(chan *batch, 1)
		finished.Add(1)
		go func() {
			defer finished.Done()
			for b := range work[w] {
				for i := w; i < len(parts); i += workers {
					parts[i](b)
				}
				b.done.Done()
			}
		}()
	}
	batches := [2]*batch{{}, {}}
	cur := batches[0]
	send := func() {
		cur.done.Add(workers)
		for _, c := range work {
			c <- cur
		}
		if cur == batches[0] {
			cur = batches[1]
		} else {
			cur = batches[0]
		}
		cur.done.Wait() // the workers are done with the batch to refill
		cur.at, cur.cost, cur.keys, cur.tracks = cur.at[:0], cur.cost[:0], cur.keys[:0], cur.tracks[:0]
		cur.last, cur.runs = cur.last[:0], cur.runs[:0]
	}
	var n int64
	err := src(func(r scenarios.Request) bool {
		n++
		if label(cur, r) {
			return true
		}
		cur.at, cur.cost = append(cur.at, r.At), append(cur.cost, r.Cost)
		if cur.len() == batchSize {
			send()
		}
		return true
	})
	if cur.len() > 0 {
		send()
	}
	for _, c := range work {
		close(c)
	}
	finished.Wait()
	return n, err
}
