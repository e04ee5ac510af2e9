package redisstore

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	miniserver "github.com/alicebob/miniredis/v2/server"
	"github.com/redis/go-redis/v9"

	"ratelab/algorithms"
)

// fakeCluster is a store on a cluster of three in-process servers, each
// serving a third of the slots (miniredis has no cluster of its own: the
// slots are go-redis's ClusterSlots), with Open's options otherwise.
func fakeCluster(t *testing.T) (*Store, []*miniredis.Miniredis, []string) {
	t.Helper()
	minis := []*miniredis.Miniredis{miniredis.RunT(t), miniredis.RunT(t), miniredis.RunT(t)}
	var addrs []string
	for _, m := range minis {
		addrs = append(addrs, m.Addr())
	}
	opt := clusterOptions(addrs, "", "")
	opt.ClusterSlots = func(context.Context) ([]redis.ClusterSlot, error) {
		var slots []redis.ClusterSlot
		for i, a := range addrs {
			slots = append(slots, redis.ClusterSlot{Start: i * 16384 / len(addrs), End: (i+1)*16384/len(addrs) - 1,
				Nodes: []redis.ClusterNode{{Addr: a}}})
		}
		return slots, nil
	}
	st := newStore()
	st.seeds, st.where, st.client = addrs, "cluster "+strings.Join(addrs, ","), redis.NewClusterClient(opt)
	t.Cleanup(func() { st.Close() })
	return st, minis, addrs
}

// keyOn is a key of lane whose hash lies in a slot of the node at addr.
func keyOn(t *testing.T, st *Store, lane, addr string) string {
	t.Helper()
	for i := range 1000 {
		k := fmt.Sprintf("k%d", i)
		c, err := st.client.(*redis.ClusterClient).MasterForKey(t.Context(), HashKey(lane, k))
		if err != nil {
			t.Fatal(err)
		}
		if a := c.Options().Addr; a == addr || strings.HasPrefix(a, ":") && strings.HasSuffix(addr, a) {
			return k // see port in TestAClusterNodeThatDiesIsNamed
		}
	}
	t.Fatalf("no key of lane %s on %s", lane, addr)
	return ""
}

// TestAClusterNodeThatDiesIsNamed: when one node of a cluster stops, the
// store's failure names that node's address, not the others', whether a
// call on a key of its fails (the connection closed, then refused), a
// clearing of a lane (every master scanned), or, once the live nodes
// answer CLUSTERDOWN, a call on a key of a live node's (the failed node
// then found in CLUSTER NODES).
func TestAClusterNodeThatDiesIsNamed(t *testing.T) {
	p := algorithms.Policy{Algorithm: algorithms.GCRA, Burst: 2, Rate: algorithms.Rate{N: 1, Per: time.Second}}
	// Nodes are told apart by port: go-redis names a node whose address
	// ClusterSlots gives as loopback by its port alone (":PORT"), a real
	// cluster's by the address CLUSTER SLOTS gives.
	port := func(addr string) string { return addr[strings.LastIndex(addr, ":"):] }
	only := func(t *testing.T, err error, dead string, addrs []string, what string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), port(dead)+" ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line naming node %s", what, err, dead)
			return
		}
		for _, a := range addrs {
			if a != dead && strings.Contains(err.Error(), port(a)) {
				t.Errorf("%s: %v names %s, a live node", what, err, a)
			}
		}
		t.Logf("%s: %v", what, err)
	}
	batches := []int{1, 64}
	if short() {
		batches = batches[:1] // the pipelined call waits out a dial timeout
	}
	for _, batch := range batches {
		st, minis, addrs := fakeCluster(t)
		st.Pipeline(batch)
		ks := algorithms.NewKeys()
		lim, err := st.Maker("nodes", time.Minute)(p, ks)
		if err != nil {
			t.Fatal(err)
		}
		k := keyOn(t, st, "nodes", addrs[1])
		for _, a := range addrs {
			lim.Decide(0, keyOn(t, st, "nodes", a), 1)
		}
		if err := st.Flush(); err != nil {
			t.Fatal(err)
		}
		minis[1].Close()
		lim.Decide(time.Millisecond, keyOn(t, st, "nodes", addrs[0]), 1)
		lim.Decide(time.Millisecond, k, 1)
		only(t, st.Flush(), addrs[1], addrs, fmt.Sprintf("batch %d: a call", batch))
	}

	st, minis, addrs := fakeCluster(t)
	minis[2].Close()
	_, err := st.Maker("nodes", time.Minute)(p, algorithms.NewKeys())
	only(t, err, addrs[2], addrs, "clearing a lane")

	// The cluster down: the live nodes refuse every key, and CLUSTER
	// NODES marks the one that stopped as failed.
	if short() {
		return // a second's dialing of the dead node
	}
	st, minis, addrs = fakeCluster(t)
	lim, err := st.Maker("nodes", time.Minute)(p, algorithms.NewKeys())
	if err != nil {
		t.Fatal(err)
	}
	minis[1].Close()
	for i, m := range []*miniredis.Miniredis{minis[0], minis[2]} {
		m.Server().SetPreHook(func(c *miniserver.Peer, cmd string, args ...string) bool {
			if cmd == "CLUSTER" && len(args) == 1 && strings.EqualFold(args[0], "NODES") {
				line := func(id, addr, flags string) string {
					return fmt.Sprintf("%s %s@1%s %s - 0 0 1 connected\n", id, addr, addr[strings.LastIndex(addr, ":")+1:], flags)
				}
				self := [2]string{"myself,master", "master"}
				c.WriteBulk(line("a1", addrs[0], self[i]) + line("b2", addrs[1], "master,fail") + line("c3", addrs[2], self[1-i]))
				return true
			}
			c.WriteError("CLUSTERDOWN The cluster is down")
			return true
		})
	}
	lim.Decide(0, keyOn(t, st, "nodes", addrs[0]), 1)
	only(t, st.Err(), addrs[1], addrs, "the cluster down")
	if err := st.Err(); err == nil || !strings.HasPrefix(err.Error(), "lane nodes, key k") ||
		!strings.Contains(err.Error(), "redis cluster is down: node "+addrs[1]+" has failed (CLUSTER NODES marks it so); start it again") {
		t.Errorf("the cluster down: %v", err)
	}
}

// TestFailedInNodes: the nodes CLUSTER NODES flags fail or fail?, by
// address, whatever else the line holds.
func TestFailedInNodes(t *testing.T) {
	nodes := "07c3 127.0.0.1:30004@31004,host-a master,fail - 1 2 3 connected 0-5460\n" +
		"67ed 127.0.0.1:30002@31002 myself,master - 0 0 2 connected 5461-10922\n" +
		"2920 127.0.0.1:30003@31003 master,fail? - 0 0 3 connected 10923-16383\n" +
		"e7d1 127.0.0.1:30005@31005 slave 67ed 0 0 2 connected\n"
	if got := strings.Join(failedInNodes(nodes), " "); got != "127.0.0.1:30004 127.0.0.1:30003" {
		t.Errorf("failed nodes %q", got)
	}
}
