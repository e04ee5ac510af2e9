// Package algorithms holds ratelab's rate limiters, in three families
// (Family): the textbook's exact algorithms, the six of the lessons (fixed
// window, sliding log, sliding counter, token bucket, GCRA, leaky bucket)
// and their variants (the interval bucket, a sliding counter in
// sub-windows, a bucket that starts empty); the rules of rate-limiting
// libraries as those libraries implement them (nginx's limit_req, Envoy's
// local rate limit, Guava's RateLimiter, golang.org/x/time/rate,
// redis-cell, go-redis/redis_rate); and mistakes the lessons warn against,
// each beside the exact algorithm it gets wrong (its twin). Algorithms
// lists every one; docs/algorithms.md has a row for each, drawn from its
// description.
//
// Each algorithm lives in a file of its own (tokenbucket.go, nginx.go, ...):
// its rule, documented on its Algorithm constant; its Description,
// registered from the file's init, which is all the rest of ratelab reads
// of it (parameters, bounds, words, state form, a lesson-sized example and
// the edges of its arithmetic); its transition; and its Snapshot type,
// what the explorer draws. A Limiter (New) applies one policy to many keys,
// writing DecideInto alone: Decide and DecideKey come from the Decider it
// embeds.
//
// Every limiter is a pure state transition: given its policy, one key's
// state, the time now and a request's cost, it returns the key's new state
// and a Decision. Nothing here reads a clock, starts a goroutine or takes a
// lock; the caller owns time and concurrency.
//
// Time is a time.Duration counted from the scenario's start (t = 0), so it
// is an integer number of nanoseconds. The textbook algorithms decide in
// integers alone: balances, estimates and instants are kept as exact
// integers or rationals, a request exactly at a threshold is decided
// exactly, and every reported wait (Delay, RetryAfter) is the exact value
// rounded up to a whole nanosecond. Rates are kept as N per Per; intervals
// Per/N that are not a whole number of nanoseconds are kept on a grid of
// 1/N ns. A library's rule keeps that library's arithmetic, and its
// constant's documentation says which: nginx's thousandths of a request
// and whole milliseconds, redis-cell's interval truncated to a nanosecond,
// and floating point where the library decides in it, Guava's doubles and
// x/time/rate's float64. Among the mistakes, the float token bucket decides
// in float64 on purpose: floating point is the mistake it shows.
package algorithms
