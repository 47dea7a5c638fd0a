package io.weft.examples.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * What a browser is served: the page, which imports weft.js; weft.js itself, as a script, built from the one source in
 * the examples module; and the Actuator's health with Weft's component. The same application as {@link EndToEndSuite}
 * (the same properties: Spring starts it once).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"announcer.clock-period=200ms", "spring.main.banner-mode=off"})
@Timeout(30)
class PageTest {
    /** weft.js's one source: the build copies it to static/ (spring-boot-example's pom). */
    private static final Path WEFT_JS = Path.of(System.getProperty("user.dir"))
            .resolveSibling("examples").resolve("src/main/resources/static/weft.js");
    private static final HttpClient HTTP = new HttpClient();

    @LocalServerPort
    private int port;

    @BeforeAll
    static void startClient() throws Exception {
        HTTP.start();
    }

    @AfterAll
    static void stopClient() throws Exception {
        HTTP.stop();
    }

    @Test
    void thePageSubscribesWithWeftJs() throws Exception {
        ContentResponse page = get("/");
        assertEquals(200, page.getStatus());
        assertTrue(page.getContentAsString().contains("import {BayeuxClient, TRANSPORTS} from './weft.js';"),
                page.getContentAsString());
        assertTrue(page.getContentAsString().contains("client.subscribe('/announcements'"));
    }

    @Test
    void weftJsIsServedAsAScriptFromItsOneSource() throws Exception {
        ContentResponse script = get("/weft.js");
        assertEquals(200, script.getStatus());
        assertTrue(script.getHeaders().get(HttpHeader.CONTENT_TYPE).startsWith("text/javascript"),
                "a module script needs a JavaScript type: " + script.getHeaders().get(HttpHeader.CONTENT_TYPE));
        assertEquals(Files.readString(WEFT_JS), script.getContentAsString(), "a copy of " + WEFT_JS);
    }

    @Test
    void theActuatorsHealthHasWeftUp() throws Exception {
        ContentResponse health = get("/actuator/health");
        assertEquals(200, health.getStatus(), health.getContentAsString());
        assertEquals("UP", new ObjectMapper().readTree(health.getContentAsString())
                .path("components").path("weft").path("status").asText(), health.getContentAsString());
    }

    private ContentResponse get(String path) throws Exception {
        return HTTP.newRequest("http://127.0.0.1:" + port + path).timeout(5, TimeUnit.SECONDS).send();
    }
}
