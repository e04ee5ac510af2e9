// Package fit finds, for a recorded traffic, the smallest policy of each
// algorithm that refuses nobody: for every rate (or window) of a grid, the
// smallest capacity, burst, queue or limit under which the limiter of
// package algorithms admits every request of the traffic. The answers form
// a frontier per algorithm (size against rate, or limit against window),
// with its knee marked (see Frontier.Knee): the policy to save.
//
// Every answer is exact. One pass over the traffic computes each
// algorithm's requirement in the algorithm's own integer arithmetic (the
// largest backlog of a bucket, the largest cost in a window, the sliding
// counter's own weighted estimate, nginx's thousandths and milliseconds,
// redis-cell's truncated interval); a later pass runs the real limiters
// (algorithms.New) at the answer and at the answer less one, and the
// Result says which answers were so confirmed. No floating point of fit's
// decides anything: rates are algorithms.Rate, shares integer parts per
// million.
//
// Supported lists the algorithms fitted; Default those fitted unless
// asked. x/time/rate (algorithms.XTimeRate) is the one library that
// decides in float64 among them: its burst is computed as the exact token
// bucket's capacity, the integer answer its arithmetic approximates, and
// then the library itself is run at every rate (not only at the knee), a
// search by real runs settling any rate where its rounding disagrees. The
// others are left out: those whose float arithmetic has no integer
// answer to start from (Guava's stored permits, the float token bucket);
// the variants and libraries not yet worked through (sub-window counters,
// the interval bucket, a bucket starting empty, Envoy, redis_rate); and
// the mistakes.
//
// A fit reads its Source a few times (see Fit) and never keeps the
// requests: its memory grows with the keys, the algorithms and the grid,
// with the requests inside the sliding log's longest window (packed in 3
// to 5 bytes each), and, in the confirming pass, with what the real
// limiters keep (a sliding log's admissions within its window at the
// knee). Within a call, Fit decides in as many goroutines as there are
// processors; it calls the Source from its own goroutine only.
package fit
