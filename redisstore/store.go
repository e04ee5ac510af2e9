// Package redisstore keeps lanes' states in a Redis server (or a Redis
// Cluster) and has the server decide every request: one Lua script per
// algorithm, called by its SHA, deciding one key's request in one call on
// one hash, `rl:v1:{LANE:KEY}`.
//
// Every number a script sees, keeps or answers is a whole number below
// 2^53, the largest a Lua number (a double) holds exactly, written with
// %d: balances scaled to whole numbers, instants on the policy's grid,
// comparisons cross-multiplied. A policy whose numbers could pass 2^53
// before the scenario's end is refused before the run, naming the value.
// The virtual clock is an argument of every call; no script reads the
// server's clock.
//
// Beside each limiter in Redis the same limiter runs in memory, the
// shadow: it words the why text (and draws the pictures) and checks the
// server. A verdict of the server's that differs from the shadow's
// (outcome, delay or retry-after) stops the run with an error: never a
// silent difference. The shadow also lets the lab rewind: an instance
// whose lane another instance has written since (a checkpoint the lab
// seeks from) writes its keys back before it decides.
//
// ratelab reads and writes only keys under rl:v1:, and clears only the
// keys of the lanes it runs (SCAN by prefix, never FLUSHDB).
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"ratelab/algorithms"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Prefix begins every key ratelab touches; v1 is the layout of the hashes,
// bumped if it ever changes.
const Prefix = "rl:v1:"

// Timeout bounds connecting and every call, so that a server that is down
// or never answers is an error within seconds, not a hang.
const Timeout = 2 * time.Second

// gcTTL is how long (in real time) a hash outlives its last write: garbage
// collection of runs abandoned midway, nothing the limiters rely on.
// Expiry that decides (a lane's expire_idle) is ratelab's own, at virtual
// instants.
const gcTTL = 24 * time.Hour

// quiet drops go-redis's own log lines (a pool that failed to dial, ...):
// ratelab reports each failure once, in its own words (Store.Err).
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func init() { redis.SetLogger(quiet{}) }

// Store is a connection to one Redis server or cluster, shared by every
// lane of a run. It is not safe for concurrent use. Its first failure is
// kept (Err): after it, limiters decide in memory only and make no more
// calls, and the caller stops the run.
type Store struct {
	client redis.UniversalClient
	// where names the server without its password: "127.0.0.1:6379/0".
	where string
	err   error
	// gen is bumped at every write; lanes holds each lane's generation
	// after its latest write, which an instance compares with its own to
	// know whether another instance has written the lane since.
	gen   uint64
	lanes map[string]uint64
	// shown holds, per lane, the keys whose hashes Show overwrote since the
	// lane's owner last wrote it: only those need writing back.
	shown map[string]map[algorithms.Key]bool
	// last is the call of the latest decision on each hash, for the
	// explorer.
	last map[string]call
	// batch is how many script calls a pipeline sends at once (Pipeline);
	// queued are those not sent yet.
	batch  int
	pipe   redis.Pipeliner
	queued []*scriptCall
}

// Open connects to the server at rawURL: redis://[:PASSWORD@]HOST[:PORT][/DB]
// for one server (port 6379 and database 0 when left out),
// redis-cluster://[:PASSWORD@]HOST:PORT[,HOST:PORT...] for a cluster (any
// of its nodes). A password missing from the URL is taken from
// REDIS_PASSWORD. It fails within a few seconds if the server is down,
// refuses, does not answer, or wants a password it was not given; its
// errors never show the password.
func Open(rawURL string) (*Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("store %q: want redis://HOST:PORT/DB or redis-cluster://HOST:PORT,HOST:PORT (a password with @ : / # ? in it %%-encoded, or in REDIS_PASSWORD instead)", redact(rawURL))
	}
	if u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return nil, fmt.Errorf("store %s: a URL with no ?query or #fragment, such as redis://127.0.0.1:6379/0", redact(rawURL))
	}
	s := &Store{lanes: map[string]uint64{}, shown: map[string]map[algorithms.Key]bool{}, last: map[string]call{}}
	password, _ := u.User.Password()
	user := u.User.Username()
	if password == "" {
		password = os.Getenv("REDIS_PASSWORD")
	}
	switch u.Scheme {
	case "redis":
		db := 0
		if p := strings.Trim(u.Path, "/"); p != "" {
			if _, err := fmt.Sscanf(p, "%d", &db); err != nil || db < 0 || fmt.Sprint(db) != p {
				return nil, fmt.Errorf("store %s: the database %q is not a number", redact(rawURL), p)
			}
		}
		s.where = fmt.Sprintf("%s/%d", withPort(u.Host), db)
		s.client = redis.NewClient(&redis.Options{Addr: withPort(u.Host), Username: user, Password: password, DB: db,
			DialTimeout: Timeout, ReadTimeout: Timeout, WriteTimeout: Timeout, MaxRetries: -1,
			PoolSize: 2, ContextTimeoutEnabled: true, DisableIdentity: true, Protocol: 2})
	case "redis-cluster":
		addrs := strings.Split(u.Host, ",")
		for i, a := range addrs {
			addrs[i] = withPort(a)
		}
		s.where = "cluster " + strings.Join(addrs, ",")
		s.client = redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, Username: user, Password: password,
			DialTimeout: Timeout, ReadTimeout: Timeout, WriteTimeout: Timeout, MaxRetries: -1, MaxRedirects: 3,
			PoolSize: 2, ContextTimeoutEnabled: true, DisableIdentity: true, Protocol: 2})
	default:
		return nil, fmt.Errorf("store %s: unknown scheme %q (want redis:// or redis-cluster://)", redact(rawURL), u.Scheme)
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout+time.Second)
	defer cancel()
	if err := s.client.Ping(ctx).Err(); err != nil {
		s.client.Close()
		return nil, s.explain(err)
	}
	return s, nil
}

