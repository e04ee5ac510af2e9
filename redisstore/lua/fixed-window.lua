-- fixed-window: windows [k × window, (k + 1) × window) aligned to t = 0,
-- each counting the cost admitted in it. args: limit, window (ns).
-- State: count (admitted in the window holding last), prev (in the one
-- before it: not deciding, the picture shows it), last (ns).
local limit, window = arg(1), arg(2)
local names = {'count', 'prev', 'last'}
local f = load(names)
local cur, prev, last = 0, 0, now
if f then cur, prev, last = f[1], f[2], f[3] end
local eff = math.max(now, last)
local w
cur, prev, w = roll(cur, prev, last, eff, window)
local start = w * window
local outcome, retry = ALLOWED, 0
if cost > limit then
  outcome, retry = REJECTED, NEVER
elseif cur + cost <= limit then
  cur = cur + cost
else
  -- Until the next window starts, counted from now.
  outcome, retry = REJECTED, (window - (eff - start)) + eff - now
end
save(names, {cur, prev, eff})
return {outcome, 0, retry}
