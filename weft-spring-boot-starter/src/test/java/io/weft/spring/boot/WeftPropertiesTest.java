package io.weft.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.HistoryRule;
import io.weft.server.api.ServerOptions;
import java.io.InputStream;
import java.lang.reflect.RecordComponent;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Every server option is a {@code weft.*} property, described for IDEs, and reaches the server; a value an option does
 * not take fails start-up, naming the property.
 */
class WeftPropertiesTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(WeftAutoConfiguration.class));

    /** The names {@code ServerOptions.Builder.set} takes: every record component, the cookie's by its parts. */
    private static TreeSet<String> optionNames() {
        TreeSet<String> names = new TreeSet<>();
        for (RecordComponent option : ServerOptions.class.getRecordComponents()) {
            if (option.getType() == ServerOptions.BrowserCookie.class) {
                for (RecordComponent part : ServerOptions.BrowserCookie.class.getRecordComponents()) {
                    names.add(option.getName() + "." + part.getName());
                }
            } else {
                names.add(option.getName());
            }
        }
        return names;
    }

    @Test
    void everyServerOptionIsAProperty() {
        assertEquals(optionNames(), new TreeSet<>(new WeftProperties().optionsAsText().keySet()),
                "WeftProperties misses (or invents) a ServerOptions option: add it as a property");
    }

    @Test
    void thePropertiesDefaultsAreTheServerOptionsDefaults() {
        assertEquals(ServerOptions.defaults(), new WeftProperties().toServerOptions());
    }

    @Test
    void theConfigurationMetadataDescribesEveryProperty() throws Exception {
        Map<String, JsonNode> described = new HashMap<>();
        ObjectMapper json = new ObjectMapper();
        for (URL file : Collections.list(getClass().getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = file.openStream()) {
                for (JsonNode property : json.readTree(in).path("properties")) {
                    if (property.path("name").asText().startsWith("weft.")) {
                        described.put(property.path("name").asText(), property);
                    }
                }
            }
        }
        List<String> problems = new ArrayList<>();
        List<String> properties = new ArrayList<>(optionNames().stream().map(WeftProperties::propertyName).toList());
        properties.add("weft.path");
        for (String name : properties) {
            JsonNode property = described.remove(name);
            if (property == null) {
                problems.add(name + " is not in the metadata");
            } else if (property.path("description").asText().isBlank() || !property.has("defaultValue")
                    && !List.of("weft.allowed-origins", "weft.history").contains(name)) { // empty lists: no default
                problems.add(name + " has no description or no default: " + property);
            }
        }
        assertEquals(List.of(), problems);
        assertEquals(Map.of(), described, "properties in the metadata that are no option");
    }

    /** The example's former WeftOptionsTest, for every option: Spring's relaxed names, both spellings. */
    @Test
    void everyPropertyReachesItsOption() {
        runner.withPropertyValues("weft.timeout=25000", "weft.interval=1s", "weft.maxInterval=15000",
                "weft.max-queue=50", "weft.queue-overflow=disconnect", "weft.max-message-size=128KB",
                "weft.max-messages-per-frame=7", "weft.sweep-period=2s", "weft.broadcast-to-publisher=false",
                "weft.meta-connect-delivery-only=true", "weft.multi-session-interval=3s",
                "weft.max-sessions-per-browser=2", "weft.browserCookie.name=DEMO", "weft.browser-cookie.path=/app",
                "weft.browser-cookie.secure=true", "weft.browser-cookie.same-site=None", "weft.trust-client-id=true",
                "weft.allowed-origins=https://a.example, https://b.example", "weft.web-socket-deflate=false",
                "weft.require-handshake-per-connection=true", "weft.max-lazy-timeout=100ms",
                "weft.max-unacknowledged=11", "weft.max-channel-length=64", "weft.max-channel-depth=8",
                "weft.max-channels=1000", "weft.client-root-wildcards=true", "weft.max-sessions=99",
                "weft.max-sessions-per-address=9", "weft.max-live-sessions-per-browser=3",
                "weft.max-subscriptions-per-session=12", "weft.max-messages-per-batch=13", "weft.max-json-depth=10",
                "weft.max-pending-frames=4", "weft.event-source-heartbeat=30s", "weft.max-queue-bytes=256KB",
                "weft.max-unacknowledged-bytes=128KB", "weft.max-resend-bytes=2MB", "weft.max-channels-per-address=500",
                "weft.max-connections-per-address=40", "weft.request-head-timeout=3s",
                "weft.history[0]=/chat/**:size=10,ttl=60s", "weft.history[1]=/news", "weft.max-history-channels=77",
                "weft.max-history-channels-per-address=7", "weft.max-recovered-messages=8",
                "weft.max-recover-channels=9")
                .run(context -> {
                    assertNull(context.getStartupFailure());
                    ServerOptions expected = ServerOptions.builder().timeout(25_000).interval(1_000).maxInterval(15_000)
                            .maxQueue(50).queueOverflow(ServerOptions.OverflowPolicy.DISCONNECT)
                            .maxMessageSize(128 * 1024).maxMessagesPerFrame(7).sweepPeriod(2_000)
                            .broadcastToPublisher(false).metaConnectDeliveryOnly(true).multiSessionInterval(3_000)
                            .maxSessionsPerBrowser(2)
                            .browserCookie(new ServerOptions.BrowserCookie("DEMO", "/app", true, "None"))
                            .trustClientId(true).allowedOrigins(List.of("https://a.example", "https://b.example"))
                            .webSocketDeflate(false).requireHandshakePerConnection(true).maxLazyTimeout(100)
                            .maxUnacknowledged(11).maxChannelLength(64).maxChannelDepth(8).maxChannels(1_000)
                            .clientRootWildcards(true).maxSessions(99).maxSessionsPerAddress(9)
                            .maxLiveSessionsPerBrowser(3).maxSubscriptionsPerSession(12).maxMessagesPerBatch(13)
                            .maxJsonDepth(10).maxPendingFrames(4).eventSourceHeartbeat(30_000)
                            .maxQueueBytes(256 * 1024).maxUnacknowledgedBytes(128 * 1024)
                            .maxResendBytes(2 * 1024 * 1024).maxChannelsPerAddress(500).maxConnectionsPerAddress(40)
                            .requestHeadTimeout(3_000)
                            .history(List.of(HistoryRule.parse("/chat/**:size=10,ttl=60s"), HistoryRule.parse("/news")))
                            .maxHistoryChannels(77).maxHistoryChannelsPerAddress(7).maxRecoveredMessages(8)
                            .maxRecoverChannels(9).build();
                    ServerOptions bound = context.getBean(BayeuxServer.class).getOptions();
                    assertEquals(expected, bound);
                    List<String> unchanged = new ArrayList<>();
                    for (RecordComponent option : ServerOptions.class.getRecordComponents()) {
                        Object value = option.getAccessor().invoke(bound);
                        if (value.equals(option.getAccessor().invoke(ServerOptions.defaults()))) {
                            unchanged.add(option.getName());
                        }
                    }
                    assertEquals(List.of(), unchanged, "options this test does not set: set them");
                });
    }

    @Test
    void theReadmesPropertiesAreAccepted() throws Exception {
        String readme = Files.readString(Path.of(System.getProperty("user.dir"), "README.md"));
        Matcher block = Pattern.compile("```properties\\R(.*?)```", Pattern.DOTALL).matcher(readme);
        assertTrue(block.find(), "README.md has a properties block");
        String[] settings = block.group(1).lines().filter(line -> !line.isBlank() && !line.startsWith("#"))
                .toArray(String[]::new);
        assertTrue(settings.length > 3, block.group(1));
        runner.withPropertyValues(settings).run(context -> {
            assertNull(context.getStartupFailure());
            assertEquals(25_000, context.getBean(BayeuxServer.class).getOptions().timeout());
        });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "weft.timeout=-5s                      | weft.timeout",
            "weft.max-interval=0                   | weft.max-interval",
            "weft.max-queue=0                      | weft.max-queue",
            "weft.max-queue=lots                   | weft.max-queue",
            "weft.maxSessions=3000000000           | weft.max-sessions",
            "weft.max-message-size=512B            | weft.max-message-size",
            "weft.max-message-size=4GB             | weft.max-message-size",
            "weft.queue-overflow=sometimes         | weft.queue-overflow",
            "weft.broadcast-to-publisher=perhaps   | weft.broadcast-to-publisher",
            "weft.browser-cookie.name=two words    | weft.browser-cookie.name",
            "weft.browser-cookie.same-site=Relaxed | weft.browser-cookie.same-site",
            "weft.allowed-origins=example.org      | weft.allowed-origins",
            "weft.event-source-heartbeat=10ms      | weft.event-source-heartbeat",
            "weft.path=cometd                      | weft.path",
            "weft.path=/cometd/*                   | weft.path",
            "weft.timout=5000                      | weft.timout"})
    void aBadValueFailsStartUpNamingItsProperty(String setting, String property) {
        runner.withPropertyValues(setting).run(context -> {
            Throwable failure = context.getStartupFailure();
            assertNotNull(failure, setting + " was accepted");
            StringBuilder messages = new StringBuilder();
            for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
                messages.append(cause.getMessage()).append('\n');
            }
            assertTrue(messages.toString().contains(property), "no " + property + " in:\n" + messages);
        });
    }
}
