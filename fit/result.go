package fit

import (
	"time"

	"ratelab/algorithms"
)

// Result is what a fit found.
type Result struct {
	// Requests and Cost are the traffic's count of requests and their total
	// cost; Keys the distinct keys; First and Last the first and last
	// request's time.
	Requests, Cost int64
	Keys           int
	First, Last    time.Duration
	// ByKey, KeyShare and RejectAtMost are the options the fit ran with
	// (KeyShare with its default filled in).
	ByKey        bool
	KeyShare     int64
	RejectAtMost int64
	// PerKey is, for a ByKey fit, every key and its count of requests, in
	// the order keys first appear: the k of Frontier.KeySize.
	PerKey []KeyTraffic
	// Frontiers are one per algorithm, in the order of Options.Algorithms.
	Frontiers []Frontier
}

// KeyTraffic is one key's share of the traffic.
type KeyTraffic struct {
	Key      string
	Requests int64
}

// Axis is what a frontier's points vary.
type Axis uint8

const (
	// ByRate: each point is a rate; the size is a capacity, burst, queue,
	// nginx burst or redis-cell max_burst.
	ByRate Axis = iota
	// ByWindow: each point is a window; the size is the limit per window.
	ByWindow
)

// Frontier is one algorithm's answers along its axis.
type Frontier struct {
	Algorithm algorithms.Algorithm
	Axis      Axis
	// SizeName is the parameter a point's Size sets: "capacity", "burst",
	// "queue", "limit", "max_burst".
	SizeName string
	// Points are in increasing rate or window.
	Points []Point
	// Knee is the index in Points of the frontier's knee, −1 when no point
	// is feasible. Among the feasible points, with rate (or window) and
	// size each scaled to [0, 1] between its smallest and largest value,
	// it is the point farthest from the straight line joining the first
	// feasible point to the last, computed exactly in rationals; the
	// earliest wins a tie. When every point lies on that line (two points,
	// or a straight frontier) it is the earliest point of the smallest
	// size. It is the policy --save keeps (Result.Knees).
	Knee int
	// KeySizes are, for a ByKey fit, every key's own requirement, key by
	// key in the order of Result.PerKey, a size a point: see KeySize.
	KeySizes []int64
}

// KeySize is the size key k (Result.PerKey[k]) alone needs at Points[j]: 0
// where the point is not feasible. It panics if the fit was not ByKey.
func (f *Frontier) KeySize(k, j int) int64 { return f.KeySizes[k*len(f.Points)+j] }

// Point is the answer at one rate or window.
type Point struct {
	// Rate is the point's rate (ByRate), Window its window (ByWindow).
	Rate   algorithms.Rate
	Window time.Duration
	// Feasible says whether some valid policy refuses nothing here; when
	// not, Why says what bound it would pass (the policy's size above
	// 2^40, or size × period above 2^62 ns) and the fields below are zero.
	Feasible bool
	Why      string
	// Policy is the fitted policy (Validate passes): Size in the
	// algorithm's size parameter, the point's rate or window, every other
	// parameter left out. For a ByKey fit it applies per key.
	Policy algorithms.Policy
	// Size is the smallest size under which the policy refuses no request
	// of the traffic (for ByKey, the largest any key needs). It is at least
	// the algorithm's smallest valid size (MinSize), which may refuse
	// nothing with room to spare.
	Size int64
	// LongestWait is, for a shaper (leaky-bucket, and nginx-limit-req
	// without nodelay), the longest delay Policy gives an admitted request
	// of the traffic; it is the same for every larger size.
	LongestWait time.Duration
	// Confirmation is what the real limiters said of Size, if they ran.
	Confirmation Confirmation
	// Quantile is, for a ByKey fit, the KeyShare quantile of the keys' own
	// sizes and the keys above it; nil otherwise.
	Quantile *Quantile
	// Budget is, when Options.RejectAtMost is positive, the smallest size
	// refusing at most that share; nil otherwise or when not feasible.
	Budget *Budget
}

// MinSize is the smallest size a policy of the algorithm can have: 0 for
// nginx's burst and redis-cell's max_burst (one request at a time), 1 for
// the others.
func MinSize(a algorithms.Algorithm) int64 {
	if a == algorithms.NginxLimitReq || a == algorithms.RedisCell {
		return 0
	}
	return 1
}

// Confirmation is a whole pass of the traffic through the real limiters
// (algorithms.New) at a point's Size and at Size − 1.
type Confirmation struct {
	// Ran says the pass was made; Confirmed that it agreed: Size refused
	// nothing and Size − 1 refused at least one request (or Size is the
	// smallest valid size, SmallerValid false). A point whose computed size
	// disagreed was searched with real runs instead (Searched), and is
	// then confirmed by the search's own runs.
	Ran, Confirmed, Searched bool
	// Refused is how many requests Size refused: 0 when confirmed.
	Refused int64
	// SmallerValid says Size − 1 is a valid size; SmallerRefused is then
	// how many requests it refused, of Requests, the first at FirstRefusal.
	SmallerValid   bool
	SmallerRefused int64
	FirstRefusal   time.Duration
	Requests       int64
	// LongestWait is the longest Delay the real shaper gave at Size.
	LongestWait time.Duration
}

// Quantile is the smallest size under which at least KeyShare of the keys
// need no more, and the keys that need more: measured with the real
// limiter at that size, per key, for the frontier's knee (Measured); at the
// other points Keys lists them without the counts.
type Quantile struct {
	Size     int64
	Policy   algorithms.Policy
	Measured bool
	// Keys are the keys whose own size is above Size, largest need first.
	Keys []TopKey
}

// TopKey is a key the quantile policy refuses.
type TopKey struct {
	Key      string
	Requests int64
	// Size is what the key alone needs.
	Size int64
	// Refused is how many of its requests the quantile policy refused, the
	// first at FirstRefusal and the last at LastRefusal (when Measured).
	Refused                   int64
	FirstRefusal, LastRefusal time.Duration
	// id is the key's number: its index in Result.PerKey.
	id int
}

// Budget is the size that refuses at most Options.RejectAtMost of the
// requests, each share measured by a whole pass of the real limiter.
type Budget struct {
	Size    int64
	Policy  algorithms.Policy
	Refused int64 // at Size, of Requests
	// SmallerValid says Size − 1 is a valid size; SmallerRefused is then
	// what it refused: more than the share allows.
	SmallerValid   bool
	SmallerRefused int64
	Requests       int64
}

// Knees are the policies --save keeps: each frontier's knee, in the order
// of Frontiers, skipping a frontier with no feasible point.
func (r *Result) Knees() []algorithms.Policy {
	var ps []algorithms.Policy
	for _, f := range r.Frontiers {
		if f.Knee >= 0 {
			ps = append(ps, f.Points[f.Knee].Policy)
		}
	}
	return ps
}

// Frontier is the frontier of algorithm a, or nil if the fit made none.
func (r *Result) Frontier(a algorithms.Algorithm) *Frontier {
	for i := range r.Frontiers {
		if r.Frontiers[i].Algorithm == a {
			return &r.Frontiers[i]
		}
	}
	return nil
}
