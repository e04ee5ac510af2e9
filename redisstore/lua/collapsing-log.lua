-- collapsing-log: a sliding log kept as a set whose member is the
-- admission's time in whole milliseconds, ms = ⌊now / 1ms⌋; a member
-- counts while ms × 1ms > now − window. Admitted iff the members' cost
-- still counting + cost ≤ limit; then member ms is added with the cost,
-- unless it is there already: the admission collapses into it. The hash
-- holds last, admitted, added (admissions, and those that added a member)
-- and the log "members" (see the prelude: members:<seq> = "ms cost",
-- oldest first, only what still counts at last (and, for a window under
-- 1ms, the member just added)), and _sum, the script's cache of the
-- members' cost (at most the limit). args: limit, window (ns).
local MS = 1000000
local limit, window = arg(1), arg(2)
local names = {'last', 'admitted', 'added'}
local f = load({'last', 'admitted', 'added', '_sum'})
local last, admitted, added, recent = now, 0, 0, nil
if f then last, admitted, added, recent = f[1], f[2], f[3], f[4] end
local eff = math.max(now, last)
local L = openlog('members')
recent = recent or logsum(L, 2) -- after a plain write, once
-- Drop the members no longer counting at eff: ms × 1ms ≤ eff − window.
local cutoff = eff - window
while L.head < L.next and logitem(L, L.head)[1] * MS <= cutoff do
  recent = recent - logitem(L, L.head)[2]
  logdrop(L)
end
local ms = fdiv(eff, MS)
local outcome, retry = ALLOWED, 0
if cost > limit then
  outcome, retry = REJECTED, NEVER
elseif recent + cost <= limit then
  admitted = admitted + 1
  if L.head == L.next or logitem(L, L.next - 1)[1] ~= ms then
    added = added + 1
    logpush(L, ms, cost)
    recent = recent + cost
  end
else
  -- The oldest members, in order, must free recent + cost − limit: the
  -- wait is until the one that completes it stops counting.
  outcome = REJECTED
  local it = freeing(L, recent + cost - limit)
  retry = window - (eff - it[1] * MS) + eff - now
end
save(names, {eff, admitted, added})
logsave(L, {'_sum', int(recent)})
return {outcome, 0, retry}
