-- token-bucket: capacity tokens refilled continuously at n per `per` ns.
-- The balance is kept × per (tokens × ns), so a refill of elapsed ns adds
-- exactly elapsed × n. args: capacity, n, per, the balance a new key
-- starts with (capacity × per, or 0 when it starts empty).
local capacity, n, per, initial = arg(1), arg(2), arg(3), arg(4)
local full = capacity * per
local f = load({'balance', 'last'})
local balance, last = initial, now
if f then balance, last = f[1], f[2] end
local eff = math.max(now, last)
local elapsed = eff - last
-- min(full, balance + elapsed × n), without a product past full + n.
if elapsed >= cdiv(full - balance, n) then balance = full else balance = balance + elapsed * n end
local outcome, retry = ALLOWED, 0
if cost > capacity then
  outcome, retry = REJECTED, NEVER
elseif balance >= cost * per then
  balance = balance - cost * per
else
  outcome, retry = REJECTED, cdiv(cost * per - balance, n) + eff - now
end
save({'balance', 'last'}, {balance, eff})
return {outcome, 0, retry}
