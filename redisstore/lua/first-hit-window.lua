-- first-hit-window (express-rate-limit's MemoryStore; Redis INCRBY then
-- EXPIRE window NX): a key's window starts at its first request and ends
-- a window later, not moved by later requests; every request counts, a
-- refused one too. args: limit, window (ns). State: count, resets (when
-- the window ends, ns), last (ns); a key whose window has ended by last
-- is written count 0, resets 0.
local limit, window = arg(1), arg(2)
local names = {'count', 'resets', 'last'}
local f = load(names)
local count, resets, last = 0, now, now
if f then count, resets, last = f[1], f[2], f[3] end
local eff = math.max(now, last)
local c, r = count, resets
if eff >= resets then
  -- The window has ended (resetTime <= now): a new one starts now.
  c, r = 0, eff + window
end
local outcome, retry = ALLOWED, 0
if cost > limit then
  -- Refused outright: nothing counted, no window started.
  outcome, retry = REJECTED, NEVER
else
  if c + cost >= 2 ^ 53 then
    return redis.error_reply('first-hit-window: count ' .. int(c) .. ' + cost ' .. int(cost) ..
      ' reaches 2^53, past the whole numbers Lua holds exactly')
  end
  count, resets = c + cost, r
  if count > limit then outcome, retry = REJECTED, resets - now end
end
if resets <= eff then count, resets = 0, 0 end
save(names, {count, resets, eff})
return {outcome, 0, retry}
