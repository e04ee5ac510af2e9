package algorithms

import (
	"math"
	"slices"
	"testing"
	"time"
	"unsafe"
)

// A stack's record gives back every number exactly, whatever it is:
// times near and far from the request, counts, a float's bits, the
// extremes of int64, a wait that never ends (its complement), as many as
// four layers' worth.
func TestStackRecordRoundTrip(t *testing.T) {
	f := func(x float64) int64 { return int64(math.Float64bits(x)) }
	for _, c := range []struct {
		at   time.Duration
		nums []int64
	}{
		{0, nil},
		{0, []int64{0}},
		{0, []int64{1, -1, math.MaxInt64, math.MinInt64, 1, ^int64(Never), 0}},
		{1<<62 - 1, []int64{
			1<<62 - 1, 1<<62 - 2, 0, -(1 << 62), 0,
			f(10), f(-0.5), f(math.NaN()), f(math.Inf(-1)), ^int64(1 << 62),
			math.MinInt64, math.MaxInt64, 1 << 62, 1<<62 + 1, 0,
			255, 256, 1 << 48, 1 << 56, ^int64(1<<56 - 1),
		}},
		{2500500000, []int64{0, 10000000, 1000000000, 2500500000, 0, 2000000000, 500, 2500500000, 0, ^int64(3 * time.Millisecond), 2498833333, 40, 2500500000}},
	} {
		var buf [stackRecordMax]byte
		for i := range buf {
			buf[i] = 0xff // what a reused record held: stackRecord must clear it
		}
		n := stackRecord(&buf, c.at, c.nums)
		if n > stackRecordMax-8 {
			t.Fatalf("at %v: a record of %d bytes, beyond %d", c.at, n, stackRecordMax-8)
		}
		r := newStackReader(buf[:n], c.at, len(c.nums))
		for i, want := range c.nums {
			if got := r.next(); got != want {
				t.Errorf("at %v, number %d: read %d, wrote %d", c.at, i, got, want)
			}
		}
		if r.n != n {
			t.Errorf("at %v: read %d bytes of %d", c.at, r.n, n)
		}
		for i := n; i < stackInline; i++ {
			if buf[i] != 0 {
				t.Fatalf("at %v: byte %d past the record's %d is %d, not 0", c.at, i, n, buf[i])
			}
		}
	}
}

// A record that fits in its decision takes no room of its own: rec lies
// in what would be the padding after Outcome.
func TestStackRecordFillsPadding(t *testing.T) {
	var d Decision
	if off := unsafe.Offsetof(d.At); off != unsafe.Offsetof(d.rec)+unsafe.Sizeof(d.rec) {
		t.Errorf("At at byte %d: rec (bytes %d to %d) no longer fills Outcome's padding", off, unsafe.Offsetof(d.rec), unsafe.Offsetof(d.rec)+unsafe.Sizeof(d.rec))
	}
}

// Every algorithm's description explains its limiters' decisions word for
// word as the decisions themselves do: a stack explains its layers with
// the description's.
func TestDescriptionsExplainAsDecisions(t *testing.T) {
	for _, a := range Algorithms {
		desc := Describe(a)
		for _, p := range describedPolicies(a) {
			for i, d := range explainTrace(t, mustNew(t, p)) {
				if d.RetryAfter == Never {
					continue // AppendExplain words it itself
				}
				if got, want := string(desc.explain(nil, d)), string(d.explain(nil, d)); got != want {
					t.Fatalf("%s decision %d: the description says\n%s\nthe decision\n%s", p, i, got, want)
				}
			}
		}
	}
}

// A record packed in its decision gives back every number exactly: 5 to
// 9 numbers in fields of equal width, each itself or its difference from
// the request's arrival; a record with a number that fits neither way is
// not packed (it goes as stackRecord writes it), and the bytes after the
// last field are zero whatever a record before left there.
func TestStackRecordPacks(t *testing.T) {
	at := 90 * time.Hour // far from 0: times near it fit only as differences
	for n := 5; n <= 9; n++ {
		w, l := packedBytes(n), equalLayout(inOrder(n), n)
		if l == nil || l.offs[n] != uint(w*n) {
			t.Fatalf("%d numbers: layout %+v, not %d fields of %d bytes", n, l, n, w)
		}
		top := int64(1)<<(8*w-2) - 1 // the largest a field holds
		fits := []int64{0, 1, -1, top, -top - 1, int64(at), int64(at) + top, int64(at) - top - 1, top / 3, int64(at) - 5e6}
		for k := 0; k+n <= len(fits)+n; k++ {
			nums := make([]int64, n)
			for i := range nums {
				nums[i] = fits[(k+i)%len(fits)]
			}
			d := spoiledDecision()
			if !packNums(l, &d, at, nums) {
				t.Fatalf("%d numbers %v: not packed in %d bytes each", n, nums, w)
			}
			rec := inlineBytes(&d)
			for i := w * n; i < stackInline; i++ {
				if rec[i] != 0 {
					t.Fatalf("%d numbers: byte %d past the fields is %d", n, i, rec[i])
				}
			}
			got := l.unpack(&rec, at)
			for i, want := range nums {
				if got[i] != want {
					t.Errorf("%d numbers, number %d: read %d, wrote %d", n, i, got[i], want)
				}
			}
		}
		// Far from 0 and from at.
		for _, far := range []int64{-top - 2, int64(at) + top + 1, math.MaxInt64, math.MinInt64} {
			nums := append(make([]int64, n-1), far)
			d, spoiled := spoiledDecision(), spoiledDecision()
			if packNums(l, &d, at, nums) || inlineBytes(&d) != inlineBytes(&spoiled) || d.explain != nil {
				t.Errorf("%d numbers: %d packed in %d bytes, or the decision changed", n, nums[n-1], w)
			}
		}
	}
	for _, n := range []int{1, 4, 10, 20} {
		if w, l := packedBytes(n), equalLayout(inOrder(n), n); w != 0 || l != nil {
			t.Errorf("%d numbers packed in %d bytes each (%+v)", n, w, l)
		}
	}
}

