package redisstore

import (
	"context"
	"os"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// server is a Redis the tests run against.
type server struct {
	name string
	url  string
}

// servers are the Redis servers to test against: an in-process miniredis
// always, the real server at RATELAB_REDIS_URL and the cluster at
// RATELAB_REDIS_CLUSTER when set (.ci/run starts both).
func servers(t *testing.T) []server {
	t.Helper()
	mini := miniredis.RunT(t)
	list := []server{{"miniredis", "redis://" + mini.Addr() + "/0"}}
	if u := os.Getenv("RATELAB_REDIS_URL"); u != "" {
		list = append(list, server{"redis", u})
	}
	if u := os.Getenv("RATELAB_REDIS_CLUSTER"); u != "" {
		list = append(list, server{"cluster", u})
	}
	return list
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
