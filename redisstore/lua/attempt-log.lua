-- attempt-log: a sliding log that logs every attempt, rejected ones too;
-- one at t counts while t > now − window. Admitted iff the cost of the
-- attempts still counting + cost ≤ limit; logged either way, but for a
-- cost past the limit, refused outright and not logged. The hash holds
-- last and log: "at cost admitted ...", oldest first (admitted 1 or 0),
-- only what still counts at last. args: limit, window (ns).
--
-- The attempts' cost has no bound (every retry adds to it): no sum here
-- goes past twice the limit. The sum of what still counts stops growing
-- once past the limit, all that is asked of it then being that it is; the
-- retry after is found from the newest attempt back.
local limit, window = arg(1), arg(2)
local f, log = load({'last'}, 'log')
local last = now
if f then last = f[1] else log = {} end
local eff = math.max(now, last)
-- Keep the attempts still counting at eff: at > eff − window.
local cutoff = eff - window
local kept, tried = {}, 0 -- tried: their cost, or past the limit
for i = 1, #log, 3 do
  if log[i] > cutoff then
    kept[#kept + 1] = log[i]
    kept[#kept + 1] = log[i + 1]
    kept[#kept + 1] = log[i + 2]
    if tried <= limit then tried = tried + log[i + 1] end
  end
end
local function push(admitted)
  local n = #kept
  kept[n + 1], kept[n + 2], kept[n + 3] = eff, cost, admitted
end
local outcome, retry = ALLOWED, 0
if cost > limit then
  outcome, retry = REJECTED, NEVER
elseif tried + cost <= limit then
  push(1)
else
  outcome = REJECTED
  push(0)
  -- The same request fits once the oldest attempts, this one included,
  -- have freed (tried + cost) + cost − limit: once the attempts after
  -- them cost at most limit − cost. The oldest attempt j for which they
  -- do: the wait is until it stops counting.
  local j, after = #kept - 2, 0 -- after: the cost of the attempts after j
  while j > 1 and after + kept[j + 1] <= limit - cost do
    after = after + kept[j + 1]
    j = j - 3
  end
  retry = window - (eff - kept[j]) + eff - now
end
save({'last'}, {eff}, 'log', kept)
return {outcome, 0, retry}
