-- sliding-log: every admission is logged with its time and cost; one at t
-- counts while t > now − window. Admitted iff the cost still counting +
-- cost ≤ limit, then logged; a rejection is not. The hash holds last and
-- log: "at cost at cost ...", oldest first, only what still counts at
-- last. args: limit, window (ns).
local limit, window = arg(1), arg(2)
local f, log = load({'last'}, 'log')
local last = now
if f then last = f[1] else log = {} end
local eff = math.max(now, last)
-- Keep the items still counting at eff: at > eff − window.
local cutoff = eff - window
local kept, recent = {}, 0
for i = 1, #log, 2 do
  if log[i] > cutoff then
    kept[#kept + 1] = log[i]
    kept[#kept + 1] = log[i + 1]
    recent = recent + log[i + 1]
  end
end
local outcome, retry = ALLOWED, 0
if cost > limit then
  outcome, retry = REJECTED, NEVER
elseif recent + cost <= limit then
  kept[#kept + 1] = eff
  kept[#kept + 1] = cost
else
  -- The oldest admissions, in order, must free recent + cost − limit:
  -- the wait is until the one that completes it stops counting.
  outcome = REJECTED
  local need, freed = recent + cost - limit, 0
  for i = 1, #kept, 2 do
    freed = freed + kept[i + 1]
    if freed >= need then
      retry = window - (eff - kept[i]) + eff - now
      break
    end
  end
end
save({'last'}, {eff}, 'log', kept)
return {outcome, 0, retry}
