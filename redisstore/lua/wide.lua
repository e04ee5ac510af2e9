-- wide.lua: numbers a double cannot carry as one whole number below 2^53,
-- for the float lanes' scripts (run after the prelude).
--
-- A double is kept as two whole numbers, parts(f): math.frexp's fraction
-- × 2^53 and its exponent − 53 (math.ldexp(m, e) gives it back exactly).
-- A Java long or a Go Duration past 2^53 is kept as a pair {s, u} =
-- s × 1e6 + u, 0 ≤ u < 1e6, and answered as a decimal string.
local E6 = 1000000

local function parts(f)
  if f == 0 then return 0, 0 end
  local m, e = math.frexp(f)
  return m * 9007199254740992, e - 53
end

-- pair is x as a pair, for a whole 0 ≤ x < 2^53.
local function pair(x)
  local s = fdiv(x, E6)
  return {s, x - s * E6}
end
-- bigpair is x as a pair, for a whole double 0 ≤ x < 2^63 (past 2^53 a
-- double holds only some whole numbers, but x is one): split at 2^32
-- first (exact: a power of two), then 2^32 = 4294 × 1e6 + 967296.
local function bigpair(x)
  local h = math.floor(x / 4294967296)
  local t = h * 967296 + (x - h * 4294967296)
  local q = fdiv(t, E6)
  return {h * 4294 + q, t - q * E6}
end
local function cmp(a, b)
  if a[1] ~= b[1] then return a[1] < b[1] and -1 or 1 end
  if a[2] ~= b[2] then return a[2] < b[2] and -1 or 1 end
  return 0
end
local function add(a, b)
  local u = a[2] + b[2]
  if u >= E6 then return {a[1] + b[1] + 1, u - E6} end
  return {a[1] + b[1], u}
end
local function sub(a, b) -- a ≥ b
  local u = a[2] - b[2]
  if u < 0 then return {a[1] - b[1] - 1, u + E6} end
  return {a[1] - b[1], u}
end
-- plain is a pair below 2^53 as a number.
local function plain(a) return a[1] * E6 + a[2] end
local P53 = {9007199254, 740992} -- 2^53
-- answer is a pair as a script answers it: a number below 2^53, past it a
-- decimal string (which the client reads as the same whole number).
local function answer(a)
  if cmp(a, P53) < 0 then return a[1] * E6 + a[2] end
  return int(a[1]) .. string.format('%06d', a[2])
end
