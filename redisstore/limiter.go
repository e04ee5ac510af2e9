package redisstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"ratelab/algorithms"
)

// Maker is the algorithms.Maker of lane's limiters in s, for a scenario
// that ends at until. Each limiter it makes starts from a clean key space:
// the lane's hashes are cleared first (a store that restarts empty, or a
// run that starts again).
func (s *Store) Maker(lane string, until time.Duration) algorithms.Maker {
	return func(p algorithms.Policy, ks *algorithms.Keys) (algorithms.Limiter, error) {
		if err := Check(p, until); err != nil {
			return nil, err
		}
		shadow, err := algorithms.NewWithKeys(p, ks)
		if err != nil {
			return nil, err
		}
		if s.err != nil {
			return nil, s.err
		}
		if _, err := s.ClearLane(lane); err != nil {
			s.fail(err)
			return nil, err
		}
		form := p.StateForm()
		l := &Limiter{st: s, lane: lane, shadow: shadow, ids: ks, script: scripts[p.Algorithm], form: &form}
		l.Decider = algorithms.NewDecider(l, ks)
		for _, v := range l.script.args(p) {
			l.args = append(l.args, v)
		}
		s.wrote(lane, &l.seen)
		return l, nil
	}
}

// Limiter is a lane's limiter deciding in Redis, the same limiter in
// memory (its shadow) beside it; see the package's doc. It implements
// algorithms.Limiter, KeyCopier, StateCodec and Inspector.
type Limiter struct {
	algorithms.Decider
	st     *Store
	lane   string
	shadow algorithms.Limiter
	ids    *algorithms.Keys
	script *script
	form   *algorithms.StateForm
	args   []any // the policy's numbers
	// seen is the lane's generation after this instance's latest write.
	seen uint64
}

// call is the latest call on a hash, as the explorer shows it: a script's
// (its arguments), or a plain write.
type call struct {
	script *script
	args   []any // ARGV
	write  bool  // a plain write (a racy gateway's write landing)
	read   bool  // a plain read (a racy gateway's read)
}

var (
	_ algorithms.Limiter    = (*Limiter)(nil)
	_ algorithms.KeyCopier  = (*Limiter)(nil)
	_ algorithms.StateCodec = (*Limiter)(nil)
	_ algorithms.Inspector  = (*Limiter)(nil)
)

func (l *Limiter) Policy() algorithms.Policy { return l.shadow.Policy() }

// DecideInto has the script decide in Redis and the shadow in memory; the
// shadow's decision (with its explanation) is the answer, and a verdict of
// the server's that differs fails the store.
func (l *Limiter) DecideInto(d *algorithms.Decision, now time.Duration, key algorithms.Key, cost int64) {
	// Redis must hold this instance's states before either decides: own
	// writes the shadow's back if another instance wrote the lane since.
	owned := l.own()
	l.shadow.DecideInto(d, now, key, cost)
	if !owned {
		return
	}
	hash := HashKey(l.lane, key.String())
	args := make([]any, 0, 4+len(l.args))
	expect := 0 // the script refuses a hash expected that is gone (lua/prelude.lua)
	if l.st.holds(l.lane, hash) {
		expect = 1
	}
	args = append(args, int64(now), cost, gcTTL.Milliseconds(), expect)
	args = append(args, l.args...)
	l.st.hold(l.lane, hash, true) // every call writes its hash
	l.st.wrote(l.lane, &l.seen)
	l.st.last[hash] = call{script: l.script, args: args}
	l.st.run(&scriptCall{script: l.script, hash: hash, args: args, want: verdict(d), lane: l.lane, key: key.String(), now: now})
}

// verdict is d's outcome, delay and retry after as a script answers them
// (−1 for never).
func verdict(d *algorithms.Decision) [3]int64 {
	retry := int64(d.RetryAfter)
	if d.RetryAfter == algorithms.Never {
		retry = -1
	}
	return [3]int64{int64(d.Outcome), int64(d.Delay), retry}
}

// own makes Redis hold this instance's states of the lane, writing them
// back if another instance (a clone the lab decided on) wrote the lane
// since this one's latest write, or the keys Show overwrote. False once
// the store has failed.
func (l *Limiter) own() bool { return l.ownLane(true) }

