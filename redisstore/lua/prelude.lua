-- ratelab's prelude, run before every algorithm's script.
--
-- KEYS[1] is the one hash of a lane's key. ARGV: 1 now (ns from the
-- scenario's start), 2 cost, 3 the hash's garbage-collection TTL (ms of
-- real time), 4 1 when the caller wrote the hash before and expects it
-- here (else 0), then the policy's numbers (arg(1), arg(2), ...).
--
-- Lua numbers are doubles: every number here is a whole number below
-- 2^53, which a double holds exactly, and is written with %d (tostring
-- would write 1e+15). A script answers {outcome, delay, retry after}:
-- outcome 0 allowed, 1 delayed, 2 rejected; a retry after of -1 is never.
local key = KEYS[1]
local now = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
local ALLOWED, DELAYED, REJECTED, NEVER = 0, 1, 2, -1

local function arg(i) return tonumber(ARGV[4 + i]) end

-- A hash the caller expects that is gone (evicted under maxmemory, deleted
-- by another client) would be decided as a new key's, a verdict that
-- differs for no reason the caller could tell: the call is refused instead,
-- with an error the caller recognises (GONE) and explains.
if ARGV[4] == '1' and redis.call('EXISTS', key) == 0 then
  return redis.error_reply('GONE ' .. key .. ' is not there')
end

-- fdiv is floor(a / b) for b > 0: the double quotient, corrected by one
-- where it rounded across a whole number.
local function fdiv(a, b)
  local q = math.floor(a / b)
  local r = a - q * b
  if r < 0 then q = q - 1 elseif r >= b then q = q + 1 end
  return q
end

-- cdiv is ceil(a / b) for b > 0.
local function cdiv(a, b) return -fdiv(-a, b) end

local function int(x) return string.format('%d', x) end

-- load is the hash's fields named by names, as numbers (a field absent
-- is nil: a cache a plain write left out); nil when the key has no state
-- (its first field absent).
local function load(names)
  local v = redis.call('HMGET', key, unpack(names))
  if not v[1] then return nil end
  local fields = {}
  for i = 1, #names do fields[i] = tonumber(v[i]) end
  return fields
end

