package algorithms

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"time"
)

// A decision of a stack of several layers is explained with every layer's
// numbers (its v, its RetryAfter and whether it refused; or, for a layer
// that decides on a copy of a plain state, that state before the request,
// from which it is decided again: stackInfo.layer), and a caller may
// keep a decision and ask for its explanation long after (the explorer
// explains each lane's last decision every frame, check its first
// mismatch at the end). A field of its own in Decision would cost every
// decision of every limiter its copying, so a stack writes each decision's
// layer numbers as a record of bytes, exactly (stackRecord), and keeps it
// where the decision can reach it for as long as the decision is kept:
//
//   - in the decision itself, when it fits in v and rec (stackInline
//     bytes, which a decision of a stack does not otherwise use): its
//     explain func, one of the stack's made once by NewStack, says how it
//     is written there (see stackLayout.pack and
//     stackRecords.keepUnpacked): up to 4 numbers as they are, in v
//     (raw); in the fields of a stackLayout, 5 to 9 of equal
//     width made by NewStack (equalLayout), more of the widths the stack
//     instance learned from its records, with no field for a number
//     that always equalled another (a learned layout, made once, is
//     two allocations); else as stackRecord writes them (inline);
//     nothing is allocated;
//   - else in a chunk of the stack instance's own (stackChunkBytes),
//     appended and never changed, v[0] its offset: its explain func is a
//     closure over the chunk, made with it, so the chunk lives as long as
//     a decision explained by it is kept (or while the stack fills it).
//     A new chunk costs two allocations, the bytes (no pointer, so the
//     collector never scans them) and the closure, once a chunk is full.
//
// Either way a record is exact and never changes, however many decisions
// the stack takes after it; what the chunks hold is bounded by the
// decisions callers keep, a chunk at most each, not by the decisions made.

// stackInline is how many bytes of a record a Decision holds: v and rec.
const stackInline = 4*8 + 7

// stackChunkBytes is the size of a chunk of records that do not fit in
// their decisions: 4 KiB, the records of 24 to 100 decisions (a record
// kept there takes 40 to 170 bytes).
const stackChunkBytes = 4096

// stackRecordMax bounds a record, with the 8 bytes stackRecord may write
// past its end: a nibble and 8 bytes for each of a layer's numbers.
const stackRecordMax = MaxLayers*stackWords*(1+16)/2 + 8

// stackInfo is what every decision of a stack of several layers is
// explained with, made once by NewStack and shared by its clones (it never
// changes).
type stackInfo struct {
	// layers are the stack's layers (NewStack's copy of its caller's).
	layers []Layer
	// explains are, by layer, the func its algorithm's description says
	// words its decisions.
	explains []func(b []byte, d Decision) []byte
	// raw and inline explain a decision whose record it holds itself: its
	// numbers as they are in v, or as stackRecord writes them.
	raw, inline func(b []byte, d Decision) []byte
	// fixed is the layout of a record of 5 to 9 numbers in its decision,
	// each in a field of equal width (packedBytes); nil for other
	// records, which a stack instance learns a layout for.
	fixed *stackLayout
	// all has a bit for each layer.
	all uint8
	// nginx says the layers are nginx's zones of one location, which
	// stops at the first that refuses: the zones after it are not asked.
	nginx bool
	// redecide is, by layer, how a layer whose record is its state
	// before the request decides it again from those words (nil for a
	// layer whose record is its numbers); masks are which of the layer's
	// words its record holds (stackLayer.recordWords; all 5 of a layer's
	// numbers), and nums the record's numbers in all.
	redecide []func(words [stackWords]int64, at time.Duration, cost int64) Decision
	masks    []uint8
	nums     int
	// offs are where each layer's words start in stack.nums (all its
	// state's, for a copied layer), and pick is where the record's
	// numbers are there, in order; past the record's numbers, the last of
	// stack.nums, which stays zero.
	offs [MaxLayers]int
	pick [stackNums]uint8
}

