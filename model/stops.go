package model

import "time"

// StopKind says what a Stop is.
type StopKind uint8

const (
	// NoStop: nothing lies that way; the clock stays where it is.
	NoStop StopKind = iota
	// RequestStop is a position in the timeline: SeekPos(Stop.Pos) goes
	// there.
	RequestStop
	// RetryStop is an instant where some lane decides retries and no
	// request arrives: Seek(Stop.At) goes there.
	RetryStop
)

// Stop is where the clock goes when it moves one request at a time, as
// NextStop and PrevStop find it.
type Stop struct {
	Kind StopKind
	// Pos, for a RequestStop, is how many requests are decided there:
	// SeekPos(Pos) goes there. 0 for the other kinds.
	Pos int
	// At is the clock there: for a RequestStop the instant SeekPos(Pos)
	// moves the clock to, for a RetryStop the retries' instant; 0 for
	// NoStop.
	At time.Duration
}

// NextStop is where one request forward is from the clock: inside an
// instant of several requests, the next request of it decided (Pos + 1);
// else the next request's instant with only its first request decided
// (also Pos + 1). A lane's retries that come before that request (or
// after the last request) are a stop of their own, a RetryStop, first.
// NoStop when neither is left. The clock does not move; the lab may
// decide ahead as far as NextRetry does.
func (l *Lab) NextStop() Stop {
	p := l.Pos()
	req := Stop{}
	if p < l.Len() {
		req = Stop{Kind: RequestStop, Pos: p + 1, At: l.Request(p).At}
	}
	if t, ok := l.NextRetry(l.Now()); ok && (req.Kind == NoStop || t < req.At) {
		return Stop{Kind: RetryStop, At: t}
	}
	return req
}

// PrevStop is where one request back is from the clock: onto the latest
// request decided when the clock stands past its instant (Pos, moved back
// to that instant); else, inside an instant or on it, the previous request
// (Pos − 1), which for the first request of an instant is the last of the
// instant before, and for the first request of the timeline is before it
// at its own instant. A lane's retries that come after that stop and
// before the clock are a stop of their own, a RetryStop, first. NoStop when
// neither is left. The clock does not move; the lab may decide ahead as
// far as PrevRetry does.
func (l *Lab) PrevStop() Stop {
	p, now := l.Pos(), l.Now()
	req := Stop{}
	switch {
	case p > 0 && l.Request(p-1).At < now:
		req = Stop{Kind: RequestStop, Pos: p, At: l.Request(p - 1).At}
	case p > 1:
		req = Stop{Kind: RequestStop, Pos: p - 1, At: l.Request(p - 2).At}
	case p == 1:
		req = Stop{Kind: RequestStop, Pos: 0, At: l.Request(0).At}
	}
	if t, ok := l.PrevRetry(now); ok && (req.Kind == NoStop || t > req.At) {
		return Stop{Kind: RetryStop, At: t}
	}
	return req
}
