package algorithms

import (
	"fmt"
	"strconv"
	"time"
	"unsafe"
)

// nginx's zone, as nginx 1.22 lays it out on a 64-bit Linux with 4096-byte
// pages (src/core/ngx_slab.c, src/core/ngx_cycle.c and
// src/http/modules/ngx_http_limit_req_module.c). The zone starts with the
// slab pool's header (sizeof(ngx_slab_pool_t), 200 bytes), then one
// ngx_slab_page_t (24 bytes) and one ngx_slab_stat_t (32 bytes) for each of
// the 9 chunk sizes from 8 to 2048 bytes (ngx_pagesize_shift − min_shift,
// 12 − 3), then one ngx_slab_page_t for each page; the pages start at the
// next page boundary. ngx_slab_init counts the pages as what is left,
// divided by a page and its ngx_slab_page_t, and no more than fit between
// that boundary and the zone's end.
//
// A key's node is an ngx_rbtree_node_t up to its color (32 bytes) and an
// ngx_http_limit_req_node_t up to its data (48 bytes), then the key: 80 +
// the key's length, a 128-byte chunk for a key of up to 48 bytes (an
// address, as $binary_remote_addr or $remote_addr gives), 32 to a page.
// The zone's tree and queue head (ngx_http_limit_req_shctx_t, 80 bytes)
// take one 128-byte chunk, and its name for the log (" in limit_req zone
// \"name\"", 22 bytes + the name) a page of smaller chunks, for a name of
// up to 42 characters. So a zone of p pages holds 32 × (p − 1) − 1 nodes.
const (
	nginxPage     = 4096
	nginxPoolHead = 200 + 9*(24+32)
	nginxPageHead = 24
	nginxNode     = 128
	// nginxMinZone is the smallest zone limit_req_zone takes: 8 pages.
	nginxMinZone = 8 * nginxPage
	// nginxIdleMs is how long a node must have been idle before nginx
	// frees it as drained: ngx_http_limit_req_expire's 60000 ms.
	nginxIdleMs = 60000
)

// NginxZoneKeys is how many keys' nodes a limit_req zone of size bytes
// holds, keys of up to 48 bytes: 191 for 32k, 8095 for 1m, 81375 for 10m.
// size must be at least 32k.
func NginxZoneKeys(size int64) int64 {
	pages := (size - nginxPoolHead) / (nginxPage + nginxPageHead)
	start := ceilDiv(nginxPoolHead+pages*nginxPageHead, nginxPage) * nginxPage
	pages = min(pages, (size-start)/nginxPage)
	return (pages-1)*(nginxPage/nginxNode) - 1
}

// ParseSize reads a size as nginx's configuration writes one
// (ngx_parse_size): a whole number of bytes, or of kilobytes with k or K
// after it, or of megabytes with m or M; at least 1 byte and at most
// MaxCount.
func ParseSize(s string) (int64, error) {
	digits, scale := s, int64(1)
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'k', 'K':
			digits, scale = s[:n-1], 1<<10
		case 'm', 'M':
			digits, scale = s[:n-1], 1<<20
		}
	}
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || digits == "" || digits[0] < '0' || digits[0] > '9' {
		return 0, fmt.Errorf("%q is not a size such as 10m, 64k or 32768", s)
	}
	if v < 1 || v > MaxCount/scale {
		return 0, fmt.Errorf("size %s must be from 1 byte to 2^40 bytes", s)
	}
	return v * scale, nil
}

// FormatSize writes a size as nginx's configuration would: in megabytes
// ("10m") or kilobytes ("64k") when whole, else in bytes.
func FormatSize(v int64) string {
	switch {
	case v != 0 && v%(1<<20) == 0:
		return strconv.FormatInt(v>>20, 10) + "m"
	case v != 0 && v%(1<<10) == 0:
		return strconv.FormatInt(v>>10, 10) + "k"
	}
	return strconv.FormatInt(v, 10)
}