// ownLane is own, leaving the keys Show overwrote as shown unless
// shownToo.
func (l *Limiter) ownLane(shownToo bool) bool {
	if l.st.err != nil {
		return false
	}
	var shown map[algorithms.Key]bool
	if shownToo {
		shown = l.st.shown[l.lane]
	}
	if l.st.lanes[l.lane] == l.seen && len(shown) == 0 {
		return true
	}
	if l.st.Flush() != nil {
		return false
	}
	// The lane's hashes can only be those of the keys numbered (the lane
	// was cleared when its first limiter was made): each is written again
	// in one pipeline, or deleted where this instance has no state and a
	// call (which last records) may have made one. When this instance
	// wrote the lane last, only the keys Show overwrote since need it.
	keys := l.ids.All
	if l.st.lanes[l.lane] == l.seen {
		keys = func(yield func(algorithms.Key) bool) {
			for k := range shown {
				if !yield(k) {
					return
				}
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout+time.Duration(l.ids.Len())*time.Millisecond)
	defer cancel()
	pipe := l.st.client.Pipeline()
	codec := l.shadow.(algorithms.StateCodec)
	for k := range keys {
		if st, ok := codec.ExportKey(k); ok {
			if err := l.queueWrite(ctx, pipe, k, st); err != nil {
				return false
			}
		} else {
			hash := HashKey(l.lane, k.String())
			if _, called := l.st.last[hash]; called || l.st.holds(l.lane, hash) {
				pipe.Unlink(ctx, hash)
				l.st.hold(l.lane, hash, false)
			}
		}
	}
	if cmds, err := pipe.Exec(ctx); err != nil {
		l.st.fail(fmt.Errorf("lane %s: %w", l.lane, l.st.explainAt(failure(cmds, err))))
		return false
	}
	delete(l.st.shown, l.lane)
	l.st.wrote(l.lane, &l.seen)
	return true
}

// write puts key's state st into its hash with a plain write: the fields,
// the log (one field L:<seq> per item, its numbers joined by spaces, seqs
// 0 to k − 1, with L.head 0 and L.next k: see lua/prelude.lua), and the
// TTL. The scripts' caches (fields named _...) are left out: a script
// finding one absent recomputes it.
func (l *Limiter) write(key algorithms.Key, st algorithms.State) error {
	ctx, cancel := l.st.ctx()
	defer cancel()
	pipe := l.st.client.Pipeline()
	if err := l.queueWrite(ctx, pipe, key, st); err != nil {
		return err
	}
	if cmds, err := pipe.Exec(ctx); err != nil {
		l.st.fail(fmt.Errorf("lane %s, key %s: %w", l.lane, key, l.st.explainAt(failure(cmds, err))))
		return err
	}
	return nil
}

// queueWrite adds write's commands to pipe.
func (l *Limiter) queueWrite(ctx context.Context, pipe redis.Pipeliner, key algorithms.Key, st algorithms.State) error {
	hash := HashKey(l.lane, key.String())
	fields := make([]any, 0, 2*len(st.Fields)+4+2*len(st.Log))
	for i, name := range l.form.Fields {
		fields = append(fields, name, st.Fields[i])
	}
	if name := l.form.Log; name != "" {
		stride := len(l.form.Item)
		if stride == 0 || len(st.Log)%stride != 0 {
			err := fmt.Errorf("lane %s, key %s: a log of %d numbers, not items of %d", l.lane, key, len(st.Log), stride)
			l.st.fail(err)
			return err
		}
		k := len(st.Log) / stride
		for i := range k {
			fields = append(fields, name+":"+strconv.Itoa(i), joinInts(st.Log[i*stride:(i+1)*stride]))
		}
		fields = append(fields, name+".head", 0, name+".next", k)
	}
	pipe.Del(ctx, hash)
	pipe.HSet(ctx, hash, fields...)
	pipe.PExpire(ctx, hash, gcTTL)
	l.st.hold(l.lane, hash, true)
	return nil
}

// read is key's state as its hash holds it (a plain read), false if it has
// none; an error if the store wrote the hash and it is gone (see gone).
func (l *Limiter) read(key algorithms.Key) (algorithms.State, bool, error) {
	ctx, cancel := l.st.ctx()
	defer cancel()
	hash := HashKey(l.lane, key.String())
	m, err := l.st.client.HGetAll(ctx, hash).Result()
	if err != nil {
		return algorithms.State{}, false, l.st.explainAt(err, hash)
	}
	if len(m) == 0 {
		if l.st.holds(l.lane, hash) {
			return algorithms.State{}, false, l.st.gone(hash)
		}
		return algorithms.State{}, false, nil
	}
	st := algorithms.State{Fields: make([]int64, len(l.form.Fields))}
	for i, name := range l.form.Fields {
		v, ok := m[name]
		if !ok {
			return st, false, fmt.Errorf("hash %s has no field %s", HashKey(l.lane, key.String()), name)
		}
		if st.Fields[i], err = strconv.ParseInt(v, 10, 64); err != nil {
			return st, false, fmt.Errorf("hash %s: field %s is %q, not a whole number", HashKey(l.lane, key.String()), name, v)
		}
	}
	if name := l.form.Log; name != "" {
		// The items L:head to L:next − 1, oldest first; absent head and
		// next are 0 (an empty log), as the scripts read them.
		var ends [2]int64
		for i, f := range []string{name + ".head", name + ".next"} {
			if v, ok := m[f]; ok {
				if ends[i], err = strconv.ParseInt(v, 10, 64); err != nil {
					return st, false, fmt.Errorf("hash %s: field %s is %q, not a whole number", hash, f, v)
				}
			}
		}
		head, next := ends[0], ends[1]
		if head < 0 || next < head || next-head > int64(len(m)) {
			return st, false, fmt.Errorf("hash %s: log %s runs from %d to %d, in a hash of %d fields", hash, name, head, next, len(m))
		}
		stride := len(l.form.Item)
		if next > head {
			st.Log = make([]int64, 0, int(next-head)*stride)
		}
		for seq := head; seq < next; seq++ {
			f := name + ":" + strconv.FormatInt(seq, 10)
			v, ok := m[f]
			if !ok {
				return st, false, fmt.Errorf("hash %s has no field %s (log %s runs from %d to %d)", hash, f, name, head, next)
			}
			nums := strings.Fields(v)
			if len(nums) != stride {
				return st, false, fmt.Errorf("hash %s: %s is %q, not %d numbers", hash, f, v, stride)
			}
			for _, x := range nums {
				n, err := strconv.ParseInt(x, 10, 64)
				if err != nil {
					return st, false, fmt.Errorf("hash %s: %s holds %q, not a whole number", hash, f, x)
				}
				st.Log = append(st.Log, n)
			}
		}
	}
	return st, true, nil
}

func joinInts(vs []int64) string {
	var b strings.Builder
	for i, v := range vs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatInt(v, 10))
	}
	return b.String()
}

