-- gcra (and redis-rate, the same rule): emission interval T = per/n ns,
-- burst b. The TAT lives on the grid of 1/n ns: tat_ns + tat_frac/n, with
-- 0 <= tat_frac < n, so that T is exactly per units of it. A new key's TAT
-- is now. For a request of cost c decided at eff = max(now, last):
--   base     = max(TAT, eff)
--   allow at = base + c*T - b*T  (taken as base - (b - c)*T)
-- admitted iff eff >= allow at, then TAT = base + c*T; a rejection keeps
-- the TAT. args: burst, n, per.
local burst, n, per = arg(1), arg(2), arg(3)
local names = {'tat_ns', 'tat_frac', 'last'}
local f = load(names)
local tns, tfrac, last = now, 0, now
if f then tns, tfrac, last = f[1], f[2], f[3] end
local eff = math.max(now, last)

-- base = max(TAT, eff): eff is a whole ns, so TAT is later iff tat_ns >= eff.
if tns < eff then tns, tfrac = eff, 0 end

-- shift is (ns, frac) + d/n ns for a whole d >= 0 (or minus it, sign -1).
local function shift(ns, frac, d, sign)
  local q = fdiv(d, n)
  local r = d - q * n
  ns, frac = ns + sign * q, frac + sign * r
  if frac >= n then ns, frac = ns + 1, frac - n
  elseif frac < 0 then ns, frac = ns - 1, frac + n end
  return ns, frac
end

local outcome, retry = ALLOWED, 0
if cost > burst then
  outcome, retry = REJECTED, NEVER
else
  local ans, afrac = shift(tns, tfrac, (burst - cost) * per, -1)
  if eff > ans or (eff == ans and afrac == 0) then
    tns, tfrac = shift(tns, tfrac, cost * per, 1)
  else
    -- allow at - eff, rounded up to a whole ns, counted from now.
    local wait = ans - eff
    if afrac > 0 then wait = wait + 1 end
    outcome, retry = REJECTED, wait + eff - now
  end
end
-- Written: the TAT, never before eff (an earlier one decides as eff).
save(names, {tns, tfrac, eff})
return {outcome, 0, retry}
