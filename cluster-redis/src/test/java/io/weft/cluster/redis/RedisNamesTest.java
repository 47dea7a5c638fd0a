package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.weft.bayeux.ChannelId;
import org.junit.jupiter.api.Test;

class RedisNamesTest {
    private final RedisNames names = new RedisNames("weft:");

    @Test
    void aChannelIsItsPrefixedNameAndBothWildcardsOfAParentShareOnePattern() {
        assertEquals("weft:/chat/room", names.subscription(ChannelId.of("/chat/room")));
        assertEquals("weft:/chat/*", names.subscription(ChannelId.of("/chat/*")));
        assertEquals("weft:/chat/*", names.subscription(ChannelId.of("/chat/**")));
        assertEquals("weft:/*", names.subscription(ChannelId.of("/**")));
        assertEquals("weft:/a/b/*", names.subscription(ChannelId.of("/a/b/*")));
    }

    @Test
    void globCharactersInThePrefixAndTheChannelAreEscapedInPatterns() {
        assertEquals("app\\[1\\]:/x\\?/\\[a\\]\\\\/*",
                new RedisNames("app[1]:").subscription(ChannelId.of("/x?/[a]\\/*")));
        assertEquals("app[1]:/x?", new RedisNames("app[1]:").subscription(ChannelId.of("/x?")),
                "SUBSCRIBE takes a name, not a glob");
    }

    @Test
    void aRedisChannelIsReadBackOnlyIfItIsOneOfOurs() {
        assertEquals(ChannelId.of("/chat/room"), names.bayeux("weft:/chat/room"));
        assertNull(names.bayeux("other:/chat/room"));
        assertNull(names.bayeux("weft:chat"));
        assertNull(names.bayeux("weft:/chat//room"));
    }
}
