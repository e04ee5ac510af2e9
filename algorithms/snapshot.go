package algorithms

import "time"

// Snapshot is an immutable picture of one key's state at a moment, for
// display. It is one of the *Snapshot types below; switch on its type.
type Snapshot interface {
	// Moment is the time the snapshot describes.
	Moment() time.Duration
}

// TokenBucketSnapshot shows a token bucket's balance.
type TokenBucketSnapshot struct {
	Now      time.Duration
	Capacity int64
	Rate     Rate
	// Available is the balance at Now, refill included, in tokens.
	Available Quantity
	// FullAt is when the bucket will be full again if nothing is spent
	// (rounded up); Now when it is full already.
	FullAt time.Duration
}

// GCRASnapshot shows GCRA's theoretical arrival time (TAT) against now.
type GCRASnapshot struct {
	Now   time.Duration
	Burst int64
	Rate  Rate
	// Interval is the emission interval T = Per/N, in nanoseconds.
	Interval Quantity
	// Tolerance is the burst tolerance B × T, in nanoseconds.
	Tolerance Quantity
	// TAT is the theoretical arrival time, rounded up; it is Now when the
	// key is idle (TAT in the past counts as Now).
	TAT time.Duration
	// Available is the equivalent token balance: (Now − (TAT − B×T)) / T,
	// capped at Burst.
	Available Quantity
}

// FixedWindowSnapshot shows the current aligned window's counter.
type FixedWindowSnapshot struct {
	Now    time.Duration
	Limit  int64
	Window time.Duration
	// Start and End bound the current window [Start, End).
	Start, End time.Duration
	// Count is the admitted cost in the current window, Previous in the one
	// before it.
	Count, Previous int64
}

// LogEntry is one admission in a sliding log.
type LogEntry struct {
	At   time.Duration
	Cost int64
}

// SlidingLogSnapshot shows the admissions inside (Now − Window, Now].
type SlidingLogSnapshot struct {
	Now    time.Duration
	Limit  int64
	Window time.Duration
	// Entries are the recent admissions, oldest first. The slice is a copy.
	Entries []LogEntry
	// Count is the sum of the entries' costs.
	Count int64
	// OldestExpiresAt is when the oldest entry stops counting (its At +
	// Window); zero when there are no entries.
	OldestExpiresAt time.Duration
}

// SlidingCounterSnapshot shows the counters and the weighted estimate. The
// window is counted in SubWindows sub-windows of SubWindow each (one of
// Window, the classic current and previous windows, when sub_windows is
// left out).
type SlidingCounterSnapshot struct {
	Now    time.Duration
	Limit  int64
	Window time.Duration
	// SubWindows is the number N of sub-windows, SubWindow their length
	// Window / N.
	SubWindows int64
	SubWindow  time.Duration
	// Start is the start of the current aligned (sub-)window.
	Start time.Duration
	// Current is the admitted cost in the current sub-window, Middle in the
	// N − 1 whole sub-windows before it (0 when N = 1), and Previous in the
	// oldest one, before those, of which only the share Weight still
	// counts.
	Current, Middle, Previous int64
	// Counts are, when N > 1, the N + 1 sub-windows' counts, oldest
	// (Previous) first, current last; nil when N = 1. The slice is a copy.
	Counts []int64
	// Weight is the oldest sub-window's share still counted: (SubWindow −
	// elapsed) / SubWindow.
	Weight Quantity
	// Estimate is Current + Middle + Previous × Weight, over SubWindow.
	Estimate Quantity
}

// Release is a request waiting in a leaky bucket's queue.
type Release struct {
	// Arrived is when the request came; At is when it is released (rounded up).
	Arrived, At time.Duration
	Cost        int64
}

// LeakyBucketSnapshot shows the shaper's queue.
type LeakyBucketSnapshot struct {
	Now   time.Duration
	Queue int64
	Rate  Rate
	// Interval is the release pace I = Per/N, in nanoseconds.
	Interval Quantity
	// Waiting are the admitted requests not yet released at Now, in release
	// order. The slice is a copy.
	Waiting []Release
	// NextFree is when the pipe can next release a request (rounded up); Now
	// when it is idle.
	NextFree time.Duration
}

func (s TokenBucketSnapshot) Moment() time.Duration    { return s.Now }
func (s GCRASnapshot) Moment() time.Duration           { return s.Now }
func (s FixedWindowSnapshot) Moment() time.Duration    { return s.Now }
func (s SlidingLogSnapshot) Moment() time.Duration     { return s.Now }
func (s SlidingCounterSnapshot) Moment() time.Duration { return s.Now }
func (s LeakyBucketSnapshot) Moment() time.Duration    { return s.Now }
