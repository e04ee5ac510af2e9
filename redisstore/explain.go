package redisstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/redis/go-redis/v9"
)

// explain words a failed call in one line, naming the server, never the
// password.
func (s *Store) explain(err error) error { return s.explainAt(err, "") }

// explainAt is explain for a call on hash ("" for none or several): on a
// cluster it names the node that failed (see failedNode), not the list of
// nodes the URL gave, most of which may be live.
func (s *Store) explainAt(err error, hash string) error {
	where := "redis at " + s.where
	if cc, ok := s.client.(*redis.ClusterClient); ok {
		if redis.IsClusterDownError(err) {
			if down := s.failedNodes(); len(down) > 0 {
				return fmt.Errorf("redis cluster is down: node %s has failed (CLUSTER NODES marks it so); start it again, or repair the cluster (redis-cli --cluster check), then run again", strings.Join(down, ", node "))
			}
			return fmt.Errorf("redis %s is down (%s), and no node says which node failed: repair the cluster (redis-cli --cluster check), then run again", s.where, firstLine(err.Error()))
		}
		if node := failedNode(cc, err, hash); node != "" {
			where = "redis cluster node " + node
		}
	}
	msg := err.Error()
	var netErr net.Error
	switch {
	case strings.Contains(msg, "NOAUTH") || strings.Contains(msg, "WRONGPASS") || strings.Contains(msg, "invalid password") ||
		strings.Contains(msg, "invalid username-password"):
		return fmt.Errorf("%s refused: %s (give the password in the URL, redis://:PASSWORD@HOST:PORT/DB, or in REDIS_PASSWORD)", where, firstLine(msg))
	case errors.As(err, &netErr) && netErr.Timeout() || errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s did not answer within %s", where, Timeout)
	case strings.Contains(msg, "connection refused"):
		return fmt.Errorf("%s refused the connection: is redis-server running there?", where)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(msg, "connection reset") ||
		strings.Contains(msg, "broken pipe") || errors.Is(err, redis.ErrClosed):
		return fmt.Errorf("%s closed the connection (did it stop?)", where)
	}
	return fmt.Errorf("%s: %s", where, firstLine(msg))
}

// nodeError is an error of one cluster node's, the node known (a call on
// each master's own client: ClearLane).
type nodeError struct {
	addr string
	err  error
}

func (e *nodeError) Error() string { return e.err.Error() }
func (e *nodeError) Unwrap() error { return e.err }

// failedNode is the address of the cluster node err came from: the one a
// nodeError or a network error (a dial refused, a read timed out) names,
// else the master of hash's slot, the node the call went to; "" if none
// is known.
func failedNode(cc *redis.ClusterClient, err error, hash string) string {
	var ne *nodeError
	if errors.As(err, &ne) {
		return ne.addr
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Addr != nil {
		return op.Addr.String()
	}
	if hash == "" {
		return ""
	}
	// The slot table go-redis holds: no call, unless it has none yet.
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	if c, err := cc.MasterForKey(ctx, hash); err == nil {
		return c.Options().Addr
	}
	return ""
}

// failedNodes are the addresses of the nodes a down cluster's nodes mark
// as failed (or possibly failed) in CLUSTER NODES, asked of the nodes the
// URL gave, one after the other until one answers; none if none does.
func (s *Store) failedNodes() []string {
	opt := s.client.(*redis.ClusterClient).Options()
	for _, addr := range s.seeds {
		c := redis.NewClient(&redis.Options{Addr: addr, Username: opt.Username, Password: opt.Password,
			DialTimeout: Timeout, ReadTimeout: Timeout, WriteTimeout: Timeout, MaxRetries: -1,
			PoolSize: 1, ContextTimeoutEnabled: true, DisableIdentity: true, Protocol: 2})
		ctx, cancel := context.WithTimeout(context.Background(), Timeout)
		nodes, err := c.ClusterNodes(ctx).Result()
		cancel()
		c.Close()
		if err == nil {
			return failedInNodes(nodes)
		}
	}
	return nil
}

// failedInNodes are the addresses (HOST:PORT) of the nodes a CLUSTER NODES
// reply flags fail or fail?.
func failedInNodes(nodes string) []string {
	var down []string
	for _, line := range strings.Split(nodes, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		for _, flag := range strings.Split(f[2], ",") {
			if flag == "fail" || flag == "fail?" {
				addr, _, _ := strings.Cut(f[1], "@") // HOST:PORT@BUSPORT[,HOSTNAME]
				down = append(down, addr)
				break
			}
		}
	}
	return down
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
