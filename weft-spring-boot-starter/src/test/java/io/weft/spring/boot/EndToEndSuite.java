package io.weft.spring.boot;

import static io.weft.spring.boot.testing.CometdClients.WAIT;
import static io.weft.spring.boot.testing.CometdClients.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.weft.server.api.BayeuxServer;
import io.weft.spring.boot.testing.CometdClients;
import io.weft.spring.boot.testing.CometdClients.Transport;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.cometd.client.BayeuxClient;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The starter end to end, in an application that has nothing but the starter (on Boot's embedded Tomcat on a free
 * port, with the Actuator), with the official CometD Java client over one transport (the subclass's). Spring starts
 * the application once for both subclasses and stops it when the test JVM ends; each test stops the clients it starts.
 */
@SpringBootTest(classes = WeftTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.main.banner-mode=off", "management.endpoint.health.show-details=always"})
@Timeout(30)
abstract class EndToEndSuite {
    private static CometdClients clients;

    @LocalServerPort
    private int port;
    @Autowired
    private BayeuxServer bayeux;
    @Autowired
    private MeterRegistry registry;

    /** The one transport the clients of this suite speak. */
    abstract Transport transport();

    @BeforeAll
    static void startClients() throws Exception {
        clients = new CometdClients();
    }

    @AfterAll
    static void stopClients() throws Exception {
        clients.close();
    }

    @Test
    void publishFromOneClientReachesAnother() throws Exception {
        BayeuxClient alice = clients.connected(bayeuxUrl(), transport());
        BayeuxClient bob = clients.connected(bayeuxUrl(), transport());
        try {
            BlockingQueue<Map<String, Object>> room = new LinkedBlockingQueue<>();
            assertTrue(await(done -> alice.getChannel("/chat/demo")
                    .subscribe((channel, message) -> room.add(message.getDataAsMap()), done)).isSuccessful());

            assertTrue(await(done -> bob.getChannel("/chat/demo").publish(Map.of("text", "hi alice"), done))
                    .isSuccessful(), "bob's publish accepted");
            assertEquals(Map.of("text", "hi alice"), room.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS));

            String bobId = bob.getId();
            assertTrue(bob.disconnect(WAIT.toMillis()), "bob disconnected");
            assertNull(bayeux.getSession(bobId), "the server ended bob's session");
        } finally {
            alice.disconnect(WAIT.toMillis());
            bob.disconnect(WAIT.toMillis());
        }
    }

    @Test
    void subscriberReceivesWhatTheBayeuxServerBeanPublishes() throws Exception {
        BayeuxClient client = clients.connected(bayeuxUrl(), transport());
        try {
            BlockingQueue<Map<String, Object>> news = new LinkedBlockingQueue<>();
            assertTrue(await(done -> client.getChannel("/news")
                    .subscribe((channel, message) -> news.add(message.getDataAsMap()), done)).isSuccessful());

            bayeux.createChannelIfAbsent("/news").publish(null, Map.of("text", "from server code"));
            assertEquals(Map.of("text", "from server code"), news.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        } finally {
            client.disconnect(WAIT.toMillis());
        }
    }

    @Test
    void theSessionIsCountedInTheApplicationsMeterRegistry() throws Exception {
        BayeuxClient client = clients.connected(bayeuxUrl(), transport());
        try {
            // the binder reuses one stats snapshot for a second: wait for one taken after the handshake
            assertTrue(within(() -> {
                Gauge sessions = registry.find("weft.sessions").tag("connection_type", transport().bayeuxName).gauge();
                return sessions != null && sessions.value() >= 1;
            }), "weft.sessions{connection_type=" + transport().bayeuxName + "} counts the client");
        } finally {
            client.disconnect(WAIT.toMillis());
        }
    }

    @Test
    void theActuatorsHealthHasWeftUp() throws Exception {
        ContentResponse response = clients.http().newRequest("http://127.0.0.1:" + port + "/actuator/health")
                .timeout(WAIT.toMillis(), TimeUnit.MILLISECONDS)
                .send();
        assertEquals(200, response.getStatus(), response.getContentAsString());
        JsonNode weft = new ObjectMapper().readTree(response.getContentAsString()).path("components").path("weft");
        assertEquals("UP", weft.path("status").asText(), response.getContentAsString());
    }

    private String bayeuxUrl() {
        return "http://127.0.0.1:" + port + "/cometd";
    }

    /** Whether {@code condition} holds within {@link CometdClients#WAIT}, asking every 50 ms. */
    static boolean within(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        return true;
    }
}