// newNginxLimiter is the limiter of an nginx-limit-req policy: keyed nodes,
// in a zone of the policy's size when it gives one.
func newNginxLimiter(p Policy, ks *Keys) Limiter {
	g := newNginx(p)
	k := newKeyed[nginxState](g, ks)
	if p.Zone == 0 {
		return k
	}
	z := &nginxZone{keyed: k, g: g, keys: NginxZoneKeys(p.Zone), head: -1, tail: -1}
	k.Decider = NewDecider(z, ks)
	return z
}

// nginxZone is an nginx-limit-req limiter with a zone: the nodes as keyed
// holds them, in nginx's queue, at most keys of them (see NginxLimitReq).
// A key is in the queue iff its state has a node.
type nginxZone struct {
	*keyed[nginxState]
	g    *nginx
	keys int64
	// links are the queue's links, by key number, in chunks shared with
	// clones as keyed's states are (a chunk is copied when first changed
	// after a Clone, under keyed's epoch); head and tail are the numbers
	// of its first (latest looked up) and last key, −1 when empty.
	links      []*zoneLinks
	head, tail int32
	n          int64
}

// zoneLink is a key's place in the queue: its neighbours' numbers (−1 for
// none) and whether it is in.
type zoneLink struct {
	prev, next int32
	in         bool
}

// linkChunk is how many keys' links one chunk holds.
const linkChunk = 128

// zoneLinks are the links of linkChunk keys, and the epoch of the
// instance that may change them.
type zoneLinks struct {
	l     [linkChunk]zoneLink
	epoch uint64
}

// link is the key numbered id's link (not in the queue if it has none).
func (z *nginxZone) link(id int32) zoneLink {
	if c := int(id) / linkChunk; c < len(z.links) {
		return z.links[c].l[int(id)%linkChunk]
	}
	return zoneLink{}
}

// linkAt is the key numbered id's link, this instance's own to change: its
// chunk is made, or copied if shared.
func (z *nginxZone) linkAt(id int32) *zoneLink {
	c := int(id) / linkChunk
	for len(z.links) <= c {
		z.links = append(z.links, &zoneLinks{epoch: z.m.epoch})
	}
	if ch := z.links[c]; ch.epoch != z.m.epoch {
		own := *ch
		own.epoch = z.m.epoch
		z.links[c] = &own
	}
	return &z.links[c].l[int(id)%linkChunk]
}

func (z *nginxZone) has(id int) bool { return z.link(int32(id)).in }

// DecideInto decides as nginx's lookup: a key with a node moves to the
// front, whatever the verdict; a key given a new node first makes room for
// it. The verdict itself is the node's alone.
func (z *nginxZone) DecideInto(d *Decision, now time.Duration, key Key, cost int64) {
	had := z.has(key.id)
	z.keyed.DecideInto(d, now, key, cost)
	if had {
		z.unlink(int32(key.id))
		z.pushFront(int32(key.id))
		return
	}
	if s := z.seenSlot(key.id); s != nil && s.s.node {
		z.makeRoom(msOf(now))
		z.pushFront(int32(key.id))
	}
}

// makeRoom is what nginx does before it allocates a node at millisecond
// ms: ngx_http_limit_req_expire(ctx, 1), then, if the zone is full,
// ngx_http_limit_req_expire(ctx, 0).
func (z *nginxZone) makeRoom(ms int64) {
	z.freeDrained(ms)
	if z.n >= z.keys {
		z.free(z.tail)
		z.freeDrained(ms)
	}
}

// freeDrained frees the node at the back while it has been idle 60s or
// more and has drained, at most twice. A bare node (see nginxState) has:
// its lr->last 0 is as far behind nginx's clock as the machine's uptime.
func (z *nginxZone) freeDrained(ms int64) {
	for range 2 {
		if z.tail < 0 {
			return
		}
		s := &z.seenSlot(int(z.tail)).s
		idle := ms - s.last
		if idle < 0 {
			idle = -idle
		}
		if !s.bare && (idle < nginxIdleMs || s.excess-z.g.drained(idle) > 0) {
			return
		}
		z.free(z.tail)
	}
}

// free takes the key numbered id out of the queue and drops its node.
func (z *nginxZone) free(id int32) {
	z.unlink(id)
	z.keyed.ForgetKey(Key{id: int(id)})
}