// ExportKey reads key's state from its hash (a plain read: what a racy
// gateway reads). A state the hash holds that is not the shadow's fails
// the store, which then answers the shadow's.
func (l *Limiter) ExportKey(key algorithms.Key) (algorithms.State, bool) {
	mine, ok := l.shadow.(algorithms.StateCodec).ExportKey(key)
	if !l.own() || l.st.Flush() != nil {
		return mine, ok
	}
	st, found, err := l.read(key)
	if err != nil {
		l.st.fail(fmt.Errorf("lane %s, key %s: %w", l.lane, key, err))
		return mine, ok
	}
	if found != ok || found && !sameState(st, mine) {
		l.st.fail(fmt.Errorf("lane %s, key %s: Redis holds %v, memory %v", l.lane, key, st, mine))
		return mine, ok
	}
	l.st.last[HashKey(l.lane, key.String())] = call{read: true}
	return st, found
}

func sameState(a, b algorithms.State) bool {
	return slices.Equal(a.Fields, b.Fields) && slices.Equal(a.Log, b.Log)
}

// ImportKey sets key's state, in memory and (a plain write) in Redis.
func (l *Limiter) ImportKey(key algorithms.Key, st algorithms.State) error {
	if err := l.shadow.(algorithms.StateCodec).ImportKey(key, st); err != nil {
		return err
	}
	if l.own() && l.st.Flush() == nil && l.write(key, st) == nil {
		l.st.wrote(l.lane, &l.seen)
		l.st.last[HashKey(l.lane, key.String())] = call{write: true}
	}
	return nil
}

// CopyKey takes key's state from src (a racy gateway's write landing): a
// plain write.
func (l *Limiter) CopyKey(src algorithms.Limiter, key algorithms.Key) {
	st, ok := src.(algorithms.StateCodec).ExportKey(key)
	if !ok {
		return
	}
	if err := l.ImportKey(key, st); err != nil {
		l.st.fail(fmt.Errorf("lane %s, key %s: %w", l.lane, key, err))
	}
}

