-- attempt-log: a sliding log that logs every attempt, rejected ones too;
-- one at t counts while t > now − window. Admitted iff the cost of the
-- attempts still counting + cost ≤ limit; logged either way, but for a
-- cost past the limit, refused outright and not logged. The hash holds
-- last and the log "log" (see the prelude: log:<seq> = "at cost admitted",
-- oldest first (admitted 1 or 0), only what still counts at last).
-- args: limit, window (ns).
--
-- The attempts' cost has no bound (every retry adds to it), so the script
-- does not keep it. It caches instead _cut, the seq of the oldest item of
-- the longest tail of the log costing at most the limit, and _suf, that
-- tail's cost: _suf ≤ limit, and _cut is the head or the tail from
-- _cut − 1 costs more than the limit. So the attempts cost at most the
-- limit iff _cut is the head, and then they cost _suf — all a decision
-- asks. A push adds its cost to _suf and moves _cut up while _suf passes
-- the limit; an item dropped from the head at or after _cut takes its
-- cost off _suf. No sum passes twice the limit, and _cut only moves up:
-- O(1) amortised. A rejection's retry after walks from _cut, freeing at
-- most the cost.
local limit, window = arg(1), arg(2)
local f = load({'last', '_cut', '_suf'})
local last, cut, suf = now, nil, nil
if f then last, cut, suf = f[1], f[2], f[3] end
local eff = math.max(now, last)
local L = openlog('log')
if not cut or not suf then
  -- After a plain write: read the log once, and find the tail from the
  -- newest item back.
  for s = L.head, L.next - 1 do logitem(L, s) end
  cut, suf = L.next, 0
  while cut > L.head and suf + logitem(L, cut - 1)[2] <= limit do
    cut = cut - 1
    suf = suf + logitem(L, cut)[2]
  end
end
-- Drop the attempts no longer counting at eff: at ≤ eff − window.
local cutoff = eff - window
while L.head < L.next and logitem(L, L.head)[1] <= cutoff do
  if L.head >= cut then suf = suf - logitem(L, L.head)[2] end
  logdrop(L)
end
if cut < L.head then cut = L.head end
local outcome, retry = ALLOWED, 0
if cost > limit then
  outcome, retry = REJECTED, NEVER
else
  local fits = cut == L.head and suf + cost <= limit
  if fits then logpush(L, eff, cost, 1) else logpush(L, eff, cost, 0) end
  suf = suf + cost
  while suf > limit do
    suf = suf - logitem(L, cut)[2]
    cut = cut + 1
  end
  if not fits then
    -- The same request fits once the oldest attempts, this one included,
    -- have freed enough that the attempts after them cost at most
    -- limit − cost. The oldest attempt j for which they do (j ≥ _cut − 1,
    -- the tail from _cut costing at most the limit): the wait is until it
    -- stops counting.
    outcome = REJECTED
    local k, after = cut, suf
    while after > limit - cost do
      after = after - logitem(L, k)[2]
      k = k + 1
    end
    retry = window - (eff - logitem(L, k - 1)[1]) + eff - now
  end
end
save({'last'}, {eff})
logsave(L, {'_cut', int(cut), '_suf', int(suf)})
return {outcome, 0, retry}
