-- resilience4j (AtomicRateLimiter): cycles of limit_refresh_period from
-- the limiter's creation (the key's first request); each new cycle adds
-- limit_for_period per cycle passed, up to limit_for_period; a request
-- that finds too few permissions waits for the start of the cycle that
-- pays them, reserving them (permissions go negative), iff that wait is
-- at most timeout_duration; otherwise it is refused and reserves nothing.
-- args: limit_for_period, limit_refresh_period (ns), timeout_duration
-- (ns). State: start (ns), cycle, permissions, last (ns).
local l, per, timeout = arg(1), arg(2), arg(3)
local names = {'start', 'cycle', 'permissions', 'last'}
local f = load(names)
local start, cycle, perms, last = now, 0, l, now
if f then start, cycle, perms, last = f[1], f[2], f[3], f[4] end
local eff = math.max(now, last)
local elapsed = eff - start
-- calculateNextState's refresh.
local c = fdiv(elapsed, per)
local p = perms
if c ~= cycle then p = math.min(p + (c - cycle) * l, l) end
local outcome, delay, retry = ALLOWED, 0, 0
if cost > l then
  -- Refused outright: more than a cycle holds; nothing stored but last.
  outcome, retry = REJECTED, NEVER
else
  cycle, perms = c, p
  -- nanosToWaitForPermission: until the cycle that pays the permissions.
  local wait = 0
  if p < cost then
    local full = math.max(0, cdiv(cost - p - l, l))
    wait = full * per + (c + 1) * per - elapsed
  end
  if wait > timeout then
    outcome, retry = REJECTED, wait - timeout + eff - now
  else
    perms = p - cost
    if wait > 0 then outcome, delay = DELAYED, wait + eff - now end
  end
end
save(names, {start, cycle, perms, eff})
return {outcome, delay, retry}
