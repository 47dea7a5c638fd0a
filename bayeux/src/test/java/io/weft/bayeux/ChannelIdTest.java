package io.weft.bayeux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ChannelIdTest {
    @ParameterizedTest
    @ValueSource(strings = {"/a", "/chat/room7", "/a/*", "/a/**", "/**", "/*", "/meta/connect", "/service/x",
        "/with space/ok", "/a-b_c.d!~()$@/x"})
    void acceptsWhatTheOfficialClientsSend(String channel) {
        assertTrue(ChannelId.isValid(channel), channel);
        assertEquals(channel, ChannelId.of(channel).id());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a", "/", "//", "/a/", "/a//b", "/a/*/b", "/a/**/b", "/a/b*", "/a/***", "/a/x*y",
        "/a/\u0001"})
    void rejectsInvalidNames(String channel) {
        assertFalse(ChannelId.isValid(channel), channel);
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> ChannelId.of(channel));
        assertTrue(x.getMessage().contains("invalid channel"), x.getMessage());
    }

    @Test
    void rejectsNull() {
        assertFalse(ChannelId.isValid(null));
    }

    @Test
    void knowsItsKind() {
        assertTrue(ChannelId.of("/meta/handshake").isMeta());
        assertTrue(ChannelId.of("/service/echo").isService());
        assertTrue(ChannelId.of("/chat/a").isBroadcast());
        assertFalse(ChannelId.of("/chat/*").isBroadcast());
        assertTrue(ChannelId.of("/chat/*").isWild());
        assertFalse(ChannelId.of("/chat/*").isDeepWild());
        assertTrue(ChannelId.of("/chat/**").isDeepWild());
        assertFalse(ChannelId.of("/metadata").isMeta());
    }

    @Test
    void segmentsAreParsedOnce() {
        ChannelId id = ChannelId.of("/a/bb/ccc");
        assertEquals(3, id.depth());
        assertEquals(List.of("a", "bb", "ccc"), id.segments());
        assertEquals("bb", id.segment(1));
        assertEquals(ChannelId.of("/a/bb"), id.parent());
        assertEquals(null, ChannelId.of("/a").parent());
    }

    @Test
    void singleWildcardMatchesExactlyOneMoreSegment() {
        ChannelId wild = ChannelId.of("/a/*");
        assertTrue(wild.matches(ChannelId.of("/a/b")));
        assertFalse(wild.matches(ChannelId.of("/a/b/c")));
        assertFalse(wild.matches(ChannelId.of("/a")));
        assertFalse(wild.matches(ChannelId.of("/b/c")));
    }

    @Test
    void deepWildcardMatchesAnyDepthBelow() {
        ChannelId deep = ChannelId.of("/a/**");
        assertTrue(deep.matches(ChannelId.of("/a/b")));
        assertTrue(deep.matches(ChannelId.of("/a/b/c/d")));
        assertFalse(deep.matches(ChannelId.of("/a")));
        assertFalse(deep.matches(ChannelId.of("/ab/c")));
        assertTrue(ChannelId.of("/**").matches(ChannelId.of("/x")));
    }

    @Test
    void exactChannelMatchesOnlyItself() {
        assertTrue(ChannelId.of("/a/b").matches(ChannelId.of("/a/b")));
        assertFalse(ChannelId.of("/a/b").matches(ChannelId.of("/a/c")));
    }

    @Test
    void listsTheWildcardsThatMatchIt() {
        assertEquals(List.of(ChannelId.of("/a/b/*"), ChannelId.of("/a/b/**"), ChannelId.of("/a/**"),
                ChannelId.of("/**")), ChannelId.of("/a/b/c").wildcards());
        assertEquals(List.of(), ChannelId.of("/a/*").wildcards());
    }

    @Test
    void equalityIsByName() {
        assertEquals(ChannelId.of("/a/b"), ChannelId.of("/a/b"));
        assertEquals(ChannelId.of("/a/b").hashCode(), ChannelId.of("/a/b").hashCode());
    }
}