// numsIn is where each layer's words start in nums, a stack instance's
// (stack.numsOf): offs as pointers. No layer's words start past
// stackWords × (MaxLayers − 1), so each has stackWords words there.
func (info *stackInfo) numsIn(nums *[stackNumsRoom]int64) [MaxLayers]*[stackWords]int64 {
	var at [MaxLayers]*[stackWords]int64
	for i := range info.layers {
		at[i] = (*[stackWords]int64)(nums[info.offs[i]:])
	}
	return at
}

// stackWords is the most numbers a layer's record takes: its Decision's v
// and its wait, or its state before the request when that is no longer.
const stackWords = 5

// newStackInfo is the stackInfo of layers, each explained by the explain
// func of its algorithm's description.
func newStackInfo(layers []Layer, savers []stackLayer, copied uint8) *stackInfo {
	info := &stackInfo{layers: layers, explains: make([]func(b []byte, d Decision) []byte, len(layers)), nginx: nginxStack(layers),
		redecide: make([]func([stackWords]int64, time.Duration, int64) Decision, len(layers)), masks: make([]uint8, len(layers))}
	for p := range info.pick {
		info.pick[p] = stackNumsLast
	}
	at := 0 // where layer i's words start in stack.nums
	for i, l := range info.layers {
		info.explains[i] = Describe(l.Policy.Algorithm).explain
		info.offs[i], info.masks[i] = at, 1<<stackWords-1
		at += stackWords
		if copied&(1<<i) != 0 {
			info.redecide[i], info.masks[i] = savers[i].redecider(), savers[i].recordWords()
			at += savers[i].stateWords() - stackWords
		}
		for j := range stackWords {
			if info.masks[i]>>j&1 != 0 {
				info.pick[info.nums] = uint8(info.offs[i] + j)
				info.nums++
			}
		}
	}
	info.all = 1<<len(layers) - 1
	info.raw = func(b []byte, d Decision) []byte {
		var nums [stackNums]int64
		copy(nums[:], d.v[:])
		return info.explain(b, &d, &nums)
	}
	info.fixed = equalLayout(info, info.nums)
	info.inline = func(b []byte, d Decision) []byte {
		rec := inlineBytes(&d)
		nums := readRecord(rec[:], d.At, info.nums)
		return info.explain(b, &d, &nums)
	}
	return info
}

// stackNums bounds the numbers of a record, and the words the layers
// gather in stack.nums; stackNumsRoom is stack.nums' length, rounded up
// to a power of two so that an index masked by stackNumsLast needs no
// bounds check, and its last word is never written.
const (
	stackNums     = stackWords * MaxLayers
	stackNumsRoom = 32
	stackNumsLast = stackNumsRoom - 1
)

// gather writes into rec the record in nums, a stack's layers' words
// (stack.nums), its numbers in order, and returns them.
func (info *stackInfo) gather(rec *[stackNums]int64, nums *[stackNumsRoom]int64) []int64 {
	for p := range rec[:info.nums] {
		rec[p] = nums[info.pick[p]&stackNumsLast]
	}
	return rec[:info.nums]
}

// inlineBytes is the stackInline bytes of a record held in d: v's, then
// rec's, with 8 bytes to spare after them (see stackLayout.unpack).
func inlineBytes(d *Decision) [stackInline + 8]byte {
	var rec [stackInline + 8]byte
	for i, x := range d.v {
		binary.LittleEndian.PutUint64(rec[8*i:], uint64(x))
	}
	copy(rec[32:], d.rec[:])
	return rec
}

// packedBytes is the width of each of n numbers packed into a decision
// in fields of equal width (equalLayout): as many whole bytes as
// stackInline gives each, 0 for too few (4 numbers go as they are, 10
// would have 3 bytes each).
func packedBytes(n int) int {
	if n <= 4 || n > 9 {
		return 0
	}
	return stackInline / n
}

