// Package redisstore keeps lanes' states in a Redis server (or a Redis
// Cluster) and has the server decide every request: a Lua script for each
// algorithm (lua/X.lua, registered by X.go; a library's two modes share
// one, as redis_rate shares the textbook GCRA's), called by its SHA,
// deciding one key's request in one call on one hash, `rl:v1:{LANE:KEY}`.
// Every algorithm has a script; one that could have none would say why in
// its X.go (see none), and its lanes could not run with --store.
//
// Every number a script is given or keeps is a whole number below 2^53,
// the largest a Lua number (a double) holds exactly, written with %d. The
// exact lanes compute with such numbers exactly: balances scaled to whole
// numbers, instants on the policy's grid, comparisons cross-multiplied.
// The lanes whose arithmetic is floating point by design
// (float-token-bucket, guava and guava-try, x-time-rate and
// x-time-rate-reserve) compute in doubles as their library does, and keep
// a double as two whole numbers (its fraction × 2^53 and its exponent) and
// a long or a wait past 2^53 as a pair (whole seconds, microseconds),
// answered as a decimal string (lua/wide.lua). A policy whose numbers
// could pass 2^53 before the scenario's end is refused before the run,
// naming the value (Check). The virtual clock is an argument of every
// call; no script reads the server's clock.
//
// Beside each limiter in Redis the same limiter runs in memory, the
// shadow: it words the why text (and draws the pictures) and checks the
// server. A verdict of the server's that differs from the shadow's
// (outcome, delay or retry-after) stops the run with an error: never a
// silent difference. So does a hash the store wrote that is gone (Redis
// evicted it under maxmemory, another client deleted it): the script
// refuses to decide it as a new key's, and the error says which cause the
// server's figures point to. The shadow also lets the lab rewind: an instance
// whose lane another instance has written since (a checkpoint the lab
// seeks from) writes its keys back before it decides.
//
// ratelab reads and writes only keys under rl:v1:, and clears only the
// keys of the lanes it runs (SCAN by prefix, never FLUSHDB), and of those
// only hashes of the shape it writes: anything else there is someone
// else's, and the lane refuses to start, naming it.
//
// store.go opens the connection; limiter.go decides and pipeline.go sends
// calls in batches; scripts.go registers the scripts and checks a
// policy's numbers; clear.go clears a lane, gone.go explains a hash gone,
// explain.go and redact.go word a failure without the password.
package redisstore

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"ratelab/algorithms"
)

// Prefix begins every key ratelab touches; v1 is the layout of the hashes,
// bumped if it ever changes.
const Prefix = "rl:v1:"

// Timeout bounds connecting and every call, so that a server that is down
// or never answers is an error within seconds, not a hang. It is 2s,
// times raceSlowdown in a binary built with the race detector, which slows
// an in-process server (the tests' miniredis, a Lua VM in Go) tenfold: a
// deadline missed there is the detector's cost, not a server's fault.
const Timeout = 2 * time.Second * raceSlowdown

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
	// seeds are a cluster's addresses as the URL gives them.
	seeds []string
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
	// held holds, per lane, the hashes the server holds since the store
	// wrote them (every script call writes its hash): one found missing
	// was taken from under the store (evicted, deleted), which a call
	// or a read then says, rather than deciding as for a new key.
	held map[string]map[string]bool
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
	// A password with / ? or # in it, not %-encoded, ends the URL's
	// authority early: what follows would be taken for a path, a query or
	// a fragment, and what precedes for the host, part of the password
	// with it, which would then name the server in every message.
	if _, rest, ok := strings.Cut(rawURL, "://"); ok {
		if i := strings.IndexAny(rest, "/?#"); i >= 0 && strings.Contains(rest[i:], "@") {
			return nil, fmt.Errorf("store %s: the password has a / ? or # in it, not %%-encoded, which would end the host early: write them %%2F %%3F %%23, or give the password in REDIS_PASSWORD instead", redact(rawURL))
		}
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("store %q: want redis://HOST:PORT/DB or redis-cluster://HOST:PORT,HOST:PORT (a password with @ : / # ? in it %%-encoded, or in REDIS_PASSWORD instead)", redact(rawURL))
	}
	if u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return nil, fmt.Errorf("store %s: a URL with no ?query or #fragment, such as redis://127.0.0.1:6379/0", redact(rawURL))
	}
	s := newStore()
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
		s.seeds = addrs
		s.where = "cluster " + strings.Join(addrs, ",")
		s.client = redis.NewClusterClient(clusterOptions(addrs, user, password))
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

func newStore() *Store {
	return &Store{lanes: map[string]uint64{}, shown: map[string]map[algorithms.Key]bool{}, last: map[string]call{},
		held: map[string]map[string]bool{}}
}

// clusterOptions are Open's for a cluster at addrs.
func clusterOptions(addrs []string, user, password string) *redis.ClusterOptions {
	return &redis.ClusterOptions{Addrs: addrs, Username: user, Password: password,
		DialTimeout: Timeout, ReadTimeout: Timeout, WriteTimeout: Timeout, MaxRetries: -1, MaxRedirects: 3,
		PoolSize: 2, ContextTimeoutEnabled: true, DisableIdentity: true, Protocol: 2}
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

// context for one call.
func (s *Store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), Timeout)
}

// HashKey is the hash of lane's key: rl:v1:{LANE:KEY}. The braces are a
// Redis Cluster hash tag: every call touches one hash, so one slot.
func HashKey(lane, key string) string { return Prefix + "{" + lane + ":" + key + "}" }

// wrote records a write to lane by an instance whose generation is *seen.
func (s *Store) wrote(lane string, seen *uint64) {
	s.gen++
	s.lanes[lane] = s.gen
	*seen = s.gen
}
