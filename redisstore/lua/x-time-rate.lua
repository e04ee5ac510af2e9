-- x-time-rate and x-time-rate-reserve: golang.org/x/time/rate's Limiter,
-- AllowN(t, c) or ReserveN(t, c) (with max_wait, the reserveN a WaitN with
-- a deadline makes), in the library's own float64 arithmetic, operation by
-- operation as rate.go does it, t = the key's latest time (a late request
-- is decided then, its waits counted from its arrival).
--
-- Doubles: Lua's + − × / and comparisons round as Go's float64 does (one
-- operation at a time, no fused multiply-add). The Limiter's tokens are
-- kept as tokens_mant × 2^tokens_exp (math.frexp's fraction × 2^53 and its
-- exponent − 53: whole numbers, the double exactly), with the Limiter's
-- last (when the tokens were last set) and latest (the latest time decided
-- at), in ns. args: burst, the rate's N and period in ns, max_wait in ns
-- (0 for none), 1 for the ReserveN lane.
--
-- Waits: the library's durationFromTokens may pass 2^53 ns (a deep debt),
-- up to InfDuration, 2^63 − 1; waits are kept as pairs {s, u} =
-- s × 1e6 + u (0 ≤ u < 1e6), exact to 2^63, and a reply past 2^53 is
-- written as a decimal string.
local burst, n, per, maxwait, reserve = arg(1), arg(2), arg(3), arg(4), arg(5) == 1

-- seconds is time.Duration(d).Seconds() for d ≥ 0:
-- float64(d / 1e9) + float64(d % 1e9) / 1e9.
local function seconds(d)
  local s = fdiv(d, 1e9)
  return s + (d - s * 1e9) / 1e9
end
-- limit is rate.Limit(float64(N) / Per.Seconds()), tokens per second.
local limit = n / seconds(per)

local ZERO = {0, 0}
local MAXINT = {9223372036854, 775807} -- 2^63 − 1: InfDuration, and where time.Sub saturates
-- sat is min(a, 2^63 − 1): timeToAct.Sub(arrival) saturating.
local function sat(a)
  if cmp(a, MAXINT) > 0 then return MAXINT end
  return a
end

-- durationFromTokens(short) for short > 0, as a pair: (short / limit) × 1e9
-- truncated, InfDuration past 2^63.
local function duration(short)
  local d = (short / limit) * 1e9
  -- Go caps only d > 2^63; d = 2^63 exactly (out of int64's range) is
  -- taken as the cap too.
  if d >= 9223372036854775808 then return MAXINT end
  return bigpair(math.floor(d))
end

local names = {'tokens_mant', 'tokens_exp', 'last', 'latest'}
local f = load(names)
-- A fresh key's Limiter is full, and stays full whatever its last.
local tokens, last, latest = burst, now, now
if f then tokens, last, latest = math.ldexp(f[1], f[2]), f[3], f[4] end
local eff = math.max(now, latest)
latest = eff

-- advance(t): tokens + elapsed.Seconds() × limit, capped at the burst.
local before = tokens + seconds(eff - last) * limit
if before > burst then before = burst end

local function finish(outcome, delay, retry)
  if outcome == REJECTED and before == burst then
    -- Full at latest, so full from then on: written as full at latest.
    tokens, last = burst, eff
  end
  local m, e = parts(tokens)
  save(names, {m, e, last, latest})
  return {outcome, delay, retry}
end

-- n > burst: no reservation is ok (AllowN false, ReserveN not OK).
if cost > burst then return finish(REJECTED, 0, NEVER) end

-- reserveN: tokens − n, and a wait for a shortfall.
local left = before - cost
local wait = ZERO
if left < 0 then wait = duration(-left) end
local late = pair(eff - now)

-- granted: the Limiter takes the tokens at t.
local function granted(outcome, delay)
  tokens, last = left, eff
  if outcome == nil then
    outcome = ALLOWED
    if cmp(delay, ZERO) > 0 then outcome = DELAYED end
  end
  return finish(outcome, answer(delay), 0)
end

-- retry is a refusal's retry after: the pair, −1 (never) at 2^63 − 1.
local function retry(a)
  if cmp(a, MAXINT) >= 0 then return NEVER end
  return answer(a)
end

if not reserve then
  -- AllowN: reserveN(t, n, 0), ok iff the wait truncates to 0ns.
  if cmp(wait, ZERO) == 0 then return granted(ALLOWED, ZERO) end
  -- Refused, nothing taken; a ReserveN on a copy says when.
  return finish(REJECTED, 0, retry(sat(add(wait, late))))
end
if maxwait > 0 and cmp(wait, pair(maxwait)) > 0 then
  -- Past max_wait: refused, nothing reserved; retry once it would fit.
  return finish(REJECTED, 0, retry(add(sub(wait, pair(maxwait)), late)))
end
return granted(nil, sat(add(wait, late)))