// equalLayout is the layout of n numbers in fields of packedBytes(n)
// each, nil when n numbers are not packed so.
func equalLayout(info *stackInfo, n int) *stackLayout {
	var plan layoutPlan
	for p := range n {
		plan.keep(p)
	}
	if !plan.equalWidths() {
		return nil
	}
	return newStackLayout(info, &plan)
}

// stackRecords is the chunk a stack instance writes the records that do
// not fit in their decisions into, and the layout it packs records of
// more than 9 numbers into their decisions with.
type stackRecords struct {
	// chunk is what is written of it: its cap is the chunk's.
	chunk []byte
	// explain explains the decisions whose records are in the chunk: a
	// closure over the whole chunk (not over chunk, which moves on).
	explain func(b []byte, d Decision) []byte
	// layout packs a record of more than 9 numbers in its decision, its
	// fields' widths learned from the records written before (nil until
	// then); it never changes, and clones share it. need is the most
	// bytes each number's field took in the records measured; same has,
	// by number, a bit for each number before it that it equalled in
	// every record measured; measured is how many, missed how many the
	// layout could not pack since it was made, and layouts how many were
	// made (see learn).
	layout           *stackLayout
	need             [stackNums]uint8
	same             [stackNums]uint32
	measured, missed int
	layouts          int
}

// stackLayout is where each number of a record goes in the stackInline
// bytes of its decision: field k, number at[k] of the record, in bytes
// offs[k] to offs[k+1], itself or its difference from the request's
// arrival, doubled, plus 1 for the difference (see pack). A record of 5
// to 9 numbers has fields of equal width (equalLayout); a stack instance
// learns the layout of a longer one from its records (the widths of a
// bucket's balance, a window's counts, times near the arrival), so that
// a record of many numbers is written without a size tag a number. A
// learned layout gives no field to a number that equalled one before it
// in every record learned from (two layers per key whose last requests
// are the same request, two over all keys counting the same window):
// dups, checked as a record is packed, and read back as that number.
type stackLayout struct {
	n int
	// pick is, by field, where its number is in stack.nums, and at
	// which number of the record it is.
	pick [stackNums]uint8
	at   [stackNums]uint8
	offs [stackNums + 1]uint
	// half is, by field, half the range of the numbers it holds
	// (fieldHalf).
	half [stackNums]int64
	// equal says the fields are n of packedBytes(n) each, which pack
	// writes with their places and widths constants.
	equal bool
	// dups are the numbers that have no field: number dupAt[k][0] of a
	// record is number dupAt[k][1], which has one; dupNums are the two
	// in stack.nums.
	dups    int
	dupAt   [maxDups][2]uint8
	dupNums [maxDups][2]uint8
	explain func(b []byte, d Decision) []byte
}

// maxDups bounds a layout's dups: a number equal to one before it, once
// there are maxDups, has a field of its own.
const maxDups = 4

// layoutPlan is what a stackLayout is made from: which numbers of a
// record have fields (kept, in order), how wide, and which are another's
// (dups).
type layoutPlan struct {
	n, dups int
	kept    [stackNums]uint8
	widths  [stackNums]int
	dupAt   [maxDups][2]uint8
}

// keep gives number p a field.
func (pl *layoutPlan) keep(p int) { pl.kept[pl.n], pl.n = uint8(p), pl.n+1 }

// dup makes number p number q's, with no field of its own.
func (pl *layoutPlan) dup(p, q int) {
	pl.dupAt[pl.dups], pl.dups = [2]uint8{uint8(p), uint8(q)}, pl.dups+1
}

// equalWidths gives every field packedBytes of their count, reporting
// false when that is 0.
func (pl *layoutPlan) equalWidths() bool {
	w := packedBytes(pl.n)
	for k := range pl.widths[:pl.n] {
		pl.widths[k] = w
	}
	return w != 0
}

// learnAfter is how many records a stack instance measures before it
// makes a layout, and how many its layout misses before it makes another
// from all it measured; it makes at most maxLayouts.
const (
	learnAfter = 64
	maxLayouts = 4
)

