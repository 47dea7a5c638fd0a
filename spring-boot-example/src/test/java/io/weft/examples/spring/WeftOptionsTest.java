package io.weft.examples.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.server.api.BayeuxServer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/** Weft's options come from {@code weft.*} properties, by the names of docs/server-options.md. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {"weft.maxInterval=15000", "weft.browserCookie.name=DEMO", "spring.main.banner-mode=off"})
class WeftOptionsTest {
    @Autowired
    private BayeuxServer bayeux;

    @Test
    void weftPropertiesSetTheServersOptions() {
        assertEquals(15_000, bayeux.getOptions().maxInterval());
        assertEquals("DEMO", bayeux.getOptions().browserCookie().name());
    }
}
