// Package algorithms holds six exact rate limiters: fixed window, sliding
// log, sliding counter, token bucket, GCRA and leaky bucket.
//
// Every limiter is a pure state transition: given its policy, one key's
// state, the time now and a request's cost, it returns the key's new state
// and a Decision. Nothing here reads a clock, starts a goroutine or takes a
// lock; the caller owns time and concurrency.
//
// Time is a time.Duration counted from the scenario's start (t = 0), so it is
// an integer number of nanoseconds. No floating point takes part in a
// decision: balances, estimates and instants are kept as exact integers or
// rationals, a request exactly at a threshold is decided exactly, and every
// reported wait (Delay, RetryAfter) is the exact value rounded up to a whole
// nanosecond. Rates are kept as N per Per; intervals Per/N that are not a
// whole number of nanoseconds are kept on a grid of 1/N ns.
//
// The rule each algorithm follows is documented on its Algorithm constant.
package algorithms