// learn measures nums, a record of a request at at that the layout
// could not pack (or before there is one), and makes a layout when it is
// time to: a number that equalled one before it in every record measured
// is that one's (a dup), and the others have fields, of equal width when
// 5 to 9 fit so (equalLayout's), else each as wide as the widest it
// took, the bytes to spare given one by one to each field in turn.
// Fields that take more than stackInline bytes make none, and learning
// stops.
func (r *stackRecords) learn(info *stackInfo, at time.Duration, nums []int64) {
	if r.layouts >= maxLayouts {
		return
	}
	for p, x := range nums {
		z := min(zigzag(x), zigzag(x-int64(at)))
		r.need[p] = max(r.need[p], uint8((bits.Len64(z)+1+7)/8)) // its flag too
		var same uint32
		for q, y := range nums[:p] {
			if x == y {
				same |= 1 << q
			}
		}
		if r.measured > 0 {
			same &= r.same[p]
		}
		r.same[p] = same
	}
	r.measured++
	if r.layout != nil {
		r.missed++
	}
	if r.measured < learnAfter || (r.layout != nil && r.missed < learnAfter) {
		return
	}
	r.layouts++
	var plan layoutPlan
	for p := range nums {
		if same := r.same[p]; same != 0 && plan.dups < maxDups {
			plan.dup(p, bits.TrailingZeros32(same)) // the first it equals: itself no dup
		} else {
			plan.keep(p)
		}
	}
	if !plan.equalWidths() || slices.ContainsFunc(plan.kept[:plan.n], func(p uint8) bool { return int(r.need[p]) > plan.widths[0] }) {
		if !r.learnWidths(&plan) {
			r.layouts = maxLayouts // too wide: records keep their size tags
			return
		}
	}
	r.layout, r.missed = newStackLayout(info, &plan), 0
}

// learnWidths gives each of plan's fields the bytes its numbers took,
// and the bytes to spare one by one to each field in turn; false if
// they take more than stackInline.
func (r *stackRecords) learnWidths(plan *layoutPlan) bool {
	width := plan.widths[:plan.n]
	total := 0
	for k, p := range plan.kept[:plan.n] {
		width[k] = max(1, int(r.need[p]))
		total += width[k]
	}
	if total > stackInline {
		return false
	}
	for spare, k := stackInline-total, 0; spare > 0; k = (k + 1) % len(width) {
		if width[k] < 8 {
			width[k]++
			spare--
		} else if !slices.ContainsFunc(width, func(w int) bool { return w < 8 }) {
			break
		}
	}
	return true
}

// newStackLayout lays out as plan says the record of a decision of a
// stack of info.
func newStackLayout(info *stackInfo, plan *layoutPlan) *stackLayout {
	l := &stackLayout{n: plan.n, dups: plan.dups, dupAt: plan.dupAt}
	for k, p := range plan.kept[:plan.n] {
		w := plan.widths[k]
		l.pick[k], l.at[k] = info.pick[p], p
		l.offs[k+1] = l.offs[k] + uint(w)
		l.half[k] = fieldHalf(w)
	}
	l.equal = packedBytes(plan.n) != 0 && !slices.ContainsFunc(plan.widths[:plan.n], func(w int) bool { return w != packedBytes(plan.n) })
	for k := range l.dupNums {
		l.dupNums[k] = [2]uint8{stackNumsLast, stackNumsLast} // zero, twice
		if k < plan.dups {
			pq := plan.dupAt[k]
			l.dupNums[k] = [2]uint8{info.pick[pq[0]], info.pick[pq[1]]}
		}
	}
	l.explain = func(b []byte, d Decision) []byte {
		rec := inlineBytes(&d)
		nums := l.unpack(&rec, d.At)
		return info.explain(b, &d, &nums)
	}
	return l
}

