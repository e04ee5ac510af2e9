-- guava, guava-try and guava-warmup: Guava's SmoothBursty RateLimiter,
-- acquire(c) or tryAcquire(c, timeout), and its SmoothWarmingUp, acquire(c),
-- in Guava's own arithmetic as algorithms/guava.go and guavawarmup.go
-- follow it: storedPermits a double, nextFreeTicketMicros a Java long of µs
-- on a stopwatch started at the key's first request.
--
-- Doubles: Lua's + − × / and comparisons round as Go's float64 does (one
-- operation at a time, no fused multiply-add). storedPermits is kept as
-- stored_mant × 2^stored_exp (math.frexp's fraction × 2^53 and its
-- exponent − 53: whole numbers, the double exactly); the policy's doubles
-- arrive so too. args: the largest cost (MaxCount, or 2^31 − 1 for the
-- warm-up), stableIntervalMicros (mant, exp), maxPermits (mant, exp), the
-- timeout in whole µs, 1 for tryAcquire; 1 for SmoothWarmingUp,
-- thresholdPermits (mant, exp), slope (mant, exp), and the µs an idle
-- limiter takes to store a permit, coolDownIntervalMicros (mant, exp:
-- stableIntervalMicros for SmoothBursty).
--
-- Longs: a large acquire pushes nextFree far past 2^53 µs (and Guava's
-- saturatedAdd stops it at 2^63 − 1), and the waits it causes pass 2^53 ns,
-- so those are kept as pairs {s, u} = s × 1e6 + u (0 ≤ u < 1e6): the hash's
-- next_free_s and next_free_us, and the reply's delay and retry after
-- written as decimal strings from the pair.
local maxcount, timeout, try = arg(1), arg(6), arg(7) == 1
local interval, maxpermits = math.ldexp(arg(2), arg(3)), math.ldexp(arg(4), arg(5))
local warm = arg(8) == 1
local threshold, slope = math.ldexp(arg(9), arg(10)), math.ldexp(arg(11), arg(12))
local cooldown = math.ldexp(arg(13), arg(14))
-- thousand is x × 1000 as a pair, for a whole 0 ≤ x < 2^53.
local function thousand(x)
  local q = fdiv(x, 1000)
  return {q, (x - q * 1000) * 1000}
end
local MAXLONG = {9223372036854, 775807}     -- 2^63 − 1
local P62 = {4611686018427, 387904}         -- 2^62 ns, beyond any time
local MAXWAIT = 4611686018427387            -- 2^62 ns / 1000, in µs

local names = {'start', 'last', 'next_free_s', 'next_free_us', 'stored_mant', 'stored_exp'}
local f = load(names)
local start, last, nf, stored = now, now, {0, 0}, 0
if warm then stored = maxpermits end -- SmoothWarmingUp starts cold
if f then start, last, nf, stored = f[1], f[2], {f[3], f[4]}, math.ldexp(f[5], f[6]) end
local eff = math.max(now, last)
last = eff

local function finish(outcome, delay, retry)
  local m, e = parts(stored)
  save(names, {start, last, nf[1], nf[2], m, e})
  return {outcome, delay, retry}
end

if cost > maxcount then return finish(REJECTED, 0, NEVER) end
local us = fdiv(eff - start, 1000) -- the stopwatch: whole µs since start

-- tryAcquire: refused, changing nothing, iff nextFree − timeout > now; it
-- may retry at nextFree − timeout on the stopwatch, in ns (capped at 2^62).
if try and cmp(nf, pair(us + timeout)) > 0 then
  local x = sub(nf, pair(timeout))
  local room = sub(P62, pair(start)) -- (2^62 − start) / 1000, truncated
  local at = P62
  if cmp(x, pair(room[1] * 1000 + fdiv(room[2], 1000))) < 0 then
    at = add(pair(start), thousand(plain(x)))
  end
  return finish(REJECTED, 0, answer(sub(at, pair(now))))
end

-- resync: idle time since nextFree becomes stored permits, one per
-- cooldown µs.
if cmp(nf, pair(us)) < 0 then
  stored = math.min(maxpermits, stored + (us - plain(nf)) / cooldown)
  nf = pair(us)
end

-- storedwait is storedPermitsToWaitTime: 0 for SmoothBursty; for
-- SmoothWarmingUp the area under the line from interval at the threshold
-- up to 3 × interval at maxpermits over the part above the threshold, cast
-- to a long, plus interval × the part below it, cast to a long (both whole
-- and below 1.5 × the warm-up period in µs: math.floor is the cast).
local function storedwait(st, take)
  if not warm then return 0 end
  local above = st - threshold
  local micros = 0
  if above > 0 then
    local t = math.min(above, take)
    local length = (interval + above * slope) + (interval + (above - t) * slope)
    micros = math.floor(t * length / 2.0)
    take = take - t
  end
  return micros + math.floor(interval * take)
end

-- reserve: it waits until the old nextFree; stored permits first (what
-- they cost, storedwait), the fresh rest pushes nextFree by (long)(fresh ×
-- interval), saturating. The warm-up lane's bounds keep the Java long sum
-- of the two below 2^63; the bursty lanes' stored permits cost nothing.
local free = nf
local spent = math.min(cost, stored)
local sw = storedwait(stored, spent)
local push = (cost - spent) * interval
if push >= 9223372036854775808 then -- 2^63: (long) saturates, and so does the sum
  nf = MAXLONG
else
  nf = add(add(nf, bigpair(math.floor(push))), pair(sw))
  if cmp(nf, MAXLONG) > 0 then nf = MAXLONG end
end
stored = stored - spent

local wait = 0
if cmp(free, pair(us)) > 0 then
  local w = sub(free, pair(us))
  if cmp(w, pair(MAXWAIT)) >= 0 then wait = MAXWAIT else wait = plain(w) end
end
local delay = add(thousand(wait), pair(eff - now))
local outcome = ALLOWED
if cmp(delay, {0, 0}) > 0 then outcome = DELAYED end
return finish(outcome, answer(delay), 0)
