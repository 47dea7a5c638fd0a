package io.weft.spring.boot;

import static io.weft.spring.boot.testing.CometdClients.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weft.server.api.BayeuxServer;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The Actuator's health goes DOWN, with a 503, once the Bayeux server closes, as it does first when the application
 * stops ({@link WeftLifecycle}), while the web server still answers. Its own application, discarded afterwards.
 */
@SpringBootTest(classes = WeftTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.main.banner-mode=off", "management.endpoint.health.show-details=always"})
@DirtiesContext
@Timeout(30)
class HealthOnCloseTest {
    @LocalServerPort
    private int port;
    @Autowired
    private WeftLifecycle lifecycle;
    @Autowired
    private BayeuxServer bayeux;

    @Test
    void weftHealthGoesDownWhenTheServerCloses() throws Exception {
        HttpClient http = new HttpClient();
        http.start();
        try {
            ContentResponse up = health(http);
            assertEquals(200, up.getStatus(), up.getContentAsString());
            assertEquals("UP", weft(up).path("status").asText(), up.getContentAsString());

            lifecycle.stop(); // what Boot's shutdown calls first
            assertTrue(bayeux.isClosed());

            ContentResponse down = health(http);
            assertEquals(503, down.getStatus(), down.getContentAsString());
            assertEquals("DOWN", weft(down).path("status").asText(), down.getContentAsString());
            assertTrue(weft(down).path("details").path("reason").asText().startsWith("closing"),
                    down.getContentAsString());
        } finally {
            http.stop();
        }
    }

    private ContentResponse health(HttpClient http) throws Exception {
        return http.newRequest("http://127.0.0.1:" + port + "/actuator/health")
                .timeout(WAIT.toMillis(), TimeUnit.MILLISECONDS)
                .send();
    }

    private static JsonNode weft(ContentResponse health) throws Exception {
        return new ObjectMapper().readTree(health.getContentAsString()).path("components").path("weft");
    }
}
