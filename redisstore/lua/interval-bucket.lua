-- interval-bucket: capacity whole tokens, per_fill added at once at each
-- first + k × interval (k ≥ 1; first is the key's first request), capped
-- at capacity. args: capacity, per_fill, interval, the tokens a new key
-- starts with (capacity, or 0 when it starts empty).
local capacity, per_fill, interval, initial = arg(1), arg(2), arg(3), arg(4)
local names = {'tokens', 'first', 'last'}
local f = load(names)
local tokens, first, last = initial, now, now
if f then tokens, first, last = f[1], f[2], f[3] end
local eff = math.max(now, last)
-- The fills up to eff (k) and those the last request counted (done).
local k = fdiv(eff - first, interval)
local done = fdiv(last - first, interval)
local room = capacity - tokens
if k > done and room > 0 then
  if k - done >= cdiv(room, per_fill) then tokens = capacity else tokens = tokens + (k - done) * per_fill end
end
local outcome, retry = ALLOWED, 0
if cost > capacity then
  outcome, retry = REJECTED, NEVER
elseif tokens >= cost then
  tokens = tokens - cost
else
  -- The m-th fill after the k-th covers it.
  local m = cdiv(cost - tokens, per_fill)
  outcome, retry = REJECTED, first + (k + m) * interval - now
end
save(names, {tokens, first, eff})
return {outcome, 0, retry}
