-- sliding-counter: aligned windows whose previous count still weighs by
-- the part of a window not yet elapsed, compared exactly (cross-multiplied,
-- no fraction). args: limit, window (ns), n sub-windows, s = window / n (ns).
--
-- n = 1, the two-window counter: state count (admitted in the window
-- holding last), prev (in the window before it), last (ns). Admitted iff
--   count + cost ≤ limit and prev × (window − e) ≤ (limit − count − cost) × window
-- with e = eff − the window's start.
--
-- n > 1: state last (ns) and the log counts, the admitted cost of the n + 1
-- sub-windows up to the one holding last, oldest first (none until the
-- key's first admission), one field per count (see the prelude). With
-- inner the n most recent and oldest the one before them, admitted iff
--   inner + cost ≤ limit and oldest × (s − e) ≤ (limit − inner − cost) × s
-- with e = eff − the sub-window's start.
--
-- Every product is at most limit × s (s = window for n = 1), which the
-- policy's bounds keep below 2^53.
local limit, window, n, s = arg(1), arg(2), arg(3), arg(4)
local outcome, retry = ALLOWED, 0

if n == 1 then
  local names = {'count', 'prev', 'last'}
  local f = load(names)
  local cur, prev, last = 0, 0, now
  if f then cur, prev, last = f[1], f[2], f[3] end
  local eff = math.max(now, last)
  local w
  cur, prev, w = roll(cur, prev, last, eff, window)
  local e = eff - w * window

  local function fits(c, p, el, k)
    return c + k <= limit and p * (window - el) <= (limit - c - k) * window
  end

  -- wait: the least x > 0 at which cost fits at elapsed e + x, the counts
  -- rolling over at the window's end and nothing else admitted.
  local function wait()
    if cur + cost <= limit then
      -- This window: prev × (window − e − x) ≤ (limit − cur − cost) × window;
      -- the request does not fit now, so excess > 0 and prev > 0.
      local excess = prev * (window - e) - (limit - cur - cost) * window
      local x = cdiv(excess, prev)
      if x < window - e then return x end
    end
    -- Next window, elapsed e2 = e + x − window, counts (0, cur):
    -- cur × e2 ≥ (cost + cur − limit) × window.
    local excess = (cost + cur - limit) * window
    if excess <= 0 then return window - e end
    local e2 = cdiv(excess, cur)
    if e2 < window then return window - e + e2 end
    -- The window after: both counts are zero.
    return 2 * window - e
  end

  if cost > limit then
    outcome, retry = REJECTED, NEVER
  elseif fits(cur, prev, e, cost) then
    cur = cur + cost
  else
    outcome, retry = REJECTED, wait() + eff - now
  end
  save(names, {cur, prev, eff})
  return {outcome, 0, retry}
end

local names = {'last'}
local f = load({'last', '_inner'})
local last, inner = now, nil
if f then last, inner = f[1], f[2] end
-- The counts are the log "counts" (see the prelude: counts:<seq> = a
-- count), oldest (age n) first, the current one (age 0) at the tail; an
-- empty log is all zero. _inner is the script's cache of the n most
-- recent counts' sum (at most the limit). A call reads the counts it rolls
-- out of the n most recent, the oldest and the current one, and for a
-- rejection's retry after walks from the oldest on.
local C = openlog('counts')
local held = loglen(C) > 0
if held and loglen(C) ~= n + 1 then
  error('hash ' .. key .. ': ' .. int(loglen(C)) .. ' counts, not ' .. int(n + 1))
end
local function count(age)
  if not held then return 0 end
  return logitem(C, C.next - 1 - age)[1]
end
if not inner then
  -- After a plain write: sum them once.
  inner = 0
  if held then
    C.chunk = 512
    for q = C.head + 1, C.next - 1 do inner = inner + logitem(C, q)[1] end
  end
end
local win = fdiv(last, s)
local eff = math.max(now, last)
local w = fdiv(eff, s)
-- Roll to eff's sub-window: each one entered starts at 0. Rolled by k,
-- the n most recent lose the k oldest of them (ages n − 1 to n − k).
if held and w ~= win then
  local k = math.min(w - win, n + 1)
  for q = C.head + 1, C.head + math.min(k, n) do inner = inner - logitem(C, q)[1] end
  for _ = 1, k do
    logdrop(C)
    logpush(C, 0)
  end
end
local e = eff - w * s
local oldest = count(n)

-- wait: the least x > 0 at which cost fits at elapsed e + x, nothing else
-- admitted, sub-window by sub-window: j sub-windows later the n most recent
-- are those of ages 0 to n − 1 − j now and the oldest is the one of age
-- n − j; at j = n + 1 every count has left.
local function wait()
  local in_ = inner
  for j = 0, n do
    if j > 0 then in_ = in_ - count(n - j) end
    if in_ + cost <= limit then
      -- oldest × (s − e') ≤ room × s ⟺ e' ≥ s − ⌊room × s / oldest⌋.
      local room, old = limit - in_ - cost, count(n - j)
      local from = 0
      if old > 0 then from = math.max(s - fdiv(room * s, old), 0) end
      if from < s then
        if j == 0 then return from - e end
        return j * s - e + from
      end
    end
  end
  return (n + 1) * s - e
end

if cost > limit then
  outcome, retry = REJECTED, NEVER
elseif inner + cost <= limit and oldest * (s - e) <= (limit - inner - cost) * s then
  if held then
    logset(C, C.next - 1, count(0) + cost)
  else
    for _ = 1, n do logpush(C, 0) end
    logpush(C, cost)
  end
  inner = inner + cost
else
  outcome, retry = REJECTED, wait() + eff - now
end
save(names, {eff})
logsave(C, {'_inner', int(inner)})
return {outcome, 0, retry}
