-- collapsing-log: a sliding log kept as a set whose member is the
-- admission's time in whole milliseconds, ms = ⌊now / 1ms⌋; a member
-- counts while ms × 1ms > now − window. Admitted iff the members' cost
-- still counting + cost ≤ limit; then member ms is added with the cost,
-- unless it is there already: the admission collapses into it. The hash
-- holds last, admitted, added (admissions, and those that added a member)
-- and members: "ms cost ms cost ...", oldest first, only what still counts
-- at last (and, for a window under 1ms, the member just added). args:
-- limit, window (ns).
local MS = 1000000
local limit, window = arg(1), arg(2)
local f, log = load({'last', 'admitted', 'added'}, 'members')
local last, admitted, added = now, 0, 0
if f then last, admitted, added = f[1], f[2], f[3] else log = {} end
local eff = math.max(now, last)
-- Keep the members still counting at eff: ms × 1ms > eff − window.
local cutoff = eff - window
local kept, recent = {}, 0
for i = 1, #log, 2 do
  if log[i] * MS > cutoff then
    kept[#kept + 1] = log[i]
    kept[#kept + 1] = log[i + 1]
    recent = recent + log[i + 1]
  end
end
local ms = fdiv(eff, MS)
local outcome, retry = ALLOWED, 0
if cost > limit then
  outcome, retry = REJECTED, NEVER
elseif recent + cost <= limit then
  admitted = admitted + 1
  local n = #kept
  if n == 0 or kept[n - 1] ~= ms then
    added = added + 1
    kept[n + 1] = ms
    kept[n + 2] = cost
  end
else
  -- The oldest members, in order, must free recent + cost − limit: the
  -- wait is until the one that completes it stops counting.
  outcome = REJECTED
  local need, freed = recent + cost - limit, 0
  for i = 1, #kept, 2 do
    freed = freed + kept[i + 1]
    if freed >= need then
      retry = window - (eff - kept[i] * MS) + eff - now
      break
    end
  end
end
save({'last', 'admitted', 'added'}, {eff, admitted, added}, 'members', kept)
return {outcome, 0, retry}