// ForgetKey drops key's state: its hash is deleted.
func (l *Limiter) ForgetKey(key algorithms.Key) {
	l.shadow.(algorithms.KeyCopier).ForgetKey(key)
	if !l.own() || l.st.Flush() != nil {
		return
	}
	ctx, cancel := l.st.ctx()
	defer cancel()
	hash := HashKey(l.lane, key.String())
	if err := l.st.client.Unlink(ctx, hash).Err(); err != nil {
		l.st.fail(fmt.Errorf("lane %s, key %s: %w", l.lane, key, l.st.explainAt(err, hash)))
		return
	}
	l.st.hold(l.lane, hash, false)
	l.st.wrote(l.lane, &l.seen)
	delete(l.st.last, hash)
}

// Inspect reads key's hash as it is now (the calls queued sent first),
// and the call its latest decision ran.
func (l *Limiter) Inspect(key string) algorithms.StoreView {
	hash := HashKey(l.lane, key)
	v := algorithms.StoreView{Store: "redis " + l.st.where, Key: hash}
	// No write back here: the lab has the store hold what it shows (Hold,
	// Show) whenever its clock moves; a view only reads.
	if k, numbered := l.ids.Lookup(key); numbered && l.st.Flush() == nil {
		st, found, err := l.read(k)
		switch {
		case err != nil:
			l.st.fail(fmt.Errorf("lane %s, key %s: %w", l.lane, key, err))
		case found:
			for i, name := range l.form.Fields {
				v.Contents = append(v.Contents, name+" "+strconv.FormatInt(st.Fields[i], 10))
			}
			if l.form.Log != "" {
				// An item a field, as the hash keeps it: "log (at cost):
				// [0 1] [5000000 1]".
				items := make([]string, 0, len(st.Log)/max(len(l.form.Item), 1))
				for i := 0; i+len(l.form.Item) <= len(st.Log) && len(l.form.Item) > 0; i += len(l.form.Item) {
					items = append(items, "["+joinInts(st.Log[i:i+len(l.form.Item)])+"]")
				}
				v.Contents = append(v.Contents, l.form.Log+" ("+strings.Join(l.form.Item, " ")+"): "+strings.Join(items, " "))
			}
		}
	}
	if c, ok := l.st.last[hash]; ok {
		v.Last = c.String(hash)
	}
	v.Err = l.st.err
	return v
}

// Hold makes Redis hold this instance's states (see algorithms.Inspector):
// written back if another instance wrote the lane since, the calls queued
// sent.
func (l *Limiter) Hold(time.Duration) error {
	if l.own() {
		l.st.Flush()
	}
	return l.st.err
}

// Show writes src's state of key into its hash (see algorithms.Inspector)
// and marks that key as shown: whichever instance decides or holds next
// writes its own state of it back first (the lane's other keys stay as
// they are, so showing n writes costs n, not n × keys).
func (l *Limiter) Show(key algorithms.Key, src algorithms.Limiter) {
	st, ok := src.(algorithms.StateCodec).ExportKey(key)
	// The keys shown before this one stay shown: they are the writes that
	// landed before it.
	if !ok || !l.ownLane(false) || l.st.Flush() != nil || l.write(key, st) != nil {
		return
	}
	if l.st.shown[l.lane] == nil {
		l.st.shown[l.lane] = map[algorithms.Key]bool{}
	}
	l.st.shown[l.lane][key] = true
	l.st.last[HashKey(l.lane, key.String())] = call{write: true}
}

// String is the call as redis-cli would send it: the script by its SHA
// (and file), or the write.
func (c call) String(hash string) string {
	switch {
	case c.write:
		return "DEL " + hash + "; HSET " + hash + " …; PEXPIRE " + hash + " (a gateway's plain write)"
	case c.read:
		return "HGETALL " + hash + " (a gateway's plain read; it decides in Go and writes back later)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "EVALSHA %s… 1 %s", c.script.lua.Hash()[:12], hash)
	for _, a := range c.args {
		fmt.Fprintf(&b, " %v", a)
	}
	fmt.Fprintf(&b, "  (%s)", c.script.file)
	return b.String()
}

func (l *Limiter) Snapshot(now time.Duration, key string) algorithms.Snapshot {
	return l.shadow.Snapshot(now, key)
}

// Clone is an instance of its own: its shadow a clone, Redis written back
// to it when it next decides after another instance did.
func (l *Limiter) Clone() algorithms.Limiter {
	c := *l
	c.Decider = algorithms.NewDecider(&c, c.ids)
	c.shadow = l.shadow.Clone()
	return &c
}

func (l *Limiter) Memory() algorithms.Memory { return l.shadow.Memory() }

func (l *Limiter) KeyBytes(now time.Duration, key algorithms.Key) int64 {
	return l.shadow.KeyBytes(now, key)
}