-- save writes the fields and sets the garbage-collection TTL.
local function save(names, values)
  local args = {}
  for i = 1, #names do
    args[#args + 1] = names[i]
    args[#args + 1] = int(values[i])
  end
  redis.call('HSET', key, unpack(args))
  redis.call('PEXPIRE', key, ttl)
end

-- A log (a list of items of a few numbers each, oldest first) is kept in
-- the same hash, one field per item: L:<seq> holds the item's numbers
-- joined by spaces, L.head the seq of the oldest item, L.next the seq the
-- next item pushed gets (head = next: empty). A script reads only the
-- items it walks, drops from the head and pushes at the tail, so a call
-- costs O(items walked + 1), whatever the log's length. Fields whose
-- names start with _ are a script's own caches of numbers derived from
-- the log (a plain write from Go leaves them out; a script finding one
-- absent recomputes it).
--
-- openlog(name) is the log L named name: L.head, L.next and the items
-- read so far. Nothing is written until logsave(L).
local function openlog(name)
  local v = redis.call('HMGET', key, name .. '.head', name .. '.next')
  local head, nxt = tonumber(v[1]) or 0, tonumber(v[2]) or 0
  return {name = name, head = head, next = nxt, stored = nxt, items = {},
    chunk = 4, drops = {}, sets = {}}
end

-- loglen is the number of items in L.
local function loglen(L) return L.next - L.head end

-- logitem is the numbers of L's item seq (head ≤ seq < next). Items not
-- yet read are fetched forward from seq in chunks that double (up to 512),
-- so a walk of k items takes O(log k) calls and reads fewer than 2k + 4.
local function logitem(L, seq)
  local it = L.items[seq]
  if it then return it end
  if seq < L.head or seq >= L.next then
    error('log ' .. L.name .. ' has no item ' .. int(seq) .. ' (head ' .. int(L.head) .. ', next ' .. int(L.next) .. ')')
  end
  local last = math.min(seq + L.chunk - 1, L.stored - 1)
  L.chunk = math.min(2 * L.chunk, 512)
  local names = {}
  for s = seq, last do names[#names + 1] = L.name .. ':' .. int(s) end
  local v = redis.call('HMGET', key, unpack(names))
  for i = 1, #names do
    local s = seq + i - 1
    if not L.items[s] then
      if not v[i] then error('hash ' .. key .. ' has no field ' .. names[i]) end
      local nums = {}
      for x in string.gmatch(v[i], '%S+') do
        local n = tonumber(x)
        if not n or n ~= math.floor(n) then error('hash ' .. key .. ': ' .. names[i] .. ' holds ' .. v[i] .. ', not whole numbers') end
        nums[#nums + 1] = n
      end
      L.items[s] = nums
    end
  end
  return L.items[seq]
end

-- logpush appends an item of the numbers given at L's tail.
local function logpush(L, ...)
  local seq = L.next
  L.items[seq] = {...}
  L.sets[#L.sets + 1] = seq
  L.next = seq + 1
end

-- logdrop drops L's oldest item (there is one).
local function logdrop(L)
  local seq = L.head
  L.items[seq] = nil
  if seq < L.stored then L.drops[#L.drops + 1] = L.name .. ':' .. int(seq) end
  L.head = seq + 1
end

-- logset replaces the numbers of L's item seq.
local function logset(L, seq, ...)
  L.items[seq] = {...}
  L.sets[#L.sets + 1] = seq
end

-- logsave writes L's changes: items dropped are deleted, items pushed or
-- set written, with its head and next and the fields of extra (names and
-- values, alternating: a script's caches), in calls of at most 1000
-- fields each.
local function logsave(L, extra)
  for i = 1, #L.drops, 1000 do
    redis.call('HDEL', key, unpack(L.drops, i, math.min(i + 999, #L.drops)))
  end
  local args = {L.name .. '.head', int(L.head), L.name .. '.next', int(L.next)}
  for _, x in ipairs(extra or {}) do args[#args + 1] = x end
  local function flush()
    redis.call('HSET', key, unpack(args))
    args = {}
  end
  for _, seq in ipairs(L.sets) do
    local it = L.items[seq]
    if it then -- not dropped since
      local parts = {}
      for j = 1, #it do parts[j] = int(it[j]) end
      args[#args + 1] = L.name .. ':' .. int(seq)
      args[#args + 1] = table.concat(parts, ' ')
      if #args >= 2000 then flush() end
    end
  end
  if #args > 0 then flush() end
end

-- logsum is the sum of the i-th numbers of L's items (a log's costs):
-- what a script's cache of it holds, found again after a plain write,
-- which writes no cache.
local function logsum(L, i)
  local sum = 0
  for s = L.head, L.next - 1 do sum = sum + logitem(L, s)[i] end
  return sum
end

-- freeing is the oldest item of L whose leaving, with the items before
-- it, frees need (the costs, each item's 2nd number, summed from the
-- oldest); nil if they all free less.
local function freeing(L, need)
  local freed = 0
  for s = L.head, L.next - 1 do
    local it = logitem(L, s)
    freed = freed + it[2]
    if freed >= need then return it end
  end
  return nil
end

-- roll moves a window's count and the one before it from last's window
-- (windows [k × window, (k + 1) × window) from t = 0) to eff's: in the
-- next window the count becomes the previous one; both are 0 once a whole
-- window has passed. It returns them and eff's window number.
local function roll(cur, prev, last, eff, window)
  local win, w = fdiv(last, window), fdiv(eff, window)
  if w == win + 1 then
    return 0, cur, w
  elseif w ~= win then
    return 0, 0, w
  end
  return cur, prev, w
end
