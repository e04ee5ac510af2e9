package fit

import (
	"math/bits"
	"time"
)

// maxScaled is the bound package algorithms keeps every product under (a
// size times a rate's period, a limit times a window): 2^62. A backlog
// beyond it fits no valid policy.
const maxScaled = 1 << 62

// ceilDiv is ⌈a/b⌉ for a ≥ 0, b > 0.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}

// bucketTrack follows one state's backlog at one rate N per Per, in the
// arithmetic the token bucket, GCRA and the leaky bucket share: units of
// 1/N ns, in which the emission interval T = Per/N is exactly Per units and
// an elapsed ns drains N units. After a request of cost c at t, elapsed ns
// after the one before,
//
//	backlog = max(0, backlog before − elapsed × N) + c × Per
//
// which is, exactly, the token bucket's deficit (capacity × Per − its
// scaled balance), GCRA's TAT − now, and the leaky bucket's next free
// instant − now. While nothing is refused it does not depend on the size;
// so the smallest size refusing nothing is read off its largest value:
//
//	token bucket capacity, GCRA burst:  ⌈max backlog / Per⌉
//	leaky bucket queue:                 ⌈max backlog / Per⌉ − 1 (at least 1)
//
// (the leaky bucket admits iff delay + (c − 1) × T ≤ queue × T, and delay =
// backlog − c × Per). The leaky bucket's delay is the backlog before the
// request's cost, rounded up to a whole ns: ⌈pre / N⌉.
type bucketTrack struct {
	// backlog is −1 once it passed 2^62: no valid policy refuses nothing.
	backlog int64
	// maxBacklog and maxPre are the largest backlog and the largest
	// backlog before a request's cost was added.
	maxBacklog, maxPre int64
}

// over says the backlog passed 2^62.
func (t *bucketTrack) over() bool { return t.backlog < 0 }

// add is a run of requests at one instant, elapsed ns after the state's
// one before, of cost in all, the last of them of cost last (≤ cost).
func (t *bucketTrack) add(elapsed time.Duration, cost, last, n, per int64) {
	if t.over() {
		return
	}
	pre := int64(0)
	if t.backlog > 0 {
		// elapsed × N in 128 bits: past the backlog it drains it all.
		hi, lo := bits.Mul64(uint64(elapsed), uint64(n))
		if hi == 0 && lo < uint64(t.backlog) {
			pre = t.backlog - int64(lo)
		}
	}
	hi, lo := bits.Mul64(uint64(cost), uint64(per))
	if hi != 0 || lo > uint64(maxScaled-pre) {
		t.backlog = -1
		return
	}
	t.backlog = pre + int64(lo)
	t.maxBacklog = max(t.maxBacklog, t.backlog)
	// The last request waits behind the run's others: (cost − last) ×
	// Per ≤ cost × Per, which fits.
	t.maxPre = max(t.maxPre, pre+(cost-last)*per)
}

// nginxTrack follows one state's node in nginx's limit_req at one rate, in
// nginx's arithmetic (see algorithms.NginxLimitReq): rate in thousandths of
// a request per second, truncated, and whole milliseconds. Its first request
// makes the node with excess (c − 1) × 1000; each later one computes
//
//	excess = max(0, excess − rate × ms / 1000 + 1000) + (c − 1) × 1000
//
// with ms the milliseconds since the last admitted request, truncated after
// the product. nginx caps ms at the time a full burst drains, which
// changes nothing while every request is admitted (an excess of at most
// burst × 1000 has drained to 0 by then either way), so the excess
// sequence does not depend on the burst, and the smallest burst refusing
// nothing is ⌈max excess / 1000⌉. Without nodelay an admitted request waits
// excess × 1000 / rate ms (truncated).
type nginxTrack struct {
	// excess is −1 once it passed what a burst of 2^40 allows.
	excess    int64
	maxExcess int64
}

func (t *nginxTrack) over() bool { return t.excess < 0 }

// maxNginxExcess bounds an excess nginx can keep: burst ≤ 2^40 requests.
const maxNginxExcess = (1 << 40) * 1000

// add is a request of cost elapsedMs milliseconds (nginx's clock: the
// times truncated) after the state's one before; first says it is the
// state's first, which makes its node.
func (t *nginxTrack) add(first bool, elapsedMs, cost, rateMilli int64) {
	if t.over() {
		return
	}
	var e int64
	if !first {
		// rate × ms / 1000 ≥ need once rate × ms ≥ need × 1000: the
		// product taken in 128 bits.
		need := t.excess + 1000
		if hi, lo := bits.Mul64(uint64(rateMilli), uint64(elapsedMs)); hi == 0 && lo < uint64(need*1000) {
			e = need - int64(lo/1000)
		}
	}
	if cost-1 > (maxNginxExcess-e)/1000 {
		t.excess = -1
		return
	}
	e += (cost - 1) * 1000
	t.excess = e
	t.maxExcess = max(t.maxExcess, e)
}

// cellTrack follows one state of redis-cell's GCRA at one emission
// interval T (period ÷ count_per_period truncated to a whole ns; see
// algorithms.RedisCell), in whole nanoseconds:
//
//	backlog = max(0, backlog − elapsed) + c × T     (= new TAT − now)
//
// admitted iff backlog ≤ (max_burst + 1) × T, so the smallest max_burst
// refusing nothing is ⌈max backlog / T⌉ − 1, at least 0.
type cellTrack struct {
	// backlog is −1 once it passed 2^62.
	backlog    int64
	maxBacklog int64
}

func (t *cellTrack) over() bool { return t.backlog < 0 }

// add is a request of cost, elapsed ns after the state's one before.
func (t *cellTrack) add(elapsed time.Duration, cost, interval int64) {
	if t.over() {
		return
	}
	pre := max(0, t.backlog-int64(elapsed))
	hi, lo := bits.Mul64(uint64(cost), uint64(interval))
	if hi != 0 || lo > uint64(maxScaled-pre) {
		t.backlog = -1
		return
	}
	t.backlog = pre + int64(lo)
	t.maxBacklog = max(t.maxBacklog, t.backlog)
}
