package redisstore

import (
	"embed"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"ratelab/algorithms"
)

//go:embed lua/*.lua
var luaFiles embed.FS

// MaxExact is 2^53: every whole number below it is a double, so a Lua
// script computes exactly with it; the next ones are not all.
const MaxExact = 1 << 53

// script is one algorithm's Lua script and what it needs of a policy.
type script struct {
	// file is the script's file under lua/, prelude.lua run before it,
	// and libs the files of helpers it needs beside the prelude's, run
	// between the two (wide.lua: doubles and longs).
	file string
	libs []string
	lua  *redis.Script
	// args are the policy's numbers, the script's arg(1), arg(2), ...
	args func(p algorithms.Policy) []int64
	// bounds are the largest numbers the script computes with for p,
	// beside the times (each below MaxExact for p to run).
	bounds func(p algorithms.Policy) []quantity
	// forms are the state forms the script writes, for an algorithm whose
	// form depends on the policy (its Description's StateFor); else its
	// one form.
	forms []algorithms.StateForm
	// caches are the fields the script keeps beside its form's, named
	// _...: numbers it derives from a log (see lua/prelude.lua).
	caches []string
}

// quantity is a number a script computes with, named as the refusal of a
// policy that takes it past MaxExact says it.
type quantity struct {
	what string
	v    *big.Int
}

// product is the quantity a × b × ..., named what.
func product(what string, vs ...int64) quantity {
	q := big.NewInt(1)
	for _, v := range vs {
		q.Mul(q, big.NewInt(v))
	}
	return quantity{what, q}
}

// sum is a + b + ... for quantities.
func sum(what string, qs ...quantity) quantity {
	q := new(big.Int)
	for _, x := range qs {
		q.Add(q, x.v)
	}
	return quantity{what, q}
}

var scripts = map[algorithms.Algorithm]*script{}

// noScript says, of an algorithm that cannot decide in Redis, why: its
// file here states it (none) in place of registering a script.
var noScript = map[algorithms.Algorithm]string{}

// register adds algorithm a's script, from its own file's init.
func register(a algorithms.Algorithm, s *script) {
	if _, dup := scripts[a]; dup || noScript[a] != "" {
		panic("redisstore: two scripts for " + string(a) + ", or a script and a reason for none")
	}
	if !algorithms.Describe(a).HasStateForm() {
		panic("redisstore: " + string(a) + " has a script but no state form")
	}
	prelude, err := luaFiles.ReadFile("lua/prelude.lua")
	if err != nil {
		panic(err)
	}
	src := string(prelude)
	for _, f := range append(s.libs, s.file) {
		body, err := luaFiles.ReadFile("lua/" + f)
		if err != nil {
			panic(err)
		}
		src += "\n" + string(body)
	}
	s.lua = redis.NewScript(src)
	scripts[a] = s
	d := algorithms.Describe(a)
	if s.forms == nil {
		if d.StateFor != nil {
			panic("redisstore: " + string(a) + "'s state form depends on the policy: its script must list its forms")
		}
		s.forms = []algorithms.StateForm{d.State}
	}
	for _, form := range s.forms {
		for _, f := range form.Fields {
			laneFields[f] = true
		}
		if form.Log != "" {
			laneLogs[form.Log] = true
		}
	}
	for _, f := range s.caches {
		laneFields[f] = true
	}
}

// none records, from algorithm a's own file's init, that its lanes cannot
// decide in Redis, and why ("its state is a library's object, which no
// script could keep"): Check then refuses them, saying so.
func none(a algorithms.Algorithm, why string) {
	if scripts[a] != nil || noScript[a] != "" || why == "" {
		panic("redisstore: " + string(a) + " has a script or a reason for none already, or an empty reason")
	}
	noScript[a] = why
}

// laneFields and laneLogs are the names of the fields and of the logs a
// lane's hash may hold, whatever its algorithm (a lane of the same name
// run before with another one left its own).
var laneFields, laneLogs = map[string]bool{}, map[string]bool{}

// laneField reports whether a lane's hash may hold a field named f: a
// state form's field, a script's cache, or a log's item (L:<seq>), head
// (L.head) or next (L.next), as lua/prelude.lua lays a log out. ClearLane
// deletes only hashes whose every field is one: anything else under the
// prefix is someone else's.
func laneField(f string) bool {
	if laneFields[f] {
		return true
	}
	if log, seq, ok := strings.Cut(f, ":"); ok && laneLogs[log] {
		_, err := strconv.ParseUint(seq, 10, 63)
		return err == nil
	}
	if log, end, ok := strings.Cut(f, "."); ok && laneLogs[log] {
		return end == "head" || end == "next"
	}
	return false
}

// Supports reports whether lanes of a can decide in Redis.
func Supports(a algorithms.Algorithm) bool { return scripts[a] != nil }

// Check reports why a lane of p, running until until (the scenario's end),
// cannot decide exactly in Redis: an algorithm without a script, or a
// number past 2^53.
func Check(p algorithms.Policy, until time.Duration) error {
	s := scripts[p.Algorithm]
	if s == nil {
		if why := noScript[p.Algorithm]; why != "" {
			return fmt.Errorf("%s has no Redis script (%s): it cannot run with --store", p.Algorithm, why)
		}
		return fmt.Errorf("%s has no Redis script: it cannot run with --store", p.Algorithm)
	}
	if keys := p.MaxKeys(); keys > 0 {
		// A script decides one key's hash; which key a full table frees
		// depends on every key's.
		return fmt.Errorf("%s keeps at most %d keys (its zone) and frees one for another, which a script deciding each key's hash alone cannot: run the lane without --store, or leave its zone out", p, keys)
	}
	// Times: the scenario's end, plus the longest wait a decision reports
	// and the furthest instant a state keeps (each at most a horizon, or
	// the longest delay, past the request).
	reach := p.Horizon()
	if d := p.MaxDelay(); d > 0 && d != algorithms.Never {
		reach = max(reach, d)
	}
	qs := append([]quantity{sum("the scenario's end plus twice how long the policy remembers (its horizon), in ns",
		product("", int64(until)), product("", 2, int64(reach)))}, s.bounds(p)...)
	for _, q := range qs {
		if q.v.Cmp(big.NewInt(MaxExact)) >= 0 {
			return fmt.Errorf("%s is %s, past 2^53 (%d), the largest whole number Lua computes exactly, so Redis cannot decide this lane exactly: make it smaller, or run the lane without --store",
				q.what, q.v, int64(MaxExact))
		}
	}
	return nil
}