func (z *nginxZone) pushFront(id int32) {
	*z.linkAt(id) = zoneLink{prev: -1, next: z.head, in: true}
	if z.head >= 0 {
		z.linkAt(z.head).prev = id
	} else {
		z.tail = id
	}
	z.head = id
	z.n++
}

func (z *nginxZone) unlink(id int32) {
	l := z.link(id)
	if l.prev >= 0 {
		z.linkAt(l.prev).next = l.next
	} else {
		z.head = l.next
	}
	if l.next >= 0 {
		z.linkAt(l.next).prev = l.prev
	} else {
		z.tail = l.prev
	}
	*z.linkAt(id) = zoneLink{}
	z.n--
}

// sync puts the key numbered id in the queue, at the front, when its
// state has a node and it is not there (a state set from outside: making
// room for it as for a new node at millisecond ms), and takes it out when
// its state has none.
func (z *nginxZone) sync(id int, ms int64) {
	s := z.seenSlot(id)
	node := s != nil && s.s.node
	switch {
	case node && !z.has(id):
		z.makeRoom(ms)
		z.pushFront(int32(id))
	case !node && z.has(id):
		z.unlink(int32(id))
	}
}

// Clone shares the states as keyed does, and the queue's chunks of links
// the same way: a clone copies one pointer per linkChunk keys, and a chunk
// is copied when either first changes it. It starts from a copy of the
// whole of z, so that no field is left behind.
func (z *nginxZone) Clone() Limiter {
	c := new(nginxZone)
	*c = *z
	c.keyed = z.keyed.Clone().(*keyed[nginxState]) // a new epoch for both
	c.links = append([]*zoneLinks(nil), z.links...)
	c.keyed.Decider = NewDecider(c, c.ids)
	return c
}

// Memory adds the queue's links to the states': every chunk of them, and
// what a clone copies, a pointer a chunk.
func (z *nginxZone) Memory() Memory {
	m := z.keyed.Memory()
	self := int64(unsafe.Sizeof(*z)) + int64(cap(z.links))*8
	m.State += self + int64(len(z.links))*int64(unsafe.Sizeof(zoneLinks{}))
	m.Clone += self
	return m
}

// ForgetKey drops key's node and its place in the queue.
func (z *nginxZone) ForgetKey(key Key) {
	if z.has(key.id) {
		z.unlink(int32(key.id))
	}
	z.keyed.ForgetKey(key)
}

// CopyKey and ImportKey set key's state, then its place: a node that was
// not in the zone comes in at the front, making room as a new one would
// (at the latest time the state has seen).
func (z *nginxZone) CopyKey(src Limiter, key Key) {
	z.keyed.CopyKey(src, key)
	z.syncAt(key.id)
}

func (z *nginxZone) ImportKey(key Key, st State) error {
	if err := z.keyed.ImportKey(key, st); err != nil {
		return err
	}
	z.syncAt(key.id)
	return nil
}

func (z *nginxZone) syncAt(id int) {
	if s := z.seenSlot(id); s != nil {
		z.sync(id, msOf(s.s.at))
		return
	}
	z.sync(id, 0)
}

// saveDecide and restoreKey are keyed's around the zone's DecideInto: a
// stack of one policy decides through them.
func (z *nginxZone) saveDecide(d *Decision, now time.Duration, key Key, cost int64) {
	z.saveKey(key)
	z.DecideInto(d, now, key, cost)
}

func (z *nginxZone) restoreKey(key Key) {
	z.keyed.restoreKey(key)
	z.syncAt(key.id)
}

// restoreLooked puts back the state saveKey kept for key, as nginx leaves a
// zone it looked the request up in when a later zone refuses it: the node
// stays where the lookup moved it, at the front, and a node the lookup
// made stays, bare (never accounted).
func (z *nginxZone) restoreLooked(key Key) {
	s := z.seenSlot(key.id)
	made := s != nil && s.s.node && (!z.saved.had || !z.saved.s.node)
	if !made {
		z.restoreKey(key)
		return
	}
	at := s.s.at
	z.keyed.restoreKey(key) // the queue keeps the key
	*z.slot(key.id, at) = nginxState{node: true, bare: true, at: at}
}