// pack writes the record in nums, a stack's layers' words (stack.nums),
// in d's v and rec as l lays it out, and d's explain; it reports false
// (d untouched) for no layout (nil), if a dup is not the number it
// stands for, or if a number fits its field neither as itself nor as its
// difference from at. A field of w bytes holds a y with −half ≤ y < half
// (its bits less the flag's), y + half below 2 × half unsigned, and is
// written as the 8 bytes from its start, the next one's written over
// what it leaves: no nibbles, no zigzag, a number's size known before it
// is read.
func (l *stackLayout) pack(d *Decision, at time.Duration, nums *[stackNumsRoom]int64) bool {
	if l == nil {
		return false
	}
	if l.dups > 0 {
		// Every pair, unused ones the last of nums twice (zero): a loop
		// cost some 17 instructions a dup, this 8.
		x, dn := func(i uint8) int64 { return nums[i&stackNumsLast] }, &l.dupNums
		if (x(dn[0][0])^x(dn[0][1]))|(x(dn[1][0])^x(dn[1][1]))|(x(dn[2][0])^x(dn[2][1]))|(x(dn[3][0])^x(dn[3][1])) != 0 {
			return false
		}
	}
	// A local: bytes behind a pointer would be checked for nil at every
	// field.
	var rec [64 + 8]byte
	// An equal layout's fields, n (5 to 9) of packedBytes(n) each, are
	// written by a case for each count, their places and widths
	// constants: read from the layout in a loop (packFields), a record of
	// 7 numbers cost some 50 instructions more (BenchmarkStack/stack-4),
	// and in a method of its own, not inlined, some 15.
	if !l.equal {
		if !l.packFields(&rec, nums, int64(at)) {
			return false
		}
	} else {
		var miss uint64
		x := func(k uint) int64 { return nums[l.pick[k]&stackNumsLast] }
		switch l.n {
		case 5:
			const w = stackInline / 5
			f := func(k uint) uint64 { return putField(&rec, k*w, fieldHalf(w), x(k), int64(at)) }
			miss = f(0) | f(1) | f(2) | f(3) | f(4)
		case 6:
			const w = stackInline / 6
			f := func(k uint) uint64 { return putField(&rec, k*w, fieldHalf(w), x(k), int64(at)) }
			miss = f(0) | f(1) | f(2) | f(3) | f(4) | f(5)
		case 7:
			const w = stackInline / 7
			f := func(k uint) uint64 { return putField(&rec, k*w, fieldHalf(w), x(k), int64(at)) }
			miss = f(0) | f(1) | f(2) | f(3) | f(4) | f(5) | f(6)
		case 8:
			const w = stackInline / 8
			f := func(k uint) uint64 { return putField(&rec, k*w, fieldHalf(w), x(k), int64(at)) }
			miss = f(0) | f(1) | f(2) | f(3) | f(4) | f(5) | f(6) | f(7)
		case 9:
			const w = stackInline / 9
			f := func(k uint) uint64 { return putField(&rec, k*w, fieldHalf(w), x(k), int64(at)) }
			miss = f(0) | f(1) | f(2) | f(3) | f(4) | f(5) | f(6) | f(7) | f(8)
		}
		if miss != 0 {
			return false
		}
		putZeros(&rec, l.offs[l.n])
	}
	inline(d, (*[stackInline]byte)(rec[:stackInline]))
	d.explain = l.explain
	return true
}

// packFields writes into rec the fields of a layout whose widths it
// learned; false if a number fits its field neither way. Nothing past the
// last field needs clearing: learned fields fill stackInline bytes unless
// every one is 8 bytes wide, and an 8-byte field's write ends where it
// does.
func (l *stackLayout) packFields(rec *[64 + 8]byte, nums *[stackNumsRoom]int64, at int64) bool {
	for k, i := range l.pick[:min(l.n, stackNums)] {
		if putField(rec, l.offs[k], l.half[k], nums[i&stackNumsLast], at) != 0 {
			return false
		}
	}
	return true
}

