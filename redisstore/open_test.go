package redisstore

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"ratelab/algorithms"
)

// TestOpenRefuses: a wrong URL, a refused connection, a server that never
// answers and one that wants a password each fail Open with one line
// within a few seconds, never showing the password.
func TestOpenRefuses(t *testing.T) {
	refused := func() string { // a port nothing listens on
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return addr
	}()
	hang, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	if err != nil {
		t.Fatal(err)
	}
	defer hang.Close()
	go func() {
		for {
			c, err := hang.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	locked := miniredis.RunT(t)
	locked.RequireAuth("s3cret-pw")
	t.Setenv("REDIS_PASSWORD", "")
	for _, c := range []struct {
		url, want string
	}{
		{"127.0.0.1:6379", "want redis://HOST:PORT/DB"},
		{"http://127.0.0.1:6379/0", `unknown scheme "http"`},
		{"redis://127.0.0.1:6379/zero", `the database "zero" is not a number`},
		{"redis://" + refused + "/0", "refused the connection: is redis-server running there?"},
		{"redis://127.0.0.1:6379/0?db=1", "no ?query"},
		{"redis://:pw/x@127.0.0.1:6379/0", "%-encoded"},
		{"redis://" + hang.Addr().String() + "/0", "did not answer within " + Timeout.String()},
		{"redis://" + locked.Addr() + "/0", "give the password in the URL"},
		{"redis://:wrong-pw@" + locked.Addr() + "/0", "give the password in the URL"},
	} {
		if short() && strings.Contains(c.want, "did not answer") {
			continue // it waits out the timeout
		}
		start := time.Now()
		_, err := Open(c.url)
		took := time.Since(start)
		if err == nil {
			t.Errorf("%s: opened", c.url)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q, want it to say %q", c.url, msg, c.want)
		}
		if strings.Contains(msg, "pw") || strings.Contains(msg, "\n") {
			t.Errorf("%s: %q shows the password or is not one line", c.url, msg)
		}
		if took > 3*Timeout {
			t.Errorf("%s: took %s", c.url, took)
		}
	}
	for _, url := range []string{"redis://:s3cret-pw@" + locked.Addr() + "/0", "redis://" + locked.Addr() + "/0"} {
		if url == "redis://"+locked.Addr()+"/0" {
			t.Setenv("REDIS_PASSWORD", "s3cret-pw")
		}
		s, err := Open(url)
		if err != nil {
			t.Errorf("%s: %v", url, err)
			continue
		}
		if strings.Contains(s.Where(), "pw") {
			t.Errorf("Where %q shows the password", s.Where())
		}
		s.Close()
	}
}

// TestOnlyOwnKeys: a lane starts from a clean key space, clearing its own
// hashes left by an earlier run (and no other lane's, nor any key outside
// the prefix), and its calls touch only its own hashes.
func TestOnlyOwnKeys(t *testing.T) {
	mini := miniredis.RunT(t)
	for _, k := range []string{"user:1", "rl:v2:{bucket:alice}", HashKey("bucketx", "alice"), HashKey("other", "alice")} {
		mini.Set(k, "theirs")
	}
	mini.HSet(HashKey("bucket", "alice"), "balance", "1", "last", "0") // an earlier run's
	mini.HSet(HashKey("bucket", "zed"), "balance", "1", "last", "0")
	s, err := Open("redis://" + mini.Addr() + "/0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 2, Rate: algorithms.Rate{N: 1, Per: time.Second}}
	lim, err := s.Maker("bucket", time.Minute)(p, algorithms.NewKeys())
	if err != nil {
		t.Fatal(err)
	}
	if mini.Exists(HashKey("bucket", "zed")) || mini.Exists(HashKey("bucket", "alice")) {
		t.Error("the lane's hashes from an earlier run are still there")
	}
	for _, at := range []time.Duration{0, 0, 0, 1500 * time.Millisecond} {
		lim.Decide(at, "alice", 1)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	got := mini.Keys()
	want := []string{HashKey("bucket", "alice"), HashKey("bucketx", "alice"), HashKey("other", "alice"), "rl:v2:{bucket:alice}", "user:1"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("keys %v, want %v", got, want)
	}
	for _, k := range want[1:] {
		if v, _ := mini.Get(k); v != "theirs" {
			t.Errorf("%s changed to %q", k, v)
		}
	}
	// Two spent at 0 (a third refused), 1.5 refilled by 1.5s and one
	// spent: half a token, × the rate's period of 1s.
	if v := mini.HGet(HashKey("bucket", "alice"), "balance"); v != "500000000" {
		t.Errorf("balance %q, want 500000000", v)
	}
}

// TestServerGoesAway: a server that stops mid-run fails the store with one
// line, and the limiter goes on deciding in memory without calling it.
func TestServerGoesAway(t *testing.T) {
	mini := miniredis.RunT(t)
	s, err := Open("redis://" + mini.Addr() + "/0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := algorithms.Policy{Algorithm: algorithms.GCRA, Burst: 2, Rate: algorithms.Rate{N: 1, Per: time.Second}}
	lim, err := s.Maker("g", time.Minute)(p, algorithms.NewKeys())
	if err != nil {
		t.Fatal(err)
	}
	lim.Decide(0, "k", 1)
	mini.Close()
	start := time.Now()
	for i := range 100 {
		lim.Decide(time.Duration(i)*time.Millisecond, "k", 1)
	}
	if took := time.Since(start); took > 3*Timeout {
		t.Errorf("100 decisions after the server went took %s", took)
	}
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "lane g, key k") || strings.Contains(err.Error(), "\n") {
		t.Errorf("Err %v, want one line naming lane g and key k", err)
	}
}

// TestWithPort: a URL's host without a port means Redis's 6379.
func TestWithPort(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1":      "127.0.0.1:6379",
		"127.0.0.1:7000": "127.0.0.1:7000",
		"localhost":      "localhost:6379",
		"[::1]":          "[::1]:6379",
		"[::1]:7000":     "[::1]:7000",
	} {
		if got := withPort(in); got != want {
			t.Errorf("withPort(%q) = %q, want %q", in, got, want)
		}
	}
}
