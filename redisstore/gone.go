package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// holds reports whether the server should hold lane's hash: the store
// wrote it, and deleted it not since.
func (s *Store) holds(lane, hash string) bool { return s.held[lane][hash] }

// hold records that lane's hash is written, or (false) deleted.
func (s *Store) hold(lane, hash string, held bool) {
	if !held {
		delete(s.held[lane], hash)
		return
	}
	if s.held[lane] == nil {
		s.held[lane] = map[string]bool{}
	}
	s.held[lane][hash] = true
}

// gone is the error for lane's hash, which the store wrote, found missing:
// on a server that evicts keys (a maxmemory-policy other than noeviction)
// and has evicted some, eviction is the likely cause; else another client
// deleted it. The server holding the hash is asked (INFO).
func (s *Store) gone(hash string) error {
	var c *redis.Client
	where := s.where
	ctx, cancel := s.ctx()
	defer cancel()
	if cc, ok := s.client.(*redis.ClusterClient); ok {
		node, err := cc.MasterForKey(ctx, hash)
		if err != nil {
			return goneError(hash, where, eviction{err: err})
		}
		c, where = node, "cluster node "+node.Options().Addr
	} else {
		c = s.client.(*redis.Client)
	}
	return goneError(hash, where, evictionOf(ctx, c))
}

// eviction is what a server says of its evicting keys: maxmemory_policy
// (INFO memory) and evicted_keys (INFO stats), or why it did not say.
type eviction struct {
	policy  string
	evicted int64
	err     error
}

func evictionOf(ctx context.Context, c *redis.Client) eviction {
	var ev eviction
	mem, err := c.Info(ctx, "memory").Result()
	if err != nil {
		return eviction{err: err}
	}
	stats, err := c.Info(ctx, "stats").Result()
	if err != nil {
		return eviction{err: err}
	}
	ev.policy = infoField(mem, "maxmemory_policy")
	evicted := infoField(stats, "evicted_keys")
	if ev.policy == "" || evicted == "" {
		return eviction{err: errors.New("INFO gives no maxmemory_policy or evicted_keys")}
	}
	if ev.evicted, err = strconv.ParseInt(evicted, 10, 64); err != nil {
		return eviction{err: fmt.Errorf("INFO's evicted_keys is %q", evicted)}
	}
	return ev
}

// infoField is name's value in an INFO reply ("name:value" lines), "" if
// absent.
func infoField(info, name string) string {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return v
		}
	}
	return ""
}

// goneError words the disappearance of hash from the server where: evicted
// if the server evicts keys and has evicted some, else deleted.
func goneError(hash, where string, ev eviction) error {
	switch {
	case ev.err != nil:
		return fmt.Errorf("the hash %s that ratelab wrote is gone from redis at %s, which did not say whether it evicts keys (%s): Redis evicting it (a maxmemory-policy other than noeviction) or another client deleting it took it; run again on a server with maxmemory-policy noeviction, alone on its database",
			hash, where, firstLine(ev.err.Error()))
	case ev.policy != "noeviction" && ev.evicted > 0:
		return fmt.Errorf("the hash %s that ratelab wrote is gone from redis at %s, which evicts keys to stay under its maxmemory (maxmemory-policy %s, evicted_keys %d): Redis likely evicted it; give the server more memory (maxmemory) or set maxmemory-policy noeviction, then run again",
			hash, where, ev.policy, ev.evicted)
	}
	return fmt.Errorf("the hash %s that ratelab wrote is gone from redis at %s, which did not evict it (maxmemory-policy %s, evicted_keys %d): another client deleted it (another ratelab clearing a lane of this name on this database, a FLUSHDB, or its garbage-collection TTL after a day idle); run again, alone on this database",
		hash, where, ev.policy, ev.evicted)
}