// putZeros writes zeros in the 8 bytes at off (at most stackInline),
// after an equal layout's last field (which ends short of stackInline),
// where that field's 8 bytes' top ones went.
func putZeros(rec *[64 + 8]byte, off uint) { binary.LittleEndian.PutUint64(rec[off&63:], 0) }

// fieldHalf is half the range of the numbers a field of w bytes holds:
// −half ≤ y < half, its bits less the flag's.
func fieldHalf(w int) int64 { return 1 << (8*w - 2) }

// putField writes x, or its difference from at, in the field at byte off
// of rec whose numbers y are −half ≤ y < half (fieldHalf), as
// stackLayout.pack says, and returns 1 if it fits neither way
// (0 if it fits). No field starts past stackInline: off&63 is off, and
// spares a bounds check.
func putField(rec *[64 + 8]byte, off uint, half, x, at int64) uint64 {
	field, miss := x<<1, uint64(0)
	if uint64(x+half) >= uint64(half)*2 {
		y := x - at
		if uint64(y+half) >= uint64(half)*2 {
			miss = 1
		}
		field = y<<1 | 1
	}
	binary.LittleEndian.PutUint64(rec[off&63:], uint64(field))
	return miss
}

// unpack reads the numbers pack wrote in rec.
func (l *stackLayout) unpack(rec *[stackInline + 8]byte, at time.Duration) [stackNums]int64 {
	var nums [stackNums]int64
	for k, p := range l.at[:l.n] {
		o := l.offs[k]
		sh := (64 - 8*uint(l.offs[k+1]-o)) & 63
		f := int64(binary.LittleEndian.Uint64(rec[o:o+8])<<sh) >> sh
		nums[p] = f >> 1
		if f&1 != 0 {
			nums[p] += int64(at)
		}
	}
	for _, pq := range l.dupAt[:l.dups] {
		nums[pq[0]] = nums[pq[1]] // a number with a field: read above
	}
	return nums
}

// stackRecord writes nums, a decision's layers' numbers (see
// stack.recordInto), into buf, and returns what it wrote: a nibble for
// each number, two to a byte (numbers 2k and 2k+1 in byte k, low nibble
// first), then the numbers in order, each in the bytes its nibble says. A
// number is written as the zigzag of itself or of its difference from at,
// whichever is smaller (times sit near at): the nibble's bit 3 says the
// difference. The nibble's low 3 bits are the number's bytes, 0 to 6, or 7
// for 8. Arithmetic wraps, so any int64 (a float's bits among them) comes
// back exactly.
func stackRecord(buf *[stackRecordMax]byte, at time.Duration, nums []int64) int {
	nums = nums[:min(len(nums), stackNums)]
	start := (len(nums) + 1) / 2
	// Zeros where a record that fits in its decision goes: what a longer
	// record left there before. Past the last number's bytes, its own
	// PutUint64 wrote zeros.
	*(*[stackInline + 1]byte)(buf[:stackInline+1]) = [stackInline + 1]byte{}
	// One pass: each number written where the one before it ends, its
	// nibble gathered in low (numbers 0 to 15) or high (16 to 19), which
	// are written before the numbers once known.
	n := start
	low := recordNums(buf, &n, at, nums[:min(len(nums), 16)])
	putLow(buf[:8], low, min(start, 8))
	if start > 8 {
		high := recordNums(buf, &n, at, nums[16:])
		putLow(buf[8:16], high, start-8)
	}
	return n
}

// recordNums writes nums (16 at most) from buf[*n] on as stackRecord
// does, moving *n past them, and returns their nibbles.
func recordNums(buf *[stackRecordMax]byte, n *int, at time.Duration, nums []int64) uint64 {
	var nibbles uint64
	m := *n
	for k, x := range nums {
		z, c := zigzag(x), uint64(0)
		if near := zigzag(x - int64(at)); near < z {
			z, c = near, 8
		}
		b := recordBytes(z)
		binary.LittleEndian.PutUint64(buf[m:m+8], z)
		m += int(b + (b+1)>>3) // 7 stands for 8
		nibbles |= (c | b) << (4 * uint(k) & 63)
	}
	*n = m
	return nibbles
}

