-- whole-token-bucket: the token bucket's mistake. capacity whole tokens,
-- refilled at n per `per` ns but only in whole tokens, the clock moved on
-- to every request: the fraction of a token earned since the last request
-- is dropped. args: capacity, n, per.
local capacity, n, per = arg(1), arg(2), arg(3)
local names = {'tokens', 'last'}
local f = load(names)
local tokens, last = capacity, now
if f then tokens, last = f[1], f[2] end
local eff = math.max(now, last)
local elapsed = eff - last
-- min(capacity, tokens + ⌊elapsed × n / per⌋): full once elapsed × n
-- covers the room (compared by quotient: no product past capacity × per).
if elapsed >= cdiv((capacity - tokens) * per, n) then
  tokens = capacity
else
  tokens = tokens + fdiv(elapsed * n, per)
end
local outcome, retry = ALLOWED, 0
if cost > capacity then
  outcome, retry = REJECTED, NEVER
elseif tokens >= cost then
  tokens = tokens - cost
else
  outcome, retry = REJECTED, cdiv((cost - tokens) * per, n) + eff - now
end
save(names, {tokens, eff})
return {outcome, 0, retry}