// inOrder is a stackInfo whose records are n numbers gathered in order
// (stack.nums' first n).
func inOrder(n int) *stackInfo {
	info := &stackInfo{nums: n}
	for p := range info.pick {
		info.pick[p] = uint8(p)
	}
	return info
}

// packNums packs nums, a record gathered in order, as l lays it out.
func packNums(l *stackLayout, d *Decision, at time.Duration, nums []int64) bool {
	var all [stackNumsRoom]int64
	copy(all[:], nums)
	return l.pack(d, at, &all)
}

// packsBack packs nums, a record gathered in order, as l lays it out in
// a decision whose record's bytes were all ones, and reports whether it
// did; if so, it checks that unpack reads nums back and that the bytes
// after the last field are zero.
func packsBack(t *testing.T, l *stackLayout, at time.Duration, nums []int64) bool {
	t.Helper()
	d := spoiledDecision()
	if !packNums(l, &d, at, nums) {
		return false
	}
	rec := inlineBytes(&d)
	if got := l.unpack(&rec, at); !slices.Equal(got[:len(nums)], nums) {
		t.Fatalf("read %v, wrote %v", got[:len(nums)], nums)
	}
	for i := l.offs[l.n]; i < stackInline; i++ {
		if rec[i] != 0 {
			t.Fatalf("byte %d past the fields is %d", i, rec[i])
		}
	}
	return true
}

// spoiledDecision is a decision whose record's bytes are all ones: what
// a record before left there, which a record packed must clear.
func spoiledDecision() Decision {
	d := Decision{rec: [7]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}
	for i := range d.v {
		d.v[i] = -1
	}
	return d
}

// A stack instance learns a layout for records of many numbers from the
// records it writes: a record the layout packs comes back exactly; one it
// cannot pack is written with size tags, and enough of those make a wider
// layout, at most maxLayouts; records too wide for the decision make
// none. A clone packs with its original's layout.
func TestStackRecordLearnsItsLayout(t *testing.T) {
	info := inOrder(13)
	var r stackRecords
	at := 40 * time.Second
	near := func(i int, spread int64) []int64 {
		nums := make([]int64, 13)
		for p := range nums {
			switch {
			case p%3 == 0:
				nums[p] = int64(at) - spread*int64(p+i) // times just before at
			case p == 2:
				nums[p] = 1e10 - int64(i) // a bucket's balance × its period
			default:
				nums[p] = int64(i+p) % 100 // counts
			}
		}
		return nums
	}
	for i := range learnAfter {
		if r.layout != nil {
			t.Fatalf("a layout after %d records", i)
		}
		r.learn(info, at, near(i, 1000))
	}
	l := r.layout
	if l == nil || l.offs[13] != stackInline {
		t.Fatalf("no layout, or one not filling the decision's bytes: %+v", l)
	}
	check := func(nums []int64) bool { return packsBack(t, r.layout, at, nums) }
	if !check(near(7, 1000)) {
		t.Fatal("the layout does not pack a record like those it learned from")
	}
	wide := near(3, 1<<20) // times further before at
	if check(wide) {
		t.Fatal("a record far wider than those learned from was packed")
	}
	for range learnAfter {
		r.learn(info, at, wide)
	}
	if r.layout == l || r.layouts != 2 {
		t.Fatalf("after %d misses: layouts %d, the same one %v", learnAfter, r.layouts, r.layout == l)
	}
	if !check(wide) || !check(near(9, 1000)) {
		t.Error("the wider layout does not pack both kinds of record")
	}
	huge := make([]int64, 13)
	for p := range huge {
		huge[p] = math.MinInt64 / int64(p+2)
	}
	for range maxLayouts * learnAfter {
		r.learn(info, at, huge)
	}
	if r.layouts != maxLayouts || r.layout.offs[13] > stackInline {
		t.Errorf("records too wide: %d layouts, the last %d bytes", r.layouts, r.layout.offs[13])
	}

	s := mustStack(t, benchLayers...).(*stack)
	for i := range 2 * learnAfter {
		s.Decide(time.Duration(i)*ms, benchStackKeys[i%len(benchStackKeys)], 1)
	}
	if l := s.recs.layout; l == nil || !l.equal || l.n != 7 || l.dups != 3 {
		// The per-key layers' last requests are one number, and so are
		// the all-keys layers' counts and last requests.
		t.Fatalf("four layers: layout %+v, not 7 fields of equal width and 3 dups", l)
	}
	if c := s.Clone().(*stack); c.recs.layout != s.recs.layout || c.recs.chunk != nil {
		t.Error("a clone does not share its original's layout, or shares its chunk")
	}
}

