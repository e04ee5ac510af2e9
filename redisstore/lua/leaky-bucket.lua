-- leaky-bucket: a shaper releasing one unit every I = per / n ns; a
-- request of cost c occupies the pipe for c × I from its release, and is
-- admitted iff it waits at most (queue − c + 1) × I. Instants lie on the
-- grid of 1/n ns: an instant is (ns, frac), ns + frac/n, 0 ≤ frac < n.
-- The hash keeps when the pipe is next free, the last request's time and
-- the queue of requests still waiting: arrived, released at, cost (three
-- numbers each, in release order). args: queue, n, per.
local size, n, per = arg(1), arg(2), arg(3)
local names = {'next_ns', 'next_frac', 'last'}
local f, log = load(names, 'queue')
local next_ns, next_frac, last = now, 0, now
if f then next_ns, next_frac, last = f[1], f[2], f[3] else log = {} end
local eff = math.max(now, last)

-- The requests released by eff leave the queue.
local first = 1
while first <= #log and log[first + 1] <= eff do first = first + 3 end
local queue = {}
for i = first, #log do queue[#queue + 1] = log[i] end

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
      queue[#queue + 1], queue[#queue + 2], queue[#queue + 3] = now, release, cost
    end
  end
end
save(names, {next_ns, next_frac, eff}, 'queue', queue)
return {outcome, delay, retry}
