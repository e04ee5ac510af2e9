-- sliding-log: every admission is logged with its time and cost; one at t
-- counts while t > now − window. Admitted iff the cost still counting +
-- cost ≤ limit, then logged; a rejection is not. The hash holds last and
-- the log "log" (see the prelude: log:<seq> = "at cost", oldest first,
-- only what still counts at last), and _sum, the script's cache of the
-- log's cost (at most the limit). A call expires from the head, decides
-- from _sum, walks from the head only for a rejection's retry after, and
-- pushes at the tail. args: limit, window (ns).
local limit, window = arg(1), arg(2)
local f = load({'last', '_sum'})
local last, recent = now, nil
if f then last, recent = f[1], f[2] end
local eff = math.max(now, last)
local L = openlog('log')
recent = recent or logsum(L, 2) -- after a plain write, once
-- Drop the items no longer counting at eff: at ≤ eff − window.
local cutoff = eff - window
while L.head < L.next and logitem(L, L.head)[1] <= cutoff do
  recent = recent - logitem(L, L.head)[2]
  logdrop(L)
end
local outcome, retry = ALLOWED, 0
if cost > limit then
  outcome, retry = REJECTED, NEVER
elseif recent + cost <= limit then
  logpush(L, eff, cost)
  recent = recent + cost
else
  -- The oldest admissions, in order, must free recent + cost − limit:
  -- the wait is until the one that completes it stops counting.
  outcome = REJECTED
  local it = freeing(L, recent + cost - limit)
  retry = window - (eff - it[1]) + eff - now
end
save({'last'}, {eff})
logsave(L, {'_sum', int(recent)})
return {outcome, 0, retry}
