package io.weft.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ServerOptionsTest {
    @Test
    void defaultsAreWhatTheOfficialClientsExpect() {
        ServerOptions options = ServerOptions.defaults();
        assertEquals(20_000, options.timeout());
        assertEquals(0, options.interval());
        assertEquals(10_000, options.maxInterval());
        assertEquals(ServerOptions.OverflowPolicy.DROP_OLDEST, options.queueOverflow());
        assertEquals("BAYEUX_BROWSER", options.browserCookie().name());
        assertEquals(2_000, options.multiSessionInterval());
        assertEquals(1, options.maxSessionsPerBrowser());
        assertTrue(options.broadcastToPublisher());
        assertFalse(options.trustClientId());
        assertEquals(List.of(), options.allowedOrigins());
    }

    @Test
    void rejectsNonsenseNamingTheOption() {
        assertMessage("timeout", () -> ServerOptions.builder().timeout(-1).build());
        assertMessage("maxInterval", () -> ServerOptions.builder().maxInterval(0).build());
        assertMessage("maxQueue", () -> ServerOptions.builder().maxQueue(0).build());
        assertMessage("maxMessageSize", () -> ServerOptions.builder().maxMessageSize(10).build());
        assertMessage("maxMessagesPerFrame", () -> ServerOptions.builder().maxMessagesPerFrame(0).build());
        assertMessage("sweepPeriod", () -> ServerOptions.builder().sweepPeriod(0).build());
        assertMessage("maxSessionsPerBrowser", () -> ServerOptions.builder().maxSessionsPerBrowser(0).build());
        assertMessage("allowedOrigins", () -> ServerOptions.builder().allowedOrigins(List.of("example.com")).build());
        assertMessage("sameSite", () -> new ServerOptions.BrowserCookie("B", "/", false, "Sometimes"));
        assertMessage("name", () -> new ServerOptions.BrowserCookie("a b", "/", false, "Lax"));
        assertThrows(NullPointerException.class, () -> ServerOptions.builder().queueOverflow(null).build());
    }

    private static void assertMessage(String option, Runnable build) {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, build::run);
        assertTrue(x.getMessage().contains(option), x.getMessage());
    }

    @Test
    void toBuilderKeepsEveryValue() {
        ServerOptions custom = ServerOptions.builder().timeout(5).interval(6).maxInterval(7).maxQueue(8)
                .queueOverflow(ServerOptions.OverflowPolicy.DISCONNECT).maxMessageSize(2048).maxMessagesPerFrame(3)
                .sweepPeriod(9).broadcastToPublisher(false).metaConnectDeliveryOnly(true).multiSessionInterval(11)
                .maxSessionsPerBrowser(2).browserCookie(new ServerOptions.BrowserCookie("C", "/x", true, "None"))
                .trustClientId(true).allowedOrigins(List.of("https://a.example:8443")).webSocketDeflate(false)
                .requireHandshakePerConnection(true).build();
        assertEquals(custom, custom.toBuilder().build());
    }

    @Test
    void originsAreAllowedByListOrWildcard() {
        ServerOptions some = ServerOptions.builder().allowedOrigins(List.of("https://a.example")).build();
        assertTrue(some.isOriginAllowed("https://a.example"));
        assertFalse(some.isOriginAllowed("https://b.example"));
        assertFalse(some.isOriginAllowed(null));
        assertTrue(ServerOptions.builder().allowedOrigins(List.of("*")).build().isOriginAllowed("http://x"));
        assertFalse(ServerOptions.defaults().isOriginAllowed("http://x"));
    }

    /** Every option can be set by name from text, as web.xml gives it: each component of the record, none forgotten. */
    @Test
    void everyOptionCanBeSetByNameFromText() throws Exception {
        ServerOptions custom = ServerOptions.builder().timeout(5).interval(6).maxInterval(7).maxQueue(8)
                .queueOverflow(ServerOptions.OverflowPolicy.DISCONNECT).maxMessageSize(2048).maxMessagesPerFrame(3)
                .sweepPeriod(9).broadcastToPublisher(false).metaConnectDeliveryOnly(true).multiSessionInterval(11)
                .maxSessionsPerBrowser(2).browserCookie(new ServerOptions.BrowserCookie("C", "/x", true, "None"))
                .trustClientId(true).allowedOrigins(List.of("https://a.example:8443", "http://b.example"))
                .webSocketDeflate(false).requireHandshakePerConnection(true).maxLazyTimeout(12).maxUnacknowledged(13)
                .maxChannelLength(14).maxChannelDepth(15).maxChannels(16).clientRootWildcards(true).maxSessions(17)
                .maxSessionsPerAddress(18).maxLiveSessionsPerBrowser(19).maxSubscriptionsPerSession(20)
                .maxMessagesPerBatch(21).maxJsonDepth(22).maxPendingFrames(23).eventSourceHeartbeat(2400)
                .maxQueueBytes(4000).maxUnacknowledgedBytes(5000).maxResendBytes(6000).maxChannelsPerAddress(24)
                .maxConnectionsPerAddress(25).requestHeadTimeout(26)
                .history(List.of(HistoryRule.parse("/chat/**:size=10,ttl=60s,bytes=2k"), HistoryRule.parse("/news")))
                .maxHistoryChannels(27).maxHistoryChannelsPerAddress(28).maxRecoveredMessages(29)
                .maxRecoverChannels(30).build();
        ServerOptions.Builder byName = ServerOptions.builder();
        for (RecordComponent component : ServerOptions.class.getRecordComponents()) {
            Object value = component.getAccessor().invoke(custom);
            assertNotEquals(value, component.getAccessor().invoke(ServerOptions.defaults()), component.getName()
                    + ": the custom options must differ from the defaults everywhere, or this test proves nothing");
            String name = component.getName();
            if (value instanceof ServerOptions.BrowserCookie cookie) {
                byName.set(name + ".name", cookie.name()).set(name + ".path", cookie.path())
                        .set(name + ".secure", String.valueOf(cookie.secure()))
                        .set(name + ".sameSite", cookie.sameSite());
            } else if (value instanceof List<?> list) {
                // History rules have commas of their own, and are separated by semicolons.
                byName.set(name, list.stream().map(String::valueOf)
                        .collect(Collectors.joining(name.equals("history") ? "; " : ", ")));
            } else {
                byName.set(name, " " + value + " ");
            }
        }
        assertEquals(custom, byName.build());
        assertEquals(List.of(), ServerOptions.builder().allowedOrigins(List.of("*")).set("allowedOrigins", "").build()
                .allowedOrigins());
    }

    @Test
    void settingByNameRefusesUnknownNamesAndBadValuesNamingThem() {
        assertMessage("timeoutt", () -> ServerOptions.builder().set("timeoutt", "1"));
        assertMessage("timeout", () -> ServerOptions.builder().set("timeout", "20s"));
        assertMessage("maxQueue", () -> ServerOptions.builder().set("maxQueue", "3000000000"));
        assertMessage("webSocketDeflate", () -> ServerOptions.builder().set("webSocketDeflate", "yes"));
        assertMessage("DROP_OLDEST", () -> ServerOptions.builder().set("queueOverflow", "drop"));
        assertMessage("sameSite", () -> ServerOptions.builder().set("browserCookie.sameSite", "Sometimes"));
        assertMessage("maxSessions", () -> ServerOptions.builder().set("maxSessions", "0").build());
        assertMessage("allowedOrigins", () -> ServerOptions.builder().set("allowedOrigins", "example.com").build());
    }
}
