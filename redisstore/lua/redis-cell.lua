-- redis-cell's CL.THROTTLE key max_burst count_per_period period, a GCRA
-- in whole nanoseconds: T = floor(period / count_per_period) ns (redis-cell
-- truncates it), DVT = T * (max_burst + 1), so max_burst N admits N + 1 at
-- once. A new key's tat is now. For a request of quantity c decided at
-- eff = max(now, last):
--   base     = max(tat, eff)
--   allow_at = base + c*T - DVT  (taken as base - (max_burst + 1 - c)*T)
-- admitted iff eff >= allow_at, then tat = allow_at + DVT; a rejection
-- keeps tat. A quantity above max_burst + 1 never fits.
-- args: max_burst, count_per_period, period in ns.
local max_burst, count, period = arg(1), arg(2), arg(3)
local t = fdiv(period, count)
local limit = max_burst + 1
local names = {'tat', 'last'}
local f = load(names)
local tat, last = now, now
if f then tat, last = f[1], f[2] end
local eff = math.max(now, last)
local base = math.max(tat, eff)
local outcome, retry = ALLOWED, 0
if cost > limit then
  outcome, retry = REJECTED, NEVER
else
  local allow_at = base - (limit - cost) * t
  if eff >= allow_at then
    tat = allow_at + limit * t
  else
    outcome, retry = REJECTED, allow_at - now
  end
end
-- Written: tat, never before eff (an earlier one decides as eff).
save(names, {math.max(tat, eff), eff})
return {outcome, 0, retry}