// A learned layout gives no field to a number that equalled one before it
// in every record learned from (at most maxDups of them), and reads it
// back as that number; a record where they differ is not packed, and
// enough of those make a layout that gives it a field again.
func TestStackRecordLearnsDups(t *testing.T) {
	at := 40 * time.Second
	// Numbers all apart but for 4 and 9, which are 1 (9 not, if the
	// record differs), and 10, 11 and 12, which are 0: the last of them
	// beyond maxDups.
	record := func(i int, differ bool) []int64 {
		nums := apart(13, i, at)
		nums[4], nums[9] = nums[1], nums[1]
		nums[10], nums[11], nums[12] = nums[0], nums[0], nums[0]
		if differ {
			nums[9]++
		}
		return nums
	}
	var r stackRecords
	info := inOrder(13)
	packs := func(nums []int64) bool { return packsBack(t, r.layout, at, nums) }
	for i := range learnAfter {
		r.learn(info, at, record(i, false))
	}
	want := [maxDups][2]uint8{{4, 1}, {9, 1}, {10, 0}, {11, 0}}
	if l := r.layout; l == nil || l.dups != maxDups || l.dupAt != want || l.n != 9 || !l.equal {
		t.Fatalf("layout %+v: not 9 fields of equal width and dups %v", l, want)
	}
	if !packs(record(70, false)) {
		t.Fatal("a record like those learned from is not packed")
	}
	if packs(record(71, true)) {
		t.Fatal("a record whose dup differs from its number was packed")
	}
	for i := range learnAfter {
		r.learn(info, at, record(100+i, true))
	}
	want = [maxDups][2]uint8{{4, 1}, {10, 0}, {11, 0}, {12, 0}}
	if l := r.layout; l.dupAt != want || l.n != 9 {
		t.Fatalf("after %d records where number 9 differs: dups %v, want %v", learnAfter, l.dupAt[:l.dups], want)
	}
	if !packs(record(200, true)) || !packs(record(201, false)) {
		t.Error("the new layout does not pack both kinds of record")
	}
}

// A layout is learned from every record measured, the first too: a
// number that equalled another in every record but the first is no dup;
// and fields of equal width only when every number fits them: a record
// of 6 fields after its dups, one of them a number that needs 7 bytes,
// gets fields learned one by one.
func TestStackRecordLearnsFromEveryRecord(t *testing.T) {
	at := 40 * time.Second
	for _, c := range []struct {
		name  string
		nums  func(i int) []int64
		dups  int  // the layout's
		equal bool // its fields all of one width
	}{
		{"equal but in the first", func(i int) []int64 {
			nums := apart(10, i, at)
			if i > 0 {
				nums[5] = nums[2]
			}
			return nums
		}, 0, false},
		{"one number too wide for equal fields", func(i int) []int64 {
			nums := apart(10, i, at)
			nums[3] = 1<<52 + int64(i) // far from 0 and from at: 7 bytes with its flag
			copy(nums[6:], nums[:4])   // 4 dups, 6 fields
			return nums
		}, 4, false},
	} {
		var r stackRecords
		info := inOrder(10)
		for i := range learnAfter {
			r.learn(info, at, c.nums(i))
		}
		l := r.layout
		if l == nil || l.dups != c.dups || l.equal != c.equal {
			t.Fatalf("%s: layout %+v, want %d dups, equal widths %v", c.name, l, c.dups, c.equal)
		}
		if !packsBack(t, l, at, c.nums(learnAfter)) {
			t.Errorf("%s: a record like those learned from is not packed", c.name)
		}
	}
}

// apart is the i-th of records of n numbers just before at, each number
// of each record apart from every other.
func apart(n, i int, at time.Duration) []int64 {
	nums := make([]int64, n)
	for p := range nums {
		nums[p] = int64(at) - int64(n*i+p)
	}
	return nums
}
