package io.weft.load.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the subscribers of a {@link LossRun} counted. Lost: a message the publisher had acknowledged on a subscriber's
 * channel that the subscriber never received; duplicated: received again; out of order: received after a higher
 * number of its channel. Back: for each fault, from the fault until the last of the subscribers it made handshake
 * again received its first message on its new session (the longest of the faults). The same, counted over the
 * subscribers of one kind of client only, in {@code byClient}.
 *
 * @param settings the run
 * @param subscribers the subscribers counted
 * @param published messages published (all acknowledged unless {@code publishFailed})
 * @param publishFailed publishes the publisher's node refused or did not answer: not owed to anyone
 * @param publishedSeconds how long the publisher published
 * @param expected messages owed to all subscribers together
 * @param lost of those, never received
 * @param lostUninterrupted of those, lost by subscribers that never had to handshake again
 * @param duplicated received more than once (each extra copy counted)
 * @param outOfOrder received after a higher number of the same channel
 * @param subscribersLost subscribers that lost at least one
 * @param lostEachMin the fewest lost by one of those
 * @param lostEachMax the most lost by one subscriber
 * @param interrupted subscribers that had to handshake again
 * @param interruptedTwice subscribers that had to handshake again twice or more
 * @param notRecovered subscribe replies that said {@code recovered: false}
 * @param neverBack subscribers that handshook again after a fault but received nothing after
 * @param backSeconds the longest time from a fault until an interrupted subscriber received again; -1 without fault
 * @param longestSilenceSeconds the longest time a subscriber received nothing while the publisher published
 * @param faults per fault: its label, the subscribers it interrupted and the longest time until they were back
 * @param byClient for each kind of client that had subscribers ({@code cometd}, {@code weft}), the same counted over
 *        those only (their own {@code byClient} empty)
 */
record LossResult(LossRun.Settings settings, int subscribers, long published, long publishFailed,
        double publishedSeconds, long expected, long lost, long lostUninterrupted, long duplicated, long outOfOrder,
        int subscribersLost, long lostEachMin, long lostEachMax, int interrupted, int interruptedTwice,
        int notRecovered, int neverBack, double backSeconds, double longestSilenceSeconds, List<String> faults,
        Map<String, LossResult> byClient) {
    /** The kinds of client, as loss.mjs names them, in the CSV's order. */
    static final List<String> KINDS = List.of("cometd", "weft");

    /** The columns of what all the subscribers counted. */
    private static final String ALL_COLUMNS = "transport,fault,recovery,clients,subscribers,channels,rate,published,"
            + "publish_failed,expected,lost,lost_uninterrupted,duplicated,out_of_order,subscribers_lost,lost_each_min,"
            + "lost_each_max,interrupted,interrupted_twice,not_recovered,never_back,back_s,longest_silence_s,"
            + "published_s";

    static final String CSV_HEADER = ALL_COLUMNS + "," + kindColumns("cometd") + "," + kindColumns("weft");

    LossResult {
        faults = List.copyOf(faults);
        byClient = Map.copyOf(byClient);
    }

    /** The columns of one kind of client: its subscribers, and what they counted. */
    private static String kindColumns(String kind) {
        return String.join(",", kind + "_subscribers", kind + "_interrupted", kind + "_lost", kind + "_duplicated",
                kind + "_out_of_order", kind + "_not_recovered");
    }

    /** The result of the subscribers of {@code kind}; fails if there were none. */
    LossResult ofClient(String kind) {
        LossResult result = byClient.get(kind);
        if (result == null) {
            throw new IllegalStateException("no " + kind + " subscribers in " + this);
        }
        return result;
    }

    /** From loss.mjs's REPORT. */
    static LossResult of(LossRun.Settings settings, JsonNode report) {
        List<String> faults = new ArrayList<>();
        int neverBack = 0;
        for (JsonNode fault : report.path("faults")) {
            neverBack += fault.path("neverBack").asInt();
            faults.add(String.format(Locale.ROOT, "%s: %d interrupted, back within %s s (median %s s)",
                    fault.path("label").asText(), fault.path("interrupted").asInt(),
                    seconds(fault.path("backMaxS")), seconds(fault.path("backP50S"))));
        }
        Map<String, LossResult> byClient = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> kind : report.path("byClient").properties()) {
            byClient.put(kind.getKey(), of(settings, kind.getValue()));
        }
        return new LossResult(settings, report.path("subscribers").asInt(), report.path("published").asLong(),
                report.path("publishFailed").asLong(),
                report.path("publishedSeconds").asDouble(), report.path("expected").asLong(),
                report.path("lost").asLong(), report.path("lostUninterrupted").asLong(),
                report.path("duplicated").asLong(), report.path("outOfOrder").asLong(),
                report.path("subscribersLost").asInt(), report.path("lostEachMin").asLong(),
                report.path("lostEachMax").asLong(), report.path("interrupted").asInt(),
                report.path("interruptedTwice").asInt(), report.path("notRecovered").asInt(), neverBack,
                report.path("backS").isNumber() ? report.path("backS").asDouble() : -1,
                report.path("longestSilenceS").asDouble(), faults, byClient);
    }

    private static String seconds(JsonNode value) {
        return value.isNumber() ? String.format(Locale.ROOT, "%.1f", value.asDouble()) : "-";
    }

    /** One row under {@link #CSV_HEADER}. */
    String csvRow() {
        List<String> kinds = new ArrayList<>();
        for (String kind : KINDS) {
            LossResult ofKind = byClient.get(kind);
            kinds.add(ofKind == null ? "0,,,,," : String.join(",", String.valueOf(ofKind.subscribers),
                    String.valueOf(ofKind.interrupted), String.valueOf(ofKind.lost), String.valueOf(ofKind.duplicated),
                    String.valueOf(ofKind.outOfOrder), String.valueOf(ofKind.notRecovered)));
        }
        return String.join(",", settings.transport(), settings.fault().label, settings.recovery() ? "on" : "off",
                settings.clients().label, String.valueOf(subscribers), String.valueOf(settings.channels()),
                String.valueOf(settings.rate()), String.valueOf(published), String.valueOf(publishFailed),
                String.valueOf(expected), String.valueOf(lost), String.valueOf(lostUninterrupted),
                String.valueOf(duplicated), String.valueOf(outOfOrder),
                String.valueOf(subscribersLost), String.valueOf(lostEachMin), String.valueOf(lostEachMax),
                String.valueOf(interrupted), String.valueOf(interruptedTwice), String.valueOf(notRecovered),
                String.valueOf(neverBack), backSeconds < 0 ? "" : String.format(Locale.ROOT, "%.1f", backSeconds),
                String.format(Locale.ROOT, "%.1f", longestSilenceSeconds),
                String.format(Locale.ROOT, "%.1f", publishedSeconds), String.join(",", kinds));
    }

    /** The {@code RESULT key=value ...} line the fault commands print (one kind's: without the kinds' columns). */
    String resultLine() {
        String[] names = CSV_HEADER.split(",");
        String[] values = csvRow().split(",", -1);
        int columns = byClient.isEmpty() ? ALL_COLUMNS.split(",").length : names.length;
        StringBuilder line = new StringBuilder("RESULT");
        for (int i = 0; i < columns; i++) {
            line.append(' ').append(names[i]).append('=').append(values[i].replace(' ', '_'));
        }
        return line.toString();
    }

    @Override
    public String toString() {
        return resultLine() + " " + String.join("; ", faults);
    }
}
