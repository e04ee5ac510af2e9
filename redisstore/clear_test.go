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
		if err == nil || !strings.Contains(err.Error(), "did not answer within 2s") || strings.Contains(err.Error(), "\n") {
			t.Errorf("batch %d: %v, want one line saying the server did not answer", batch, err)
		}
	}
}
