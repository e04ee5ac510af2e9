// Package fleet makes a lane of several gateways behind a balancer out of
// the algorithms' limiters: which gateway takes each request (Route), where
// the gateways keep their state (Store: each its own, a share of the
// policy each, one shared state, one raced over, or views synced now and
// then), and what goes wrong around them: outages of a shared store and
// the fallback that decides meanwhile, idle keys expired, clocks skewed.
// One gateway whose store always answers and forgets nothing, on a clock
// that is right, decides as the plain limiter (Config.Plain); so does a
// shared store, whatever the gateways, on the same terms. A shared state
// may live in a server (NewOn, with package redisstore's Maker);
// everything else a lane keeps is in memory.
//
// Every decision is also measured against the yardstick, the lane's policy
// on one shared atomic store fed the same requests, so that a lane can say
// how many requests it admitted beyond its policy
// (algorithms.Decision.Beyond); a lane that forgets (idle expiry, a store
// that comes back empty) is also measured against the same lane that
// forgets nothing (Decision.Forgot). Like the algorithms, a fleet reads no
// clock and draws no random number: the random route hashes the scenario's
// seed with the request's serial number, so a run repeats exactly, and a
// clone routes as the original.
//
// The yardstick is not asked about a request it is sure to refuse: a
// textbook algorithm's rejection changes nothing that decides and its
// RetryAfter is exact, so the same request of a key before its refusal's
// RetryAfter is refused again (Limiter.measure).
//
// config.go holds a lane's configuration and its words, limiter.go the
// Limiter (routing, deciding, measuring, showing a key), stores.go what
// each store does between a gateway and the state, racy.go the racy
// store's reads and the writes in flight: each read one key's state in a
// slot of that key's own, taken again once nothing holds it, so that a
// racy decision copies one key's state, allocates nothing of its own, and
// a hot key's many reads in flight make slots for that key alone.
package fleet
