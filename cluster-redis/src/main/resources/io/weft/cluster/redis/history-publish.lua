-- One publish on a channel with history, all at once: number it, keep it, publish it (RedisHistory, README "History").
-- KEYS[1] the channel's hash (epoch, offset, bytes), KEYS[2] its stream (one entry per kept publication, id "offset-0",
-- fields t: Redis time in ms, m: the message's JSON).
-- ARGV: 1 an epoch for a channel that has none, 2 size, 3 bytes, 4 ttl (ms), 5 the header "node number",
-- 6 the JSON, 7 the Redis channel to publish to, 8 "s" for SPUBLISH (sharded) or "p" for PUBLISH.
-- Returns {epoch, offset}.
local hash, stream = KEYS[1], KEYS[2]
local size, max_bytes, ttl = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local json = ARGV[6]
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)

if redis.call('HSETNX', hash, 'epoch', ARGV[1]) == 1 then
  -- A new epoch: whatever an earlier one left is not part of it.
  redis.call('DEL', stream)
  redis.call('HSET', hash, 'offset', 0, 'bytes', 0)
end
local epoch = redis.call('HGET', hash, 'epoch')
local offset = redis.call('HINCRBY', hash, 'offset', 1)
redis.call('XADD', stream, string.format('%d-0', offset), 't', now, 'm', json)

-- Oldest first, drop what is past the size, the bytes or the ttl (usually one entry, or none).
local length = redis.call('XLEN', stream)
local bytes = (tonumber(redis.call('HGET', hash, 'bytes')) or 0) + #json
while length > 0 do
  local oldest = redis.call('XRANGE', stream, '-', '+', 'COUNT', 1)[1]
  if not oldest or (length <= size and bytes <= max_bytes and tonumber(oldest[2][2]) > now - ttl) then
    break
  end
  redis.call('XDEL', stream, oldest[1])
  length = length - 1
  bytes = bytes - #oldest[2][4]
end
redis.call('HSET', hash, 'bytes', bytes)
-- Nothing published for ttl: the epoch and what is left go, and the next publish or read starts a new epoch.
redis.call('PEXPIRE', hash, ttl)
redis.call('PEXPIRE', stream, ttl)

local payload = ARGV[5] .. ' ' .. epoch .. ' ' .. string.format('%d', offset) .. '\n' .. json
redis.call(ARGV[8] == 's' and 'SPUBLISH' or 'PUBLISH', ARGV[7], payload)
return {epoch, offset}
