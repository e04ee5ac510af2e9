package redisstore

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	miniserver "github.com/alicebob/miniredis/v2/server"
	"github.com/redis/go-redis/v9"

	"ratelab/algorithms"
)

// fakeEviction makes mini answer INFO memory and INFO stats as a server
// whose maxmemory-policy is policy and which has evicted evicted keys
// (miniredis answers neither section, and cannot evict).
func fakeEviction(mini *miniredis.Miniredis, policy string, evicted int) {
	mini.Server().SetPreHook(func(c *miniserver.Peer, cmd string, args ...string) bool {
		if cmd != "INFO" || len(args) != 1 {
			return false
		}
		switch strings.ToLower(args[0]) {
		case "memory":
			c.WriteBulk("# Memory\r\nused_memory:1000000\r\nmaxmemory:1048576\r\nmaxmemory_policy:" + policy + "\r\n")
		case "stats":
			c.WriteBulk(fmt.Sprintf("# Stats\r\nexpired_keys:0\r\nevicted_keys:%d\r\n", evicted))
		default:
			return false
		}
		return true
	})
}

// TestAHashGoneIsExplained: a lane's hash that disappears mid-run (Redis
// evicting it under maxmemory, simulated by deleting it) fails the store
// on the next call on it, pipelined or not, or the next plain read, in
// one line saying eviction is the likely cause when the server evicts keys
// and has evicted some (naming its policy and evicted_keys), that another
// client deleted it when it did not, and that either may have when the
// server does not say; never that another ratelab ran the lane.
func TestAHashGoneIsExplained(t *testing.T) {
	for _, c := range []struct {
		policy  string // "": INFO as miniredis answers it, without the figures
		evicted int
		want    string
	}{
		{"allkeys-lru", 7, "which evicts keys to stay under its maxmemory (maxmemory-policy allkeys-lru, evicted_keys 7): Redis likely evicted it; give the server more memory (maxmemory) or set maxmemory-policy noeviction, then run again"},
		{"volatile-ttl", 1, "which evicts keys to stay under its maxmemory (maxmemory-policy volatile-ttl, evicted_keys 1): Redis likely evicted it"},
		{"noeviction", 0, "which did not evict it (maxmemory-policy noeviction, evicted_keys 0): another client deleted it"},
		{"allkeys-lru", 0, "which did not evict it (maxmemory-policy allkeys-lru, evicted_keys 0): another client deleted it"},
		{"", 0, "which did not say whether it evicts keys (section (memory) is not supported): Redis evicting it"},
	} {
		for _, how := range []string{"call", "pipelined", "read"} {
			mini := miniredis.RunT(t)
			if c.policy != "" {
				fakeEviction(mini, c.policy, c.evicted)
			}
			st, err := Open("redis://" + mini.Addr() + "/0")
			if err != nil {
				t.Fatal(err)
			}
			if how == "pipelined" {
				st.Pipeline(64)
			}
			p := algorithms.Policy{Algorithm: algorithms.SlidingLog, Limit: 5, Window: time.Second}
			ks := algorithms.NewKeys()
			lim, err := st.Maker("ev", time.Hour)(p, ks)
			if err != nil {
				t.Fatal(err)
			}
			k := ks.Key("k")
			lim.DecideKey(0, k, 1)
			// A key forgotten is not expected back, nor one never written.
			lim.DecideKey(0, ks.Key("gone-on-purpose"), 1)
			lim.(algorithms.KeyCopier).ForgetKey(ks.Key("gone-on-purpose"))
			lim.DecideKey(time.Millisecond, ks.Key("gone-on-purpose"), 1)
			lim.DecideKey(time.Millisecond, ks.Key("new"), 1)
			if err := st.Flush(); err != nil {
				t.Fatal(err)
			}
			mini.Del(HashKey("ev", "k"))
			if how == "read" {
				lim.(algorithms.StateCodec).ExportKey(k)
			} else {
				lim.DecideKey(2*time.Millisecond, k, 1)
			}
			err = st.Flush()
			prefix := "lane ev, key k"
			if how != "read" {
				prefix += ", at 0.002s"
			}
			want := fmt.Sprintf("%s: the hash rl:v1:{ev:k} that ratelab wrote is gone from redis at %s/0, %s", prefix, mini.Addr(), c.want)
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "another ratelab running") {
				t.Errorf("%s %d, %s: %v\nwant one line saying %q", c.policy, c.evicted, how, err, want)
			}
			st.Close()
		}
	}
}

