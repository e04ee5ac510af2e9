-- envoy-local: Envoy's local rate limit. A bucket of max_tokens, starting
-- full, refilled by tokens_per_fill each fill_interval, counted from t = 0
-- for every key. args: max_tokens, tokens_per_fill, fill_interval, timer.
--
-- timer 1 (Envoy before 1.31): a fill timer adds tokens_per_fill whole
-- tokens at once at each k × fill_interval. timer 0 (Envoy 1.31 on): the
-- refill is continuous, which is the same rule on a timer of 1 ns counting
-- in tokens × fill_interval: tokens_per_fill of those every ns, a request
-- of cost c spending c × fill_interval of them (the token bucket's
-- balance, exact).
local capacity, per_fill, fill_interval, timer = arg(1), arg(2), arg(3), arg(4)
local interval, unit, names = fill_interval, 1, {'tokens', 'last'}
if timer == 0 then interval, unit, names = 1, fill_interval, {'balance', 'last'} end
local full = capacity * unit
local f = load(names)
local tokens, last = full, now
if f then tokens, last = f[1], f[2] end
local eff = math.max(now, last)
-- The ticks up to eff (k) and those the last request counted (done).
local k = fdiv(eff, interval)
local done = fdiv(last, interval)
local room = full - tokens
if k > done and room > 0 then
  if k - done >= cdiv(room, per_fill) then tokens = full else tokens = tokens + (k - done) * per_fill end
end
local outcome, retry = ALLOWED, 0
if cost > capacity then
  outcome, retry = REJECTED, NEVER
elseif tokens >= cost * unit then
  tokens = tokens - cost * unit
else
  -- The m-th tick after the k-th covers it.
  local m = cdiv(cost * unit - tokens, per_fill)
  outcome, retry = REJECTED, (k + m) * interval - now
end
save(names, {tokens, eff})
return {outcome, 0, retry}