// withPort is host:port, port 6379 if host has none.
func withPort(hostPort string) string {
	if _, _, err := net.SplitHostPort(hostPort); err != nil {
		return net.JoinHostPort(strings.Trim(hostPort, "[]"), "6379")
	}
	return hostPort
}

// Where names the server without its password: "127.0.0.1:6379/0", or
// "cluster HOST:PORT".
func (s *Store) Where() string { return s.where }

// Close closes the connection.
func (s *Store) Close() error { return s.client.Close() }

// Err is the store's first failure: a call that failed or timed out, a
// state the server kept that is not one of its policy's, or a verdict of
// the server's that differs from memory's. Nil while all is well. Calls
// still queued in a pipeline are not checked yet: Flush checks them.
func (s *Store) Err() error { return s.err }

func (s *Store) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// explain words a failed call in one line, naming the server, never the
// password.
func (s *Store) explain(err error) error {
	msg := err.Error()
	var netErr net.Error
	switch {
	case strings.Contains(msg, "NOAUTH") || strings.Contains(msg, "WRONGPASS") || strings.Contains(msg, "invalid password") ||
		strings.Contains(msg, "invalid username-password"):
		return fmt.Errorf("redis at %s refused: %s (give the password in the URL, redis://:PASSWORD@HOST:PORT/DB, or in REDIS_PASSWORD)", s.where, firstLine(msg))
	case errors.As(err, &netErr) && netErr.Timeout() || errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("redis at %s did not answer within %s", s.where, Timeout)
	case strings.Contains(msg, "connection refused"):
		return fmt.Errorf("redis at %s refused the connection: is redis-server running there?", s.where)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(msg, "connection reset") ||
		strings.Contains(msg, "broken pipe") || errors.Is(err, redis.ErrClosed):
		return fmt.Errorf("redis at %s closed the connection (did it stop?)", s.where)
	}
	return fmt.Errorf("redis at %s: %s", s.where, firstLine(msg))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// redact is rawURL with any password replaced by "xxxxx".
func redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		if i := strings.LastIndex(rawURL, "@"); i >= 0 {
			return "…@" + rawURL[i+1:]
		}
		return rawURL
	}
	return u.Redacted()
}

// context for one call.
func (s *Store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), Timeout)
}

// HashKey is the hash of lane's key: rl:v1:{LANE:KEY}. The braces are a
// Redis Cluster hash tag: every call touches one hash, so one slot.
func HashKey(lane, key string) string { return Prefix + "{" + lane + ":" + key + "}" }

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
// FLUSHDB), returning how many there were.
func (s *Store) ClearLane(lane string) (int, error) {
	if err := s.Flush(); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*Timeout)
	defer cancel()
	var n atomic.Int64 // a cluster's masters are scanned at once
	clear := func(ctx context.Context, c *redis.Client) error {
		iter := c.Scan(ctx, 0, lanePattern(lane), 1000).Iterator()
		var batch []string
		for iter.Next(ctx) {
			batch = append(batch, iter.Val())
		}
		if err := iter.Err(); err != nil {
			return err
		}
		for _, k := range batch { // one key a call: a cluster's keys may lie in any slot
			if err := c.Unlink(ctx, k).Err(); err != nil {
				return err
			}
		}
		n.Add(int64(len(batch)))
		return nil
	}
	var err error
	if cc, ok := s.client.(*redis.ClusterClient); ok {
		err = cc.ForEachMaster(ctx, clear)
	} else {
		err = clear(ctx, s.client.(*redis.Client))
	}
	if err != nil {
		return int(n.Load()), s.explain(err)
	}
	return int(n.Load()), nil
}

// wrote records a write to lane by an instance whose generation is *seen.
func (s *Store) wrote(lane string, seen *uint64) {
	s.gen++
	s.lanes[lane] = s.gen
	*seen = s.gen
}
