package redisstore

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// lanePattern matches every hash of lane, for SCAN: its glob characters
// escaped.
func lanePattern(lane string) string {
	var b strings.Builder
	b.WriteString(Prefix + "{")
	for _, r := range lane {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteString(":*")
	return b.String()
}

// ClearLane deletes every hash of lane (found by SCAN on every node, never
// FLUSHDB), returning how many there were. It deletes only what has the
// shape of a lane's hash (see laneField): a key under the lane's prefix
// that is anything else is someone else's, and ClearLane then deletes
// nothing and says which key it is.
func (s *Store) ClearLane(lane string) (int, error) {
	if err := s.Flush(); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*Timeout)
	defer cancel()
	// Every node's keys are found and checked before any is deleted: a
	// foreign key on one node stops the clearing of all.
	var mu sync.Mutex
	found := map[string][]string{} // the lane's hashes, by node
	var foreign error
	find := func(ctx context.Context, c *redis.Client) error {
		iter := c.Scan(ctx, 0, lanePattern(lane), 1000).Iterator()
		var keys []string
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		if err := iter.Err(); err != nil {
			return err
		}
		key, what, err := checkLaneHashes(ctx, c, keys)
		mu.Lock()
		defer mu.Unlock()
		if what != "" && foreign == nil {
			foreign = fmt.Errorf("lane %s: %q in redis at %s is %s, not a hash ratelab wrote, and ratelab deletes only its own: remove that key yourself, or choose another database (redis://HOST:PORT/DB)",
				lane, key, s.nodeName(c), what)
		}
		found[c.Options().Addr] = keys
		return err
	}
	unlink := func(ctx context.Context, c *redis.Client) error {
		// One key a command, pipelined: a cluster's keys may lie in any
		// slot, which one UNLINK of several refuses.
		pipe := c.Pipeline()
		for _, k := range found[c.Options().Addr] {
			pipe.Unlink(ctx, k)
		}
		_, err := pipe.Exec(ctx)
		return err
	}
	if err := s.eachNode(ctx, find); err != nil {
		return 0, err
	}
	if foreign != nil {
		return 0, foreign
	}
	if err := s.eachNode(ctx, unlink); err != nil {
		return 0, err
	}
	delete(s.held, lane)
	n := 0
	for _, keys := range found {
		n += len(keys)
	}
	return n, nil
}

// eachNode calls f on the server, or on each of a cluster's masters at
// once, explaining the first failure.
func (s *Store) eachNode(ctx context.Context, f func(context.Context, *redis.Client) error) error {
	var err error
	if cc, ok := s.client.(*redis.ClusterClient); ok {
		err = cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
			if err := f(ctx, c); err != nil {
				return &nodeError{c.Options().Addr, err}
			}
			return nil
		})
	} else {
		err = f(ctx, s.client.(*redis.Client))
	}
	if err != nil {
		return s.explain(err)
	}
	return nil
}

// nodeName names c, one of s's clients: the server as Where does, or a
// cluster's node by its address.
func (s *Store) nodeName(c *redis.Client) string {
	if _, ok := s.client.(*redis.ClusterClient); ok {
		return "cluster node " + c.Options().Addr
	}
	return s.where
}

// checkLaneHashes finds the first of keys (on c) that is not a lane's
// hash, and what it is instead: "a string", "a hash with a field \"name\"";
// "" when all are lanes' hashes (or gone since SCAN found them).
func checkLaneHashes(ctx context.Context, c *redis.Client, keys []string) (key, what string, err error) {
	for len(keys) > 0 {
		batch := keys[:min(len(keys), 100)]
		keys = keys[len(batch):]
		pipe := c.Pipeline()
		types := make([]*redis.StatusCmd, len(batch))
		fields := make([]*redis.StringSliceCmd, len(batch))
		for i, k := range batch {
			types[i] = pipe.Type(ctx, k)
			fields[i] = pipe.HKeys(ctx, k) // WRONGTYPE for a key not a hash, which TYPE says
		}
		pipe.Exec(ctx) // each command's error is its own, read below
		for i, k := range batch {
			typ, err := types[i].Result()
			if err != nil {
				return "", "", err
			}
			switch typ {
			case "none": // expired or deleted since SCAN found it
			case "hash":
				names, err := fields[i].Result()
				if err != nil {
					return "", "", err
				}
				for _, f := range names {
					if !laneField(f) {
						return k, fmt.Sprintf("a hash with a field %q", f), nil
					}
				}
			default:
				return k, "a " + typ, nil
			}
		}
	}
	return "", "", nil
}
