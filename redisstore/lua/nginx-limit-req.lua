-- nginx-limit-req: nginx's limit_req with its own integer arithmetic
-- (ngx_http_limit_req_module.c). rate is in thousandths of a request per
-- second, the clock whole milliseconds (now truncated). A key's node holds
-- excess (thousandths of a request) and last_ms (the millisecond of its
-- latest admission); node is 0 until the first admission makes it. For a
-- request of cost c decided at eff = max(now, latest), ms = eff in ms:
--   excess = max(0, excess - rate * (ms - last_ms) / 1000 + 1000)
--            (0 + ... without a node), then + (c - 1) * 1000;
-- rejected iff excess > burst * 1000 (the node kept as it was), else the
-- node takes excess and last_ms = ms, and the request is delayed
-- (excess - delay * 1000) * 1000 / rate ms if that is above 0.
-- args: rate (thousandths/s), burst, delay (-1 for nodelay: none delayed).
local rate, burst, delay = arg(1), arg(2), arg(3)
local MS = 1000000
-- drain: the ms after which any excess is gone, rate * drain / 1000 >=
-- (burst + 1) * 1000; the elapsed ms is cut there so rate * ms stays small.
local drain = cdiv((burst + 1) * 1000 * 1000, rate)
local names = {'node', 'excess', 'last_ms', 'latest'}
local f = load(names)
local node, excess, last_ms, latest = 0, 0, 0, now
if f then node, excess, last_ms, latest = f[1], f[2], f[3], f[4] end
local eff = math.max(now, latest)
local outcome, wait, retry = ALLOWED, 0, 0
if cost > burst + 1 then
  outcome, retry = REJECTED, NEVER
else
  local ms = fdiv(eff, MS)
  local e = 0
  if node == 1 then
    e = math.max(0, excess - fdiv(rate * math.min(ms - last_ms, drain), 1000) + 1000)
  end
  e = e + (cost - 1) * 1000
  if e > burst * 1000 then
    -- It fits once rate * elapsed / 1000 >= need: ceil(need * 1000 / rate)
    -- ms after last_ms.
    local need = excess + cost * 1000 - burst * 1000
    outcome, retry = REJECTED, (last_ms + cdiv(need * 1000, rate)) * MS - now
  else
    node, excess, last_ms = 1, e, ms
    if delay >= 0 and e > delay * 1000 then
      local d = fdiv((e - delay * 1000) * 1000, rate)
      if d > 0 then outcome, wait = DELAYED, d * MS end
    end
  end
end
save(names, {node, excess, last_ms, eff})
return {outcome, wait, retry}
