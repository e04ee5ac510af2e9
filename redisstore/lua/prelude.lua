-- ratelab's prelude, run before every algorithm's script.
--
-- KEYS[1] is the one hash of a lane's key. ARGV: 1 now (ns from the
-- scenario's start), 2 cost, 3 the hash's garbage-collection TTL (ms of
-- real time), then the policy's numbers (arg(1), arg(2), ...).
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

local function arg(i) return tonumber(ARGV[3 + i]) end

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

-- load is the hash's fields named by names, as numbers, and its log (a
-- list of numbers) if logname is given; nil when the key has no state.
local function load(names, logname)
  local ask = {unpack(names)}
  if logname then ask[#ask + 1] = logname end
  local v = redis.call('HMGET', key, unpack(ask))
  if not v[1] then return nil end
  local fields = {}
  for i = 1, #names do fields[i] = tonumber(v[i]) end
  local log = {}
  if logname and v[#names + 1] then
    for n in string.gmatch(v[#names + 1], '%-?%d+') do log[#log + 1] = tonumber(n) end
  end
  return fields, log
end

-- save writes the fields (and the log, numbers joined by spaces) and sets
-- the garbage-collection TTL.
local function save(names, values, logname, log)
  local args = {}
  for i = 1, #names do
    args[#args + 1] = names[i]
    args[#args + 1] = int(values[i])
  end
  if logname then
    local parts = {}
    for i = 1, #log do parts[i] = int(log[i]) end
    args[#args + 1] = logname
    args[#args + 1] = table.concat(parts, ' ')
  end
  redis.call('HSET', key, unpack(args))
  redis.call('PEXPIRE', key, ttl)
end
