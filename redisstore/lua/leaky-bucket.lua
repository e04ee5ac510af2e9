-- leaky-bucket: a shaper releasing one unit every I = per / n ns; a
-- request of cost c occupies the pipe for c × I from its release, and is
-- admitted iff it waits at most (queue − c + 1) × I. Instants lie on the
-- grid of 1/n ns: an instant is (ns, frac), ns + frac/n, 0 ≤ frac < n.
-- The hash keeps when the pipe is next free, the last request's time and
-- the log "queue" of requests still waiting (see the prelude:
-- queue:<seq> = "arrived released_at cost", in release order): a call
-- drops the released ones from the head and pushes at the tail.
-- args: queue, n, per.
local size, n, per = arg(1), arg(2), arg(3)
local names = {'next_ns', 'next_frac', 'last'}
local f = load(names)
local next_ns, next_frac, last = now, 0, now
if f then next_ns, next_frac, last = f[1], f[2], f[3] end
local eff = math.max(now, last)

-- The requests released by eff leave the queue.
local Q = openlog('queue')
while Q.head < Q.next and logitem(Q, Q.head)[2] <= eff do logdrop(Q) end

-- add is the instant (ns, frac) + d/n ns, for d ≥ 0.
local function add(ns, frac, d)
  local q = fdiv(d, n)
  ns, frac = ns + q, frac + (d - q * n)
  if frac >= n then ns, frac = ns + 1, frac - n end
  return ns, frac
end

local outcome, delay, retry = ALLOWED, 0, 0
if cost > size + 1 then
  outcome, retry = REJECTED, NEVER
else
  -- free = max(next free, eff)
  local free_ns, free_frac = next_ns, next_frac
  if next_ns < eff then free_ns, free_frac = eff, 0 end
  -- delay + (c − 1) × I ≤ queue × I ⟺ free ≤ eff + (queue − c + 1) × I
  local limit_ns, limit_frac = add(eff, 0, (size - cost + 1) * per)
  if limit_ns < free_ns or (limit_ns == free_ns and limit_frac < free_frac) then
    -- retry after ⌈free − limit⌉, counted from now
    local d_ns, d_frac = free_ns - limit_ns, free_frac - limit_frac
    if d_frac < 0 then d_ns, d_frac = d_ns - 1, d_frac + n end
    if d_frac > 0 then d_ns = d_ns + 1 end
    outcome, retry = REJECTED, d_ns + eff - now
  else
    next_ns, next_frac = add(free_ns, free_frac, cost * per)
    local release = free_ns
    if free_frac > 0 then release = release + 1 end
    delay = release - now
    if delay > 0 then outcome = DELAYED end
    if release > eff then
      logpush(Q, now, release, cost)
    end
  end
end
save(names, {next_ns, next_frac, eff})
logsave(Q)
return {outcome, delay, retry}
