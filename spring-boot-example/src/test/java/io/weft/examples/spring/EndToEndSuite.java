package io.weft.examples.spring;

import static io.weft.spring.boot.testing.CometdClients.WAIT;
import static io.weft.spring.boot.testing.CometdClients.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.spring.boot.testing.CometdClients;
import io.weft.spring.boot.testing.CometdClients.Transport;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.cometd.client.BayeuxClient;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.http.HttpMethod;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The application end to end, on Boot's embedded Tomcat on a free port, with the official CometD Java client over
 * one transport (the subclass's): what {@link Announcer} publishes reaches a subscriber. Spring starts the application
 * once for all subclasses and stops it when the test JVM ends; each test stops the clients it starts. What the starter
 * itself does (clients publishing to each other, options, health, metrics, shutdown) is tested in
 * weft-spring-boot-starter.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"announcer.clock-period=200ms", "spring.main.banner-mode=off"})
@Timeout(30)
abstract class EndToEndSuite {
    private static CometdClients clients;

    @LocalServerPort
    private int port;
    @Autowired
    private Announcer announcer;

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
    void subscriberReceivesWhatTheSpringBeanPublishes() throws Exception {
        BayeuxClient client = clients.connected(baseUrl() + "/cometd", transport());
        try {
            BlockingQueue<Map<String, Object>> announcements = new LinkedBlockingQueue<>();
            assertTrue(await(done -> client.getChannel(Announcer.CHANNEL)
                    .subscribe((channel, message) -> announcements.add(message.getDataAsMap()), done))
                    .isSuccessful(), "subscribed to " + Announcer.CHANNEL);

            assertNotNull(next(announcements, data -> Boolean.TRUE.equals(data.get("clock"))), "a clock tick");

            announcer.announce("hello from a Spring bean");
            assertNotNull(next(announcements, data -> "hello from a Spring bean".equals(data.get("text"))),
                    "the announcement");

            ContentResponse response = clients.http().newRequest(baseUrl() + "/announce")
                    .method(HttpMethod.POST)
                    .param("text", "hello over HTTP")
                    .timeout(WAIT.toMillis(), TimeUnit.MILLISECONDS)
                    .send();
            assertEquals(202, response.getStatus());
            assertNotNull(next(announcements, data -> "hello over HTTP".equals(data.get("text"))),
                    "what POST /announce published");
        } finally {
            client.disconnect(WAIT.toMillis());
        }
    }

    private String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    /** The next element of {@code queue} that {@code wanted} accepts, skipping others; null after {@code WAIT}. */
    private static Map<String, Object> next(BlockingQueue<Map<String, Object>> queue,
            Predicate<Map<String, Object>> wanted) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        for (long left = WAIT.toNanos(); left > 0; left = deadline - System.nanoTime()) {
            Map<String, Object> data = queue.poll(left, TimeUnit.NANOSECONDS);
            if (data != null && wanted.test(data)) {
                return data;
            }
        }
        return null;
    }
}
