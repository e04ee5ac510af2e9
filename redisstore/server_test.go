package redisstore

import (
	"context"
	"os"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"ratelab/algorithms"
)

// server is a Redis the tests run against.
type server struct {
	name string
	url  string
	// fresh, when set, starts a server of the same kind for one lesson
	// alone and returns its URL (see lessons).
	fresh func(t *testing.T) string
}

// servers are the Redis servers to test against: an in-process miniredis
// always, the real server at RATELAB_REDIS_URL and the cluster at
// RATELAB_REDIS_CLUSTER when set (.ci/run starts both).
func servers(t *testing.T) []server {
	t.Helper()
	mini := miniredis.RunT(t)
	list := []server{{"miniredis", "redis://" + mini.Addr() + "/0", freshMiniredis}}
	if u := os.Getenv("RATELAB_REDIS_URL"); u != "" {
		list = append(list, server{"redis", u, nil})
	}
	if u := os.Getenv("RATELAB_REDIS_CLUSTER"); u != "" {
		list = append(list, server{"cluster", u, nil})
	}
	return list
}

func freshMiniredis(t *testing.T) string { return "redis://" + miniredis.RunT(t).Addr() + "/0" }

// lesson is one run of a test that runs many on a server: a policy's
// trace, named.
type lesson struct {
	name string
	run  func(t *testing.T, st *Store)
}

// lessons runs each lesson as a subtest on srv, one after the other, each
// on a store of its own and, on an in-process server, a server of its own:
// a lesson that failed or timed out leaves its store failed (Err: every
// later call refused) and its server maybe still busy with its call,
// neither of which the next lesson may inherit. On a shared server each
// lesson's lane is its own, cleared when the lesson's limiter is made.
func lessons(t *testing.T, srv server, ls []lesson) {
	t.Helper()
	for _, l := range ls {
		t.Run(l.name, func(t *testing.T) {
			own := srv
			if srv.fresh != nil {
				own.url = srv.fresh(t)
			}
			l.run(t, open(t, own))
		})
	}
}

// short is whether tests run their heaviest cases shorter: with -short,
// and under the race detector, which slows the in-process server's Lua
// about tenfold (see race_on.go).
func short() bool { return testing.Short() || raceEnabled }

// traceLength is how many requests a random trace for p has: n, or when
// short() a quarter of it, and an eighth for a policy whose every call
// walks hundreds of sub-windows (the sliding counter's, up to 1,000).
func traceLength(p algorithms.Policy, n int) int {
	switch {
	case short() && p.SubWindows >= 100:
		return n / 8
	case short():
		return n / 4
	}
	return n
}

// open opens srv's store, closed when the test ends.
func open(t *testing.T, srv server) *Store {
	t.Helper()
	s, err := Open(srv.url)
	if err != nil {
		t.Fatalf("%s: %v", srv.name, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// flushScripts empties the server's script cache (every node's), as a
// restart would: the next call by SHA answers NOSCRIPT.
func (s *Store) flushScripts(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	var err error
	if cc, ok := s.client.(*redis.ClusterClient); ok {
		err = cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return c.ScriptFlush(ctx).Err() })
	} else {
		err = s.client.ScriptFlush(ctx).Err()
	}
	if err != nil {
		t.Fatal(err)
	}
}
