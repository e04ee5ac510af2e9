-- resetting-window (a mistake): INCRBY then EXPIRE window on every
-- attempt, rejected ones too, so the key lives until a window passes with
-- no attempt. args: limit, window (ns). State: count, expires (when the key
-- is gone, ns), since (when it was made, ns), last (ns); a key that has
-- expired by last is written count 0, expires 0, since 0.
local limit, window = arg(1), arg(2)
local names = {'count', 'expires', 'since', 'last'}
local f = load(names)
local count, expires, since, last = 0, now, now, now
if f then count, expires, since, last = f[1], f[2], f[3], f[4] end
local eff = math.max(now, last)
local c = count
if eff >= expires then
  -- The key has expired (at exactly its expiry, ratelab's convention):
  -- the count starts again from 0.
  c, since = 0, eff
end
local outcome, retry = ALLOWED, 0
if cost > limit then
  -- Refused outright: nothing counted, the expiry left as it was.
  outcome, retry = REJECTED, NEVER
else
  if c + cost >= 2 ^ 53 then
    return redis.error_reply('resetting-window: count ' .. int(c) .. ' + cost ' .. int(cost) ..
      ' reaches 2^53, past the whole numbers Lua holds exactly')
  end
  count = c + cost
  expires = eff + window
  if count > limit then outcome, retry = REJECTED, window + eff - now end
end
if expires <= eff then count, expires, since = 0, 0, 0 end
save(names, {count, expires, since, eff})
return {outcome, 0, retry}
