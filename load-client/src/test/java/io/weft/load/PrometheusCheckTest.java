package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weft.server.api.Limit;
import io.weft.server.api.ServerOptions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * docs/operations in a real Prometheus (Debian's 2.42, started on a temporary configuration and storage path): it
 * scrapes a load server every second through two short load runs (websocket, then long-polling) and one request past
 * {@code maxMessageSize}; then every query of the Grafana dashboard must return series over that window, and every
 * rule of {@code alerts.yml} must have been evaluated by Prometheus without error, each of its metric selectors
 * matching series ({@link PrometheusCheck}). promtool checks the rule file and runs its unit tests
 * ({@code alerts-test.yml}: each alert fired and not fired on series made for it).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PrometheusCheckTest {
    private static final Path OPERATIONS = Path.of(System.getProperty("basedir", "."), "..", "docs", "operations")
            .normalize();
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path work;

    @Test
    void theRuleFileIsValidAndItsUnitTestsPass() throws Exception {
        assertEquals("", promtool("check", "rules", OPERATIONS.resolve("alerts.yml").toString()));
        assertEquals("", promtool("test", "rules", OPERATIONS.resolve("alerts-test.yml").toString()));
    }

    @Test
    void theDashboardsQueriesAndTheAlertRulesWorkInARealPrometheusScrapingALoadServer() throws Exception {
        ByteArrayOutputStream serverOutput = new ByteArrayOutputStream();
        try (LoadServer.Running server = LoadServer.start("127.0.0.1", 0, "/cometd", 64, ServerOptions.defaults(),
                new PrintStream(serverOutput, true, StandardCharsets.UTF_8));
                PrometheusServer prometheus = PrometheusServer.start(work.resolve("prometheus"),
                        "127.0.0.1:" + server.port(), OPERATIONS.resolve("alerts.yml"))) {
            long start = Instant.now().getEpochSecond() - 1;
            waitFor(prometheus, "Prometheus to scrape the load server",
                    () -> query(prometheus, "up{job=\"weft\"} == 1").size() == 1);

            load(server, "websocket");
            refuseOneRequest(server);
            load(server, "long-polling");
            long loadEnd = Instant.now().getEpochSecond();
            waitFor(prometheus, "a scrape and every rule's evaluation after the load",
                    () -> scrapedAfter(prometheus, loadEnd) && rulesEvaluatedAfter(prometheus, loadEnd));
            long end = Instant.now().getEpochSecond();

            PrometheusCheck check = PrometheusCheck.of(prometheus.uri(), OPERATIONS.resolve("weft-dashboard.json"),
                    OPERATIONS.resolve("alerts.yml"), "weft", "127.0.0.1:" + server.port(), start, end);
            ByteArrayOutputStream report = new ByteArrayOutputStream();
            PrintStream out = new PrintStream(report, true, StandardCharsets.UTF_8);
            List<String> dashboard = check.checkDashboard(out);
            List<String> rules = check.checkRules(out);

            String printed = report.toString(StandardCharsets.UTF_8);
            assertEquals(List.of(), dashboard, printed);
            assertEquals(List.of(), rules, printed + prometheus.log());
            assertEquals(24, PrometheusCheck.dashboardQueries(OPERATIONS.resolve("weft-dashboard.json")).size());
            assertEquals(4, printed.lines().filter(line -> line.startsWith("OK    alert ")).count(), printed);
        }
    }

    @Test
    void selectorsAreTheMetricsOfAnExpression() {
        assertEquals(Set.of("weft_sessions{connection_type!=\"local\"}", "weft_sessions_limit"),
                PrometheusCheck.selectors("sum by (job, instance) (weft_sessions{connection_type!=\"local\"}) "
                        + "> 0.9 * max by (job, instance) (weft_sessions_limit)"));
        assertEquals("127\\\\.0\\\\.0\\\\.1:8080", PrometheusCheck.regexLiteral("127.0.0.1:8080"));
    }

    /** A short --auto run of the load tool over {@code transport}: 50 clients, 10 rooms, about 3 s of publishing. */
    private void load(LoadServer.Running server, String transport) {
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        LoadClient client = new LoadClient(new ByteArrayInputStream(new byte[0]),
                new PrintStream(output, true, StandardCharsets.UTF_8));
        int exit = new CommandLine(client).execute("--auto", "--server=127.0.0.1", "--port=" + server.port(),
                "--transport=" + transport, "--clients=50", "--rooms=10", "--batches=300", "--batch-size=5",
                "--batch-pause=10000", "--max-threads=32", "--seed=3",
                "--results=" + work.resolve("load-" + transport));
        assertEquals(0, exit, output.toString(StandardCharsets.UTF_8));
    }

    /** A body over maxMessageSize: answered 413 and counted as a refusal at that limit. */
    private static void refuseOneRequest(LoadServer.Running server) throws Exception {
        long before = server.bayeux().getRefusals().getOrDefault(Limit.MESSAGE_SIZE, 0L);
        byte[] body = new byte[ServerOptions.defaults().maxMessageSize() + 1];
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        try {
            http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/cometd"))
                    .header("Content-Type", "application/json").timeout(Duration.ofSeconds(10))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                    HttpResponse.BodyHandlers.discarding());
        } catch (IOException cutWhileSending) {
            // the server answers 413 without reading the body and closes the connection: the refusal is counted
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (server.bayeux().getRefusals().getOrDefault(Limit.MESSAGE_SIZE, 0L) == before) {
            assertTrue(System.nanoTime() < deadline, "the oversized request was not counted as a refusal");
            Thread.sleep(20);
        }
    }

    private static boolean scrapedAfter(PrometheusServer prometheus, long second) throws Exception {
        JsonNode result = query(prometheus, "timestamp(weft_channels{job=\"weft\"})");
        return result.size() == 1 && result.get(0).path("value").get(1).asDouble() > second;
    }

    private static boolean rulesEvaluatedAfter(PrometheusServer prometheus, long second) throws Exception {
        JsonNode groups = JSON.readTree(prometheus.api("rules?type=alert")).path("data").path("groups");
        int rules = 0;
        for (JsonNode group : groups) {
            for (JsonNode rule : group.path("rules")) {
                rules++;
                if (Instant.parse(rule.path("lastEvaluation").asText()).getEpochSecond() <= second) {
                    return false;
                }
            }
        }
        return rules > 0;
    }

    private static JsonNode query(PrometheusServer prometheus, String promql) throws Exception {
        return JSON.readTree(prometheus.api("query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8)))
                .path("data").path("result");
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    /** Checks {@code condition} every 200 ms until it holds; fails after 30 s, with Prometheus's log. */
    private static void waitFor(PrometheusServer prometheus, String what, Check condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("waited 30 s for " + what + "; Prometheus's log: " + prometheus.log());
            }
            Thread.sleep(200);
        }
    }

    /** promtool's output when it fails; empty when it succeeds. */
    private static String promtool(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(System.getProperty("weft.promtool", "promtool")));
        command.addAll(List.of(args));
        Process promtool;
        try {
            promtool = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException x) {
            throw new AssertionError("this test needs Debian's promtool (apt-get install prometheus; .ci/run installs "
                    + "it) or -Dweft.promtool=/path/to/promtool: " + x.getMessage(), x);
        }
        String printed = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(promtool.waitFor(60, TimeUnit.SECONDS), "promtool did not finish: " + printed);
        return promtool.exitValue() == 0 ? "" : "promtool " + String.join(" ", args) + " failed:\n" + printed;
    }
}
