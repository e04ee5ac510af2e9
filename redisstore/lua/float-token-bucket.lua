-- float-token-bucket: the lesson's admit() in float64, a Mistake lane
-- whose point is the rounding. Lua's numbers are doubles and its + − × /
-- and comparisons round as Go's float64 does (the VM runs one operation at
-- a time: no fused multiply-add), so the same operations in the same order
-- give the same bits. The float balance is kept as tokens_mant ×
-- 2^tokens_exp (math.frexp's fraction × 2^53 and its exponent − 53: whole
-- numbers, the double exactly). args: capacity, n, per.
--
-- Beside it, the exact balance after the same admissions (× per, whole,
-- as token-bucket.lua's), which the why text compares the float one with;
-- it may fall to −capacity × per / 2 when float64 admitted more.
local capacity, n, per = arg(1), arg(2), arg(3)
local full = capacity * per
local rate = n / (per / 1e9) -- tokens per second, as Go's floatRate

local names = {'tokens_mant', 'tokens_exp', 'last', 'exact'}
local f = load(names)
local tokens, last, exact = capacity, now, full
if f then tokens, last, exact = math.ldexp(f[1], f[2]), f[3], f[4] end
local updated = last / 1e9 -- float seconds of the last request

-- available is the float refill at t ≥ last.
local function available(t)
  local ts = math.max(t / 1e9, updated)
  return math.min(capacity, tokens + (ts - updated) * rate)
end

local eff = math.max(now, last)
local avail = available(eff)
-- The exact refill: min(full, exact + elapsed × n), no product past full.
local elapsed = eff - last
if elapsed >= cdiv(full - exact, n) then exact = full else exact = exact + elapsed * n end
tokens, last, updated = avail, eff, math.max(eff / 1e9, updated)

local outcome, retry = ALLOWED, 0
if cost > capacity then
  outcome, retry = REJECTED, NEVER
elseif avail >= cost then
  tokens = avail - cost
  exact = math.max(exact - cost * per, -fdiv(full, 2))
else
  -- The shortest wait w ≥ 1ns after eff at which this float refill covers
  -- the cost: a guess, doubled past, then bisected, as Go's retry. Every
  -- time it tries stays a whole number below 2^53 (Check bounds the end
  -- plus twice the time to fill; the guess is within rounding of it).
  outcome = REJECTED
  local far = 4611686018427387904 -- 2^62
  local function fits(w)
    if eff + w >= 9007199254740992 then
      error('float-token-bucket: a retry search past 2^53 ns')
    end
    return available(eff + w) >= cost
  end
  local guess = (cost - tokens) / rate * 1e9
  local hi = far
  if guess < far then hi = math.max(1, math.ceil(guess)) end
  local lo = 0
  while not fits(hi) and hi < far do lo, hi = hi, math.min(far, 2 * hi) end
  while hi - lo > 1 do
    local mid = lo + fdiv(hi - lo, 2)
    if fits(mid) then hi = mid else lo = mid end
  end
  retry = hi + eff - now
end
local m, e = parts(tokens)
save(names, {m, e, last, exact})
return {outcome, 0, retry}
