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
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
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

// redact is rawURL with everything between :// and its last @ (or, with
// no scheme, everything before it) replaced by "xxxxx". A password need
// not be %-encoded for a message to show it: with an @ / ? or # in it,
// url.Parse takes part of it for the host, the path or the query, so
// nothing before the last @ is shown, the user's name included.
func redact(rawURL string) string {
	at := strings.LastIndex(rawURL, "@")
	if at < 0 {
		return rawURL
	}
	start := 0
	if i := strings.Index(rawURL, "://"); i >= 0 && i < at && isScheme(rawURL[:i]) {
		start = i + len("://")
	}
	return rawURL[:start] + "xxxxx" + rawURL[at:]
}

// isScheme reports whether s is a URL scheme (RFC 3986: a letter, then
// letters, digits, + - .): a "://" after anything else is in a password.
func isScheme(s string) bool {
	for i, r := range s {
		letter := 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
		if !letter && (i == 0 || !('0' <= r && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	return s != ""
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

// wrote records a write to lane by an instance whose generation is *seen.
func (s *Store) wrote(lane string, seen *uint64) {
	s.gen++
	s.lanes[lane] = s.gen
	*seen = s.gen
}
