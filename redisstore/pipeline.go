package redisstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"ratelab/algorithms"
)

// scriptCall is one decision's script call and the verdict memory gave the
// same request, which the server's reply must equal.
type scriptCall struct {
	script *script
	hash   string
	args   []any
	want   [3]int64
	lane   string
	key    string
	now    time.Duration
	cmd    *redis.Cmd // when queued in a pipeline
}

// Pipeline has decisions' script calls sent n at a time, in one round
// trip (a pipeline), their replies checked when the batch comes back: the
// calls still run one after the other in the server, in order, so a key's
// decisions keep theirs. The shadow's decision is the answer either way;
// only the check waits. n ≤ 1: one round trip a decision, as a client
// waiting for each verdict makes (the explorer's). Any plain read or write
// sends the batch first.
func (s *Store) Pipeline(n int) { s.batch = n }

// run makes c's call: at once, or queued in the pipeline.
func (s *Store) run(c *scriptCall) {
	if s.batch <= 1 {
		ctx, cancel := s.ctx()
		defer cancel()
		s.check(c, c.script.lua.Run(ctx, s.client, []string{c.hash}, c.args...))
		return
	}
	if s.pipe == nil {
		s.pipe = s.client.Pipeline()
	}
	c.cmd = c.script.lua.EvalSha(context.Background(), s.pipe, []string{c.hash}, c.args...)
	s.queued = append(s.queued, c)
	if len(s.queued) >= s.batch {
		s.Flush()
	}
}

// Flush sends the queued calls and checks their replies, returning the
// store's failure if it has one. The calls the server refused with
// NOSCRIPT (its script cache flushed, or a new server) are made again, in
// order, loading their scripts; if a later call on the same hash ran
// meanwhile (another client loaded the script again), the order is lost
// and the store fails, saying so.
func (s *Store) Flush() error {
	defer func() {
		clear(s.queued)
		s.queued = s.queued[:0]
	}()
	if len(s.queued) == 0 || s.err != nil {
		return s.err
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout+time.Duration(len(s.queued))*time.Millisecond)
	defer cancel()
	s.pipe.Exec(ctx)             // each call's error is its own, read below
	refused := map[string]bool{} // hashes with a call refused by NOSCRIPT
	for _, c := range s.queued {
		noScript := isNoScript(c.cmd.Err())
		if !noScript && refused[c.hash] {
			s.fail(fmt.Errorf("lane %s, key %s, at %s: the server's scripts were flushed while a batch of calls ran, and loaded again by another client before it ended: the calls on this key ran out of order; run again",
				c.lane, c.key, algorithms.FormatSeconds(c.now)))
			return s.err
		}
		if noScript {
			refused[c.hash] = true
		}
	}
	for _, c := range s.queued {
		if isNoScript(c.cmd.Err()) {
			ctx, cancel := s.ctx()
			c.cmd = c.script.lua.Run(ctx, s.client, []string{c.hash}, c.args...)
			cancel()
		}
		if isTimeout(c.cmd.Err()) {
			// A cluster's node that failed holds the calls to the other
			// nodes up until the deadline: the call whose error says what
			// happened to its node is the one to report.
			for _, o := range s.queued {
				if err := o.cmd.Err(); err != nil && !isTimeout(err) && !isNoScript(err) {
					c = o
					break
				}
			}
		}
		if !s.check(c, c.cmd) {
			break
		}
	}
	return s.err
}

// isTimeout reports whether err is a call's deadline passing.
func isTimeout(err error) bool {
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout()
}

func isNoScript(err error) bool { return err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") }

// failure is the error of a pipeline's commands to explain, and its key
// (for explainAt: a cluster's commands go to the nodes of their keys): the
// first that is not a timeout, if any (see Flush), else err, the pipeline's.
func failure(cmds []redis.Cmder, err error) (error, string) {
	key := func(c redis.Cmder) string {
		if len(c.Args()) > 1 {
			if k, ok := c.Args()[1].(string); ok {
				return k
			}
		}
		return ""
	}
	for _, c := range cmds {
		if c.Err() != nil && !isTimeout(c.Err()) {
			return c.Err(), key(c)
		}
	}
	for _, c := range cmds {
		if c.Err() != nil {
			return c.Err(), key(c)
		}
	}
	return err, ""
}

// check fails the store if c's reply is an error or differs from the
// verdict memory gave; it reports whether all is well.
func (s *Store) check(c *scriptCall, cmd *redis.Cmd) bool {
	reply, err := cmd.Int64Slice()
	if err != nil {
		if strings.HasPrefix(err.Error(), "GONE ") {
			err = s.gone(c.hash)
		} else {
			err = s.explainAt(err, c.hash)
		}
		s.fail(fmt.Errorf("lane %s, key %s, at %s: %w", c.lane, c.key, algorithms.FormatSeconds(c.now), err))
		return false
	}
	if len(reply) != 3 || reply[0] != c.want[0] || reply[1] != c.want[1] || reply[2] != c.want[2] {
		s.fail(fmt.Errorf("lane %s, key %s, at %s: Redis's %s answered %v (outcome, delay, retry after), memory %v (is another ratelab running a lane of this name on this database?)",
			c.lane, c.key, algorithms.FormatSeconds(c.now), c.script.file, reply, c.want))
		return false
	}
	return true
}