// putLow writes the low size bytes (0 to 8) of x into b, leaving the rest
// of b's 8 bytes as they are.
func putLow(b []byte, x uint64, size int) {
	keep := ^uint64(0) << (8 * size) // 0 for 8 bytes
	binary.LittleEndian.PutUint64(b, binary.LittleEndian.Uint64(b)&keep|x&^keep)
}

// recordBytes is a number's nibble's low 3 bits in a record: its bytes, 0
// to 6, or 7 for 8.
func recordBytes(z uint64) uint64 { return uint64(min((bits.Len64(z)+7)/8, 7)) }

// stackSizes are the bytes of a number of a record, by its nibble's low 3
// bits.
var stackSizes = [8]int{0, 1, 2, 3, 4, 5, 6, 8}

func zigzag(x int64) uint64 { return uint64(x<<1) ^ uint64(x>>63) }

func unzigzag(z uint64) int64 { return int64(z>>1) ^ -int64(z&1) }

// stackReader reads a record that stackRecord wrote.
type stackReader struct {
	rec []byte
	at  int64 // the request's arrival
	k   int   // the next number's nibble
	n   int   // where its bytes start
}

// newStackReader reads rec, a record of nums numbers of a request that
// arrived at at.
func newStackReader(rec []byte, at time.Duration, nums int) stackReader {
	return stackReader{rec: rec, at: int64(at), n: (nums + 1) / 2}
}

// next is the next number.
func (r *stackReader) next() int64 {
	c := r.rec[r.k/2] >> (4 * (r.k % 2)) & 15
	size := stackSizes[c&7]
	var word [8]byte
	copy(word[:], r.rec[r.n:r.n+size])
	r.k, r.n = r.k+1, r.n+size
	x := unzigzag(binary.LittleEndian.Uint64(word[:]))
	if c&8 != 0 {
		x += r.at
	}
	return x
}

// keepUnpacked puts nums, the record of d (a decision of a request at
// at) of more than 4 numbers that no layout packs (stackLayout.pack),
// where d can reach it, as stackRecord writes it: in d when it fits, else
// in the stack instance's chunk. buf is where it is written first.
func (r *stackRecords) keepUnpacked(info *stackInfo, d *Decision, buf *[stackRecordMax]byte, at time.Duration, nums []int64) {
	if info.fixed == nil {
		r.learn(info, at, nums)
	}
	n := stackRecord(buf, at, nums)
	if n <= stackInline {
		inline(d, (*[stackInline]byte)(buf[:stackInline]))
		d.explain = info.inline
		return
	}
	if len(r.chunk)+n > cap(r.chunk) {
		chunk := make([]byte, stackChunkBytes)
		r.chunk = chunk[:0]
		r.explain = func(b []byte, d Decision) []byte {
			nums := readRecord(chunk[d.v[0]:], d.At, info.nums)
			return info.explain(b, &d, &nums)
		}
	}
	d.v = [4]int64{int64(len(r.chunk))}
	r.chunk = append(r.chunk, buf[:n]...)
	d.explain = r.explain
}

// layoutFor is the layout that packs a record of a stack of info in its
// decision: the stack's equal-width one, else the one this instance
// learned (nil for none yet, or for a record of up to 4 numbers).
func (r *stackRecords) layoutFor(info *stackInfo) *stackLayout {
	if info.fixed != nil {
		return info.fixed
	}
	return r.layout
}

// inline puts a record's stackInline bytes in d's v and rec.
func inline(d *Decision, rec *[stackInline]byte) {
	le := binary.LittleEndian
	d.v = [4]int64{int64(le.Uint64(rec[0:8])), int64(le.Uint64(rec[8:16])), int64(le.Uint64(rec[16:24])), int64(le.Uint64(rec[24:32]))}
	d.rec = [7]byte(rec[32:stackInline])
}

