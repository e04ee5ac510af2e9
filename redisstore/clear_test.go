package redisstore

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"ratelab/algorithms"
)

// TestClearsAnEarlierRun: on every server (a cluster's keys spread over its
// nodes), a lane starts from a clean key space: its hashes left by an
// earlier run are gone, another lane's and keys outside the prefix stay.
func TestClearsAnEarlierRun(t *testing.T) {
	for _, srv := range servers(t) {
		t.Run(srv.name, func(t *testing.T) {
			st := open(t, srv)
			ctx := context.Background()
			var left, kept []string
			for i := range 20 {
				left = append(left, HashKey("clear-me", fmt.Sprintf("left%d", i)))
				kept = append(kept, HashKey("clear-me-not", fmt.Sprintf("k%d", i)), fmt.Sprintf("someone:else:%d", i))
			}
			for _, k := range append(append([]string(nil), left...), kept...) {
				if err := st.client.HSet(ctx, k, "count", "7").Err(); err != nil {
					t.Fatal(err)
				}
			}
			p := algorithms.Policy{Algorithm: algorithms.FixedWindow, Limit: 3, Window: time.Second}
			if _, err := st.Maker("clear-me", time.Minute)(p, algorithms.NewKeys()); err != nil {
				t.Fatal(err)
			}
			for _, k := range left {
				if n, _ := st.client.Exists(ctx, k).Result(); n != 0 {
					t.Errorf("%s is still there", k)
				}
			}
			for _, k := range kept {
				if v, _ := st.client.HGet(ctx, k, "count").Result(); v != "7" {
					t.Errorf("%s: count %q, want 7", k, v)
				}
				st.client.Del(ctx, k)
			}
		})
	}
}

// TestForeignKeysUnderALane: a key under a lane's prefix that is not a
// hash of the shape ratelab writes (a string, a list, a hash with a field
// no lane writes) is someone else's: the lane refuses to start, in one
// line naming the key, and deletes nothing, neither that key nor the
// lane's own hashes.
func TestForeignKeysUnderALane(t *testing.T) {
	for _, c := range []struct {
		what string
		put  func(m *miniredis.Miniredis, k string)
	}{
		{"a string", func(m *miniredis.Miniredis, k string) { m.Set(k, "theirs") }},
		{"a list", func(m *miniredis.Miniredis, k string) { m.Lpush(k, "theirs") }},
		{`a hash with a field "email"`, func(m *miniredis.Miniredis, k string) { m.HSet(k, "last", "0", "email", "a@b.c") }},
		{`a hash with a field "log:x"`, func(m *miniredis.Miniredis, k string) { m.HSet(k, "last", "0", "log:x", "1 1") }},
		{`a hash with a field "log.tail"`, func(m *miniredis.Miniredis, k string) { m.HSet(k, "last", "0", "log.tail", "1") }},
	} {
		mini := miniredis.RunT(t)
		own, foreign := HashKey("bucket", "alice"), HashKey("bucket", "default") // rl:v1:{bucket:default}
		mini.HSet(own, "balance", "1", "last", "0")
		c.put(mini, foreign)
		st, err := Open("redis://" + mini.Addr() + "/0")
		if err != nil {
			t.Fatal(err)
		}
		p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 2, Rate: algorithms.Rate{N: 1, Per: time.Second}}
		_, err = st.Maker("bucket", time.Minute)(p, algorithms.NewKeys())
		want := fmt.Sprintf("lane bucket: %q in redis at %s/0 is %s, not a hash ratelab wrote, and ratelab deletes only its own: remove that key yourself, or choose another database",
			foreign, mini.Addr(), c.what)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line saying %q", c.what, err, want)
		}
		if !mini.Exists(foreign) || !mini.Exists(own) {
			t.Errorf("%s: deleted: %v", c.what, mini.Keys())
		}
		st.Close()
	}
	// The shapes ratelab writes are its own: every field of a lane's hash,
	// whatever its algorithm (a lane run before with another one), a log's
	// items and ends, a script's caches.
	mini := miniredis.RunT(t)
	mini.HSet(HashKey("bucket", "a"), "balance", "1", "last", "0")
	mini.HSet(HashKey("bucket", "b"), "last", "0", "log.head", "3", "log.next", "5", "log:3", "1 1", "log:4", "2 1", "_sum", "2")
	mini.HSet(HashKey("bucket", "c"), "last", "0", "counts.head", "0", "counts.next", "1", "counts:0", "1", "_inner", "1")
	mini.HSet(HashKey("bucket", "d"), "last", "0", "_cut", "0", "_suf", "0", "queue.head", "0", "queue.next", "0")
	st, err := Open("redis://" + mini.Addr() + "/0")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, err := st.ClearLane("bucket"); n != 4 || err != nil || len(mini.Keys()) != 0 {
		t.Errorf("ClearLane: %d, %v; left %v", n, err, mini.Keys())
	}
}

// freezer is a TCP proxy to a Redis server that can stop forwarding
// without closing anything: a server that hangs mid-run.
type freezer struct {
	ln     net.Listener
	mu     sync.Mutex
	frozen bool
}

func newFreezer(t *testing.T, target string) *freezer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			t.Cleanup(func() { c.Close(); s.Close() })
			go f.pipe(s, c)
			go f.pipe(c, s)
		}
	}()
	return f
}

// pipe copies from src to dst until frozen, then swallows what comes.
func (f *freezer) pipe(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			return
		}
		f.mu.Lock()
		frozen := f.frozen
		f.mu.Unlock()
		if !frozen {
			dst.Write(buf[:n])
		}
	}
}

func (f *freezer) freeze() { f.mu.Lock(); f.frozen = true; f.mu.Unlock() }

// TestServerHangsMidRun: a server that stops answering in the middle of a
// run, its connection open, fails the store within a few seconds with one
// line, pipelined or not, and the limiter goes on in memory.
func TestServerHangsMidRun(t *testing.T) {
	if short() {
		t.Skip("each run waits out the call timeout, " + Timeout.String() + ": run without -short")
	}
	srv := servers(t)[0]
	for _, batch := range []int{1, 64} {
		f := newFreezer(t, strings.TrimSuffix(strings.TrimPrefix(srv.url, "redis://"), "/0"))
		st, err := Open("redis://" + f.ln.Addr().String() + "/0")
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		st.Pipeline(batch)
		p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 5, Rate: algorithms.Rate{N: 1, Per: time.Second}}
		lim, err := st.Maker("hang", time.Hour)(p, algorithms.NewKeys())
		if err != nil {
			t.Fatal(err)
		}
		for i := range 100 {
			lim.Decide(time.Duration(i)*time.Millisecond, "k", 1)
		}
		if err := st.Flush(); err != nil {
			t.Fatal(err)
		}
		f.freeze()
		start := time.Now()
		for i := range 1000 {
			lim.Decide(time.Second+time.Duration(i)*time.Millisecond, "k", 1)
		}
		err = st.Flush()
		if took := time.Since(start); took > 3*Timeout {
			t.Errorf("batch %d: 1000 decisions on a hung server took %s", batch, took)
		}
		if err == nil || !strings.Contains(err.Error(), "did not answer within "+Timeout.String()) || strings.Contains(err.Error(), "\n") {
			t.Errorf("batch %d: %v, want one line saying the server did not answer", batch, err)
		}
	}
}
