// Package model is the lab: a scenario's limiters ("lanes") run side by side
// over one timeline of requests, on a virtual clock that can be stepped,
// sought and rewound. It also streams whole scenarios for the command line
// and checks their expectations.
//
// Everything is deterministic: the decisions at any time depend only on the
// events before it, never on the path the clock took to get there. Seeking
// restores the nearest checkpoint and replays from there: at most
// CheckpointEvery events where the lanes' states are small, so it costs the
// same in a timeline of a thousand or a million requests; checkpoints share
// the states and hold at most a few bytes per request whatever the states
// hold, further apart where those change a lot (see checkpointBudget).
//
// The model knows nothing of screens; it reads no clock.
package model