// readRecord is the n numbers of rec, a record stackRecord wrote of a
// request at at.
func readRecord(rec []byte, at time.Duration, n int) [stackNums]int64 {
	var nums [stackNums]int64
	r := newStackReader(rec, at, n)
	for i := range nums[:n] {
		nums[i] = r.next()
	}
	return nums
}

// layer is layer i's Decision again, read from r, on the request of the
// stack's decision d: decided again on the state the layer had before the
// request, for a layer whose record is that state (stackInfo.redecide),
// else its numbers as the layer gave them (see stack.recordInto).
func (info *stackInfo) layer(i int, nums []int64, d *Decision) Decision {
	var l Decision
	if redecide := info.redecide[i]; redecide != nil {
		// The words its record holds, in their places in its state.
		var words [stackWords]int64
		k := 0
		for j := range words {
			if info.masks[i]>>j&1 != 0 {
				words[j], k = nums[k], k+1
			}
		}
		l = redecide(words, d.At, d.Cost) // by value: a pointer to it would move it to the heap
	} else {
		l = Decision{At: d.At, Cost: d.Cost}
		copy(l.v[:], nums)
		switch wait := nums[4]; {
		case wait < 0:
			l.Outcome, l.RetryAfter = Rejected, time.Duration(^wait)
		case wait > 0:
			l.Outcome, l.Delay = Delayed, time.Duration(wait)
		}
	}
	l.explain, l.policy, l.times = info.explains[i], &info.layers[i].Policy, d.times
	return l
}

// explain words every layer's verdict, from nums, d's record read:
// "per-account (per key): … → allowed; total (all keys together): … →
// rejected ⇒ refused by total: no policy spends it".
func (info *stackInfo) explain(b []byte, d *Decision, nums *[stackNums]int64) []byte {
	var refused [MaxLayers]bool
	refusers, longest := 0, -1
	var delay time.Duration // the longest of the layers' delays
	at := 0                 // where layer i's numbers start
	for i, l := range info.layers {
		if i > 0 {
			b = append(b, "; "...)
		}
		b = appendf(b, d.times, "%s (%s): ", l.Name, l.Scope())
		v := info.layer(i, nums[at:], d)
		at += bits.OnesCount8(info.masks[i])
		if info.nginx && refusers > 0 {
			b = append(b, "not looked up: nginx stops at the first zone that refuses"...)
			continue
		}
		b = v.AppendExplain(b)
		switch {
		case v.Outcome == Rejected:
			refused[i] = true
			refusers++
		case d.Outcome == Rejected || d.DryRun == Rejected:
			b = append(b, " (had all admitted)"...)
		case v.Delay > 0 && v.Delay >= delay:
			longest, delay = i, v.Delay
		}
	}
	if refusers == 0 {
		b = append(b, " ⇒ every policy admits: spent in all"...)
		if longest >= 0 {
			b = appendf(b, d.times, "; it waits %s, the longest of their delays (%s's)", secs(delay), info.layers[longest].Name)
		}
		return appendDryRun(b, d)
	}
	b = append(b, " ⇒ refused by "...)
	first := true
	for i, l := range info.layers {
		if !refused[i] {
			continue
		}
		if !first {
			b = append(b, " and "...)
		}
		b, first = append(b, l.Name...), false
	}
	b = append(b, ": no policy spends it"...)
	if refusers > 1 {
		b = appendf(b, d.times, "; retry after %s, the longest of their waits", secs(d.RetryAfter))
	}
	return appendDryRun(b, d)
}

// appendDryRun ends the explanation of a stack's decision that a dry run
// let through (nginx's limit_req_dry_run, the whole location's).
func appendDryRun(b []byte, d *Decision) []byte {
	switch d.DryRun {
	case Rejected:
		return append(b, "; dry run (limit_req_dry_run): let through at once, logged REJECTED_DRY_RUN"...)
	case Delayed:
		return append(b, "; dry run (limit_req_dry_run): let through at once, logged DELAYED_DRY_RUN"...)
	}
	return b
}
