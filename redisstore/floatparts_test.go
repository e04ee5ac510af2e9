package redisstore

import (
	"context"
	"fmt"
	"math"
	"testing"

	"ratelab/algorithms"
)

// floatProbe decodes each pair of doubles sent as mant, exp (see
// algorithms.FloatParts), writes and reads them back through a hash as the
// prelude's save and load do, and answers, each as mant, exp again (a
// string for one that is not finite): x itself, x + y, x − y, x × y, x / y,
// min, max, floor(x / y), ceil(x × y), x / 1e9, and x ≥ y as 1 or 0.
const floatProbe = `
local function parts(f)
  if f ~= f then return 'nan', 0 end
  if f == 1/0 then return 'inf', 0 end
  if f == -1/0 then return '-inf', 0 end
  if f == 0 then return 0, 0 end
  local m, e = math.frexp(f)
  return m * 9007199254740992, e - 53
end
local out = {}
local function put(f) local m, e = parts(f); out[#out + 1] = m; out[#out + 1] = e end
for i = 1, #ARGV, 4 do
  local x = math.ldexp(tonumber(ARGV[i]), tonumber(ARGV[i + 1]))
  local y = math.ldexp(tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3]))
  local m, e = parts(x)
  redis.call('HSET', KEYS[1], 'm', string.format('%d', m), 'e', string.format('%d', e))
  local v = redis.call('HMGET', KEYS[1], 'm', 'e')
  x = math.ldexp(tonumber(v[1]), tonumber(v[2]))
  put(x); put(x + y); put(x - y); put(x * y); put(x / y)
  put(math.min(x, y)); put(math.max(x, y)); put(math.floor(x / y)); put(math.ceil(x * y)); put(x / 1e9)
  if x >= y then out[#out + 1] = 1 else out[#out + 1] = 0 end
end
redis.call('DEL', KEYS[1])
return out
`

// goParts is what floatProbe answers for f.
func goParts(f float64) []string {
	switch {
	case math.IsNaN(f):
		return []string{"nan", "0"}
	case math.IsInf(f, 1):
		return []string{"inf", "0"}
	case math.IsInf(f, -1):
		return []string{"-inf", "0"}
	}
	m, e := algorithms.FloatParts(f)
	return []string{fmt.Sprint(m), fmt.Sprint(e)}
}

// TestFloatRoundTrip: doubles written as mantissa × 2^exponent (whole
// numbers) come back bit for bit from a Lua script, through a hash, and
// Lua's arithmetic on them rounds as Go's float64 does, on every server:
// a difference between miniredis (gopher-lua) and Redis (C Lua 5.1) fails
// here before it confuses a lane's conformance.
func TestFloatRoundTrip(t *testing.T) {
	values := []float64{0, 0.1, 1.0 / 3, 2.0 / 3, 1<<52 + 0.5, 1<<52 + 1.5, 1<<53 - 1, 1 << 53, 0.9999999999999998, 1.0000000000000002,
		math.SmallestNonzeroFloat64, 0x1p-1022, 0x1.fffffffffffffp-1023, 1e-300, 1e300, math.MaxFloat64,
		-2.5, 123456.789, 1e9 / 7, 1e6 / (3 / 0.7), 7, 3}
	var args []any
	var want []string
	for _, x := range values {
		for _, y := range values {
			for _, f := range []float64{x, y} {
				m, e := algorithms.FloatParts(f)
				args = append(args, m, e)
			}
			ge := "0"
			if x >= y {
				ge = "1"
			}
			for _, f := range []float64{x, x + y, x - y, x * y, x / y, luaMin(x, y), luaMax(x, y), math.Floor(x / y), math.Ceil(x * y), x / 1e9} {
				want = append(want, goParts(f)...)
			}
			want = append(want, ge)
		}
	}
	for _, srv := range servers(t) {
		t.Run(srv.name, func(t *testing.T) {
			st := open(t, srv)
			got, err := st.client.Eval(context.Background(), floatProbe, []string{"ratelab:test:floatprobe"}, args...).Slice()
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d numbers, want %d", len(got), len(want))
			}
			per := len(want) / (len(values) * len(values))
			for i := range got {
				if g := fmt.Sprint(got[i]); g != want[i] {
					pair := i / per
					t.Errorf("x = %g, y = %g: answer %d (of %d) is %s, Go's float64 %s", values[pair/len(values)], values[pair%len(values)], i%per, per, g, want[i])
				}
			}
		})
	}
}

// luaMin and luaMax are Lua 5.1's math.min and math.max of two numbers.
func luaMin(x, y float64) float64 {
	if y < x {
		return y
	}
	return x
}

func luaMax(x, y float64) float64 {
	if y > x {
		return y
	}
	return x
}
