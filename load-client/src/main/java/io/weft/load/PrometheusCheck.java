package io.weft.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Checks, through a real Prometheus's HTTP API, that what docs/operations gives an operator works against a Weft
 * server that Prometheus scraped: every query of the Grafana dashboard returns series over a time window (a load run),
 * and every alert rule Prometheus loaded from {@code alerts.yml} is evaluated without error, each metric selector in
 * it matching series over that window (a rule on a metric or label the server does not serve would never fire, and
 * say nothing). {@code bench/prometheus-check.sh} and {@code PrometheusCheckTest} run it after a short load.
 *
 * <pre>java -cp &lt;classpath&gt; io.weft.load.PrometheusCheck --prometheus=http://127.0.0.1:9090 --job=weft \
 *     --instance=127.0.0.1:8080 --start=1700000000 --end=1700000060</pre>
 */
@Command(name = "PrometheusCheck", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Checks the dashboard's queries and the alert rules through a Prometheus that scraped Weft.")
public final class PrometheusCheck implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The metrics a Weft server serves, by prefix: its own, and the JVM's that Micrometer binds. */
    private static final Pattern SELECTOR = Pattern.compile(
            "\\b((?:weft|jvm|process|system)_[A-Za-z0-9_]*)(\\{[^}]*})?");

    @Option(names = "--prometheus", required = true, description = "Prometheus's base URL, e.g. http://127.0.0.1:9090.")
    URI prometheus;

    @Option(names = "--dashboard", defaultValue = "docs/operations/weft-dashboard.json",
            description = "The Grafana dashboard whose queries to check [${DEFAULT-VALUE}].")
    Path dashboard;

    @Option(names = "--alerts", defaultValue = "docs/operations/alerts.yml",
            description = "The rule file Prometheus was given (its alerts are counted) [${DEFAULT-VALUE}].")
    Path alerts;

    @Option(names = "--job", required = true, description = "The scrape job of the Weft server ($job).")
    String job;

    @Option(names = "--instance", required = true, description = "The Weft server's instance label ($instance).")
    String instance;

    @Option(names = "--start", required = true, description = "The window's start, seconds since the epoch.")
    long start;

    @Option(names = "--end", required = true, description = "The window's end, seconds since the epoch.")
    long end;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public static void main(String[] args) {
        System.exit(new CommandLine(new PrometheusCheck()).execute(args));
    }

    /** For tests: a check against {@code prometheus} over a window. */
    public static PrometheusCheck of(URI prometheus, Path dashboard, Path alerts, String job, String instance,
            long start, long end) {
        PrometheusCheck check = new PrometheusCheck();
        check.prometheus = prometheus;
        check.dashboard = dashboard;
        check.alerts = alerts;
        check.job = job;
        check.instance = instance;
        check.start = start;
        check.end = end;
        return check;
    }

    @Override
    public Integer call() throws Exception {
        List<String> problems = new ArrayList<>();
        problems.addAll(checkDashboard(System.out));
        problems.addAll(checkRules(System.out));
        System.out.println(problems.isEmpty() ? "ALL OK" : problems.size() + " PROBLEM(S):");
        problems.forEach(problem -> System.out.println("  " + problem));
        return problems.isEmpty() ? 0 : 1;
    }

    /** Every query of the dashboard, with its variables, in the order of its panels. */
    public static List<String> dashboardQueries(Path dashboard) throws IOException {
        List<String> queries = new ArrayList<>();
        collectQueries(JSON.readTree(dashboard.toFile()).path("panels"), queries);
        return queries;
    }

    private static void collectQueries(JsonNode panels, List<String> into) {
        for (JsonNode panel : panels) {
            for (JsonNode target : panel.path("targets")) {
                if (target.hasNonNull("expr")) {
                    into.add(target.get("expr").asText());
                }
            }
            collectQueries(panel.path("panels"), into);
        }
    }

    /** Checks each dashboard query over the window; prints a line per query, returns what went wrong. */
    public List<String> checkDashboard(PrintStream out) throws IOException, InterruptedException {
        List<String> problems = new ArrayList<>();
        for (String query : dashboardQueries(dashboard)) {
            String resolved = query.replace("$job", regexLiteral(job)).replace("$instance", regexLiteral(instance));
            String outcome = seriesOver(resolved);
            out.println(outcome + "  " + query);
            if (!outcome.startsWith("OK")) {
                problems.add("dashboard query " + query + ": " + outcome);
            }
        }
        return problems;
    }

    /**
     * Checks every alert rule Prometheus loaded: as many as the rule file has, each evaluated since the window began
     * with health {@code ok}, each selector in it matching series over the window. Prints a line per rule.
     */
    public List<String> checkRules(PrintStream out) throws IOException, InterruptedException {
        List<String> problems = new ArrayList<>();
        JsonNode groups = api("/api/v1/rules", "type=alert").path("data").path("groups");
        int loaded = 0;
        for (JsonNode group : groups) {
            for (JsonNode rule : group.path("rules")) {
                loaded++;
                problems.addAll(checkRule(rule, out));
            }
        }
        long inFile = alertsInFile();
        if (loaded != inFile) {
            problems.add(alerts + " has " + inFile + " alerts, Prometheus loaded " + loaded);
        }
        return problems;
    }

    private List<String> checkRule(JsonNode rule, PrintStream out) throws IOException, InterruptedException {
        String name = rule.path("name").asText();
        String query = rule.path("query").asText();
        List<String> problems = new ArrayList<>();
        String health = rule.path("health").asText();
        Instant evaluated = Instant.parse(rule.path("lastEvaluation").asText("0001-01-01T00:00:00Z"));
        if (!health.equals("ok")) {
            problems.add("alert " + name + ": health " + health + ": " + rule.path("lastError").asText());
        }
        if (evaluated.getEpochSecond() < start) {
            problems.add("alert " + name + ": not evaluated since the window began (last: " + evaluated + ")");
        }
        Set<String> selectors = selectors(query);
        if (selectors.isEmpty()) {
            problems.add("alert " + name + ": no weft_, jvm_, process_ or system_ metric in " + query);
        }
        for (String selector : selectors) {
            String outcome = seriesOver("count(" + selector + ")");
            if (!outcome.startsWith("OK")) {
                problems.add("alert " + name + ": " + selector + " " + outcome);
            }
        }
        out.println((problems.isEmpty() ? "OK    " : "FAIL  ") + "alert " + name + " (" + rule.path("state").asText()
                + ", health " + health + ", evaluated " + evaluated + ", selectors " + selectors + ")  " + query);
        return problems;
    }

    /** The metric selectors in a PromQL expression: {@code weft_sessions{connection_type!="local"}}, ... */
    static Set<String> selectors(String query) {
        Set<String> selectors = new LinkedHashSet<>();
        Matcher selector = SELECTOR.matcher(query);
        while (selector.find()) {
            selectors.add(selector.group(0));
        }
        return selectors;
    }

    private long alertsInFile() throws IOException {
        return Files.readAllLines(alerts).stream().filter(line -> line.strip().startsWith("- alert:")).count();
    }

    /** {@code OK <n> series} when the query has series at some step of the window, else why not. */
    private String seriesOver(String query) throws IOException, InterruptedException {
        JsonNode answer = api("/api/v1/query_range", "query=" + URLEncoder.encode(query, StandardCharsets.UTF_8)
                + "&start=" + start + "&end=" + end + "&step=1");
        if (!"success".equals(answer.path("status").asText())) {
            return "ERROR " + answer.path("errorType").asText() + ": " + answer.path("error").asText();
        }
        int series = answer.path("data").path("result").size();
        return series > 0 ? "OK    " + series + " series" : "NONE  no series";
    }

    private JsonNode api(String path, String query) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(prometheus.resolve(path + "?" + query))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.body().isEmpty()) {
            throw new IOException(path + " answered " + response.statusCode() + " with no body");
        }
        return JSON.readTree(response.body()); // a bad query is a 400 with a JSON error: read it the same way
    }

    /** {@code value} as a PromQL string holding a regular expression that matches it alone. */
    static String regexLiteral(String value) {
        StringBuilder literal = new StringBuilder();
        for (char c : value.toCharArray()) {
            if ("\\.+*?()|[]{}^$".indexOf(c) >= 0) {
                literal.append("\\\\"); // a backslash in the regular expression, escaped in the PromQL string
            }
            literal.append(c);
        }
        return literal.toString();
    }
}
