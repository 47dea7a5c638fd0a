package io.weft.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
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
}
