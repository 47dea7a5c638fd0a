package io.weft.load.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 27's failover runs, small: 100 subscribers in Node, 50 official CometD JavaScript clients and 50 weft.js
 * clients, both kinds on every channel, subscribed through HAProxy (the documented cluster-redis/haproxy.cfg) to two
 * Weft nodes on a real redis-server, a publisher numbering 200 messages a second across 20 channels; node a killed
 * ({@code kill -9}), or both nodes restarted in turn (SIGTERM: it drains for 2 s and stops; started again; HAProxy
 * takes it back). bench/recovery.sh runs the same with 500 subscribers, longer, over both transports.
 *
 * <p>With recovery (history on the channels, weft-recovery.js on every official client, weft.js's own recovery)
 * nothing may be lost, duplicated or reordered, by either kind of client. Without, what must hold all the same:
 * nothing duplicated or reordered, no loss for a subscriber the fault did not make handshake again, every interrupted
 * subscriber back. Each kind must have had subscribers on the failed node. Skipped without haproxy, redis-server, node
 * and npm on the PATH ({@code .ci/run} installs them).
 */
@Timeout(120)
class LossUnderFaultsTest {
    /**
     * History on the channels and recovery on every subscriber; {@code -Dweft.loss.recovery=false} runs the same
     * without, asserting only what holds without recovery.
     */
    private static final boolean RECOVERY = Boolean.parseBoolean(System.getProperty("weft.loss.recovery", "true"));
    private static final int SUBSCRIBERS = 100;
    private static final int RATE = 200;

    private static Path npm;

    @BeforeAll
    static void installTheClient() throws Exception {
        for (String command : new String[] {"haproxy", "redis-server", "node", "npm"}) {
            assumeTrue(NodeClients.onPath(command), "needs " + command + " on the PATH");
        }
        npm = NodeClients.install(Path.of("target", "maven", "npm-loss").toAbsolutePath());
    }

    @Test
    void killingANodeLosesNothingForSubscribersThatRecover() throws Exception {
        LossResult result = run(LossRun.Fault.KILL, Duration.ofSeconds(5), Duration.ofSeconds(7));

        for (LossResult counted : eachKindAndAll(result)) {
            assertHeld(counted);
            assertTrue(counted.interrupted() > 0 && counted.interrupted() < counted.subscribers(), "the subscribers "
                    + "of node a, and only they, handshook again: " + counted);
        }
    }

    @Test
    void aRollingRestartLosesNothingForSubscribersThatRecover() throws Exception {
        LossResult result = run(LossRun.Fault.ROLLING, Duration.ofSeconds(4), Duration.ofSeconds(4));

        assertEquals(2, result.faults().size(), result.toString());
        for (LossResult counted : eachKindAndAll(result)) {
            assertHeld(counted);
            assertTrue(counted.interrupted() > counted.subscribers() / 2, "node b's subscribers and those moved "
                    + "there from a handshook again: " + counted);
        }
    }

    private static LossResult run(LossRun.Fault fault, Duration faultAt, Duration after) throws Exception {
        Path logs = Path.of("target", "maven", "loss", fault.name().toLowerCase(Locale.ROOT));
        LossResult result = LossRun.run(new LossRun.Settings("websocket", fault, RECOVERY, LossRun.Clients.MIXED,
                SUBSCRIBERS, 20, RATE, faultAt, after, Duration.ofSeconds(2), npm,
                Path.of("..", "cluster-redis", "haproxy.cfg"),
                Path.of("..", "examples", "src", "main", "resources", "static", "weft-recovery.js"), logs));
        System.out.println(result);
        for (String kind : LossResult.KINDS) {
            System.out.println("  " + kind + ": " + result.ofClient(kind));
        }
        return result;
    }

    /** The official clients' counts, weft.js's, and all together; half the subscribers of each kind. */
    private static List<LossResult> eachKindAndAll(LossResult result) {
        LossResult cometd = result.ofClient("cometd");
        LossResult weft = result.ofClient("weft");
        assertEquals(SUBSCRIBERS / 2, cometd.subscribers(), result.toString());
        assertEquals(SUBSCRIBERS / 2, weft.subscribers(), result.toString());
        return List.of(cometd, weft, result);
    }

    /** What holds with recovery or without, and with recovery, that nothing was lost. */
    private static void assertHeld(LossResult result) {
        String why = result + " (logs in target/maven/loss)";
        assertEquals(0, result.publishFailed(), why);
        assertTrue(result.published() >= 0.8 * RATE * result.publishedSeconds(), "the publisher kept its rate: " + why);
        assertEquals((long) result.subscribers() * result.published() / 20, result.expected(),
                2L * result.subscribers(), "every subscriber was owed its channel's messages: " + why);
        assertEquals(0, result.duplicated(), "nothing twice: " + why);
        assertEquals(0, result.outOfOrder(), "nothing out of order: " + why);
        assertEquals(0, result.lostUninterrupted(), "a subscriber that kept its session lost nothing: " + why);
        assertEquals(0, result.neverBack(), "every interrupted subscriber received again: " + why);
        assertTrue(result.backSeconds() > 0 && result.backSeconds() < 20, "back within 20 s: " + why);
        if (RECOVERY) {
            assertEquals(0, result.lost(), "recovered, nothing lost: " + why);
            assertEquals(0, result.notRecovered(), "every recovery succeeded: " + why);
        } else {
            assertTrue(result.subscribersLost() <= result.interrupted(), why);
        }
    }
}
