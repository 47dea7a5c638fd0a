-- A read of a channel's history after a position (RedisHistory, README "History"). KEYS as history-publish.lua.
-- ARGV: 1 an epoch for a channel that has none, 2 ttl (ms), 3 the epoch read after ("" for none: the position only),
-- 4 the offset read after, 5 the most publications returned.
-- Returns {epoch, top offset, complete (1 or 0), the JSON of each publication after the position, in order...}.
local hash, stream = KEYS[1], KEYS[2]
local ttl = tonumber(ARGV[2])
if redis.call('HSETNX', hash, 'epoch', ARGV[1]) == 1 then
  redis.call('DEL', stream)
  redis.call('HSET', hash, 'offset', 0, 'bytes', 0)
  redis.call('PEXPIRE', hash, ttl)
end
local epoch = redis.call('HGET', hash, 'epoch')
local top = tonumber(redis.call('HGET', hash, 'offset'))
local reply = {epoch, top, 0}
if ARGV[3] == '' then
  reply[3] = 1
  return reply
end
local after = tonumber(ARGV[4])
if ARGV[3] ~= epoch or after > top or top - after > tonumber(ARGV[5]) then
  return reply
end
if after == top then
  reply[3] = 1
  return reply
end
-- Ids are offsets: top - after entries from after + 1 on are all of them, unless some were trimmed.
local entries = redis.call('XRANGE', stream, string.format('%d', after + 1), '+', 'COUNT', top - after)
if #entries ~= top - after or entries[1][1] ~= string.format('%d-0', after + 1) then
  return reply
end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
if tonumber(entries[1][2][2]) <= now - ttl then
  return reply -- the oldest is past the ttl (nothing was published since to trim it)
end
reply[3] = 1
for i, entry in ipairs(entries) do
  reply[3 + i] = entry[2][4]
end
return reply
