// Package model is the lab: a scenario's limiters ("lanes") run side by side
// over one timeline of requests, on a virtual clock that can be stepped,
// sought and rewound. It also streams whole scenarios for the command line
// (Run, RunByKey) and checks their expectations (Check).
//
// Everything is deterministic: the decisions at any time depend only on the
// events before it, never on the path the clock took to get there. Seeking
// restores the nearest checkpoint and replays from there: at most
// CheckpointEvery events where the lanes' states are small, so it costs the
// same in a timeline of a thousand or a million requests; checkpoints share
// the states and hold at most a few bytes per request whatever the states
// hold, further apart where those change a lot (see checkpointBudget).
//
// A Lab is a front over four parts, each a type of its own with its own
// tests:
//
//   - timeline (timeline.go, events.go, history.go): the requests in time
//     order, kept compactly, their keys, the time axis, and the learner's
//     fire actions and resets, which undo takes back. An action reports the
//     first request it changed (a change).
//   - engine (engine.go): the decisions. It decides the timeline lazily on
//     its frontier, keeps each lane's verdicts, delays, marks and tallies,
//     takes checkpoints within the budget, restores and replays from them,
//     and forgets what it decided from a change on.
//   - clock (clock.go): Now and the live state the lab shows there, moved
//     on or restored from the engine's checkpoint before it.
//   - caches (caches.go): answers a screen asks for every frame (latencies,
//     a key's totals and last decisions, a span's replay, running sums),
//     each kept for as long as its stamp (the engine's generation and the
//     clock) holds.
//
// The lanes at one point of a timeline (lanes.go) are the engine's unit:
// the frontier, each checkpoint and the live state are one, and so is the
// streaming runner's. A lane is a scenario's lane (Lane is scenarios.Lane).
// The peaks are measured by the internal package peak, whose trackers keep
// a trailing window's passages compressed whatever its length; every heap
// (the retries a lane owes, the releases in flight) is kept by
// ratelab/internal/minheap.
//
// The model knows nothing of screens; it reads no clock.
package model
