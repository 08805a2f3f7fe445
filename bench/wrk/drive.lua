-- The wrk script of bench/load.ts: one request shape, or the issue + revoke cycle, then
-- one JSON line with what the bench needs. Set by the bench through the environment:
--
--   WRK_METHOD, WRK_BODY      the request (the path is wrk's URL)
--   WRK_HEADERS               "Name: value" lines, one header per line
--   WRK_REVOKE_PATH           set for the cycle: every answered token request (its body
--                             holds an access_token) is followed, on the same thread, by
--                             a revocation of that token at this path, with the same headers
--   WRK_RANDOM_SUFFIX         N: each request's path ends with N random small letters, so
--                             every answer is a different one (not with the cycle)
--
-- The last line printed is JSON: requests, duration_s, p50_ms, p99_ms, non2xx, errors,
-- and for the cycle, cycles (revocations answered 200).

local method = os.getenv("WRK_METHOD") or "GET"
local body = os.getenv("WRK_BODY")
local revoke_path = os.getenv("WRK_REVOKE_PATH")
local random_suffix = tonumber(os.getenv("WRK_RANDOM_SUFFIX") or "")
if body == "" then body = nil end

local headers = {}
for line in (os.getenv("WRK_HEADERS") or ""):gmatch("[^\n]+") do
  local name, value = line:match("^([^:]+):%s*(.*)$")
  if name then headers[name] = value end
end

wrk.method = method
wrk.body = body
wrk.headers = headers

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

if random_suffix and not revoke_path then
  local counter = 0

  function init(args)
    counter = counter + 1
    math.randomseed(os.time() * 1000 + counter + math.floor(os.clock() * 1e6))
  end

  function request()
    local letters = {}
    for i = 1, random_suffix do letters[i] = string.char(math.random(97, 122)) end
    return wrk.format(method, wrk.path .. table.concat(letters), headers, body)
  end
end

if revoke_path then
  local issue = nil
  local tokens = {}
  cycles = 0

  function init(args)
    issue = wrk.format(method, nil, headers, body)
  end

  -- A token waiting to be revoked goes first; otherwise a new one is asked for.
  function request()
    local token = table.remove(tokens)
    if token then
      return wrk.format("POST", revoke_path, headers, "token=" .. token)
    end
    return issue
  end

  function response(status, _, answer)
    local token = answer:match('"access_token"%s*:%s*"([^"]+)"')
    if token then
      table.insert(tokens, token)
    elseif status == 200 then
      cycles = cycles + 1
    end
  end
end

function done(summary, latency, _)
  local total_cycles = 0
  for _, thread in ipairs(threads) do
    total_cycles = total_cycles + (thread:get("cycles") or 0)
  end
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_s":%.3f,"p50_ms":%.3f,"p99_ms":%.3f,"non2xx":%d,"errors":%d,"cycles":%d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, e.status, e.connect + e.read + e.write + e.timeout,
    total_cycles))
end