// TestGoneMessage: which cause the message of a hash gone gives, by what
// the server says of its evicting keys.
func TestGoneMessage(t *testing.T) {
	for _, c := range []struct {
		ev   eviction
		want string
	}{
		{eviction{policy: "allkeys-lru", evicted: 12}, "Redis likely evicted it"},
		{eviction{policy: "volatile-lru", evicted: 1}, "Redis likely evicted it"},
		{eviction{policy: "allkeys-random", evicted: 3}, "Redis likely evicted it"},
		{eviction{policy: "noeviction", evicted: 0}, "did not evict it (maxmemory-policy noeviction, evicted_keys 0): another client deleted it"},
		// Evicted before the policy was changed to noeviction: not now.
		{eviction{policy: "noeviction", evicted: 5}, "did not evict it (maxmemory-policy noeviction, evicted_keys 5)"},
		{eviction{policy: "volatile-ttl", evicted: 0}, "another client deleted it"},
		{eviction{err: errors.New("ERR unknown command 'INFO'")}, "did not say whether it evicts keys (ERR unknown command 'INFO'): Redis evicting it (a maxmemory-policy other than noeviction) or another client deleting it took it"},
	} {
		err := goneError("rl:v1:{l:k}", "127.0.0.1:6379/0", c.ev)
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "the hash rl:v1:{l:k} that ratelab wrote is gone from redis at 127.0.0.1:6379/0") {
			t.Errorf("%+v: %q, want it to say %q", c.ev, err, c.want)
		}
	}
}

// TestEvictionOnARealServer: a real Redis with a maxmemory it is past,
// evicting (volatile-ttl: only keys with a TTL, which every lane's hash
// has; allkeys-lru: the least recently used, the lane's hashes decided on
// before the filling), takes a lane's hashes, and the store says Redis
// likely evicted them. Run when the real server's tests are (with
// RATELAB_REDIS_URL), but on a server of its own, started here: evicting
// on the shared one would take other tests' keys.
func TestEvictionOnARealServer(t *testing.T) {
	if os.Getenv("RATELAB_REDIS_URL") == "" {
		t.Skip("no real Redis (RATELAB_REDIS_URL)")
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("no redis-server to start a server of the test's own")
	}
	for _, policy := range []string{"volatile-ttl", "allkeys-lru"} {
		t.Run(policy, func(t *testing.T) {
			addr := startRedis(t, bin, "--maxmemory-policy", policy)
			st := open(t, server{name: "own", url: "redis://" + addr + "/0"})
			ctx := t.Context()
			used, err := st.client.Info(ctx, "memory").Result()
			if err != nil {
				t.Fatal(err)
			}
			base, _ := strconv.ParseInt(infoField(used, "used_memory"), 10, 64)
			p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 5, Rate: algorithms.Rate{N: 1, Per: time.Second}}
			ks := algorithms.NewKeys()
			lim, err := st.Maker("evict", time.Hour)(p, ks)
			if err != nil {
				t.Fatal(err)
			}
			const keys = 200
			for i := range keys {
				lim.Decide(0, fmt.Sprintf("k%d", i), 1)
			}
			if err := st.Err(); err != nil {
				t.Fatal(err)
			}
			// Room for a little more than is there; then filler keys
			// without a TTL until the lane's hashes are evicted.
			if err := st.client.ConfigSet(ctx, "maxmemory", strconv.FormatInt(base+512<<10, 10)).Err(); err != nil {
				t.Fatal(err)
			}
			filler := strings.Repeat("x", 1000)
			for i := 0; ; i++ {
				n, err := st.client.Exists(ctx, HashKey("evict", "k0"), HashKey("evict", "k1"), HashKey("evict", "k2")).Result()
				if err != nil {
					t.Fatal(err)
				}
				if n < 3 {
					break
				}
				if i == 10000 {
					t.Fatal("10,000 filler keys of 1KB evicted none of the lane's hashes")
				}
				if err := st.client.Set(ctx, fmt.Sprintf("filler:%d", i), filler, 0).Err(); err != nil {
					t.Fatalf("filler %d: %v", i, err)
				}
			}
			for i := range 3 {
				lim.Decide(time.Second, fmt.Sprintf("k%d", i), 1)
			}
			err = st.Err()
			want := fmt.Sprintf("that ratelab wrote is gone from redis at %s/0, which evicts keys to stay under its maxmemory (maxmemory-policy %s, evicted_keys ", addr, policy)
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "Redis likely evicted it") {
				t.Errorf("%v\nwant it to say %q", err, want)
			}
			t.Log(err)
		})
	}
}

// startRedis starts bin, a redis-server, on a free port of 127.0.0.1
// without persistence, with args, stopped when the test ends; its address.
func startRedis(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(addr)
	dir := t.TempDir()
	cmd := exec.Command(bin, append([]string{"--bind", "127.0.0.1", "--port", port, "--save", "", "--appendonly", "no",
		"--dir", dir, "--logfile", dir + "/log"}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DisableIdentity: true, Protocol: 2})
	defer c.Close()
	for range 50 {
		if c.Ping(t.Context()).Err() == nil {
			return addr
		}
		time.Sleep(100 * time.Millisecond)
	}
	log, _ := os.ReadFile(dir + "/log")
	t.Fatalf("redis-server on %s did not start: %s", addr, log)
	return ""
}
