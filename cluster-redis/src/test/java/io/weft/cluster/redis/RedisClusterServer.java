package io.weft.cluster.redis;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A Redis Cluster of the test's own: three masters, no replicas, each a {@link RedisServer} with
 * {@code --cluster-enabled yes} on a free loopback port, slots split in three ranges. Started before each test and
 * stopped after it ({@code @RegisterExtension}). {@link #kill} and {@link #restart} take one shard away and bring it
 * back on its port with its {@code nodes.conf}: the others keep serving their slots meanwhile
 * ({@code cluster-require-full-coverage no}), and the shard comes back owning its own.
 */
public final class RedisClusterServer implements BeforeEachCallback, AfterEachCallback {
    private static final int SHARDS = 3;
    private static final long READY_WITHIN_MILLIS = 20_000;
    private static final List<String> CLUSTER_OPTIONS = List.of("--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000",
            "--cluster-require-full-coverage", "no");

    private final List<RedisServer> shards = new ArrayList<>();
    /** Slots {@link #moveSlot} moved, and their shards now. */
    private final Map<String, Integer> moved = new HashMap<>();

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        for (int i = 0; i < SHARDS; i++) {
            RedisServer shard = new RedisServer(CLUSTER_OPTIONS);
            shards.add(shard);
            shard.open();
        }
        for (int i = 0; i < SHARDS; i++) {
            RedisServer shard = shards.get(i);
            shard.command("CLUSTER", "SET-CONFIG-EPOCH", String.valueOf(i + 1));
            shard.command("CLUSTER", "ADDSLOTSRANGE", String.valueOf(firstSlot(i)), String.valueOf(firstSlot(i + 1) - 1));
        }
        for (int i = 1; i < SHARDS; i++) {
            shards.get(0).command("CLUSTER", "MEET", "127.0.0.1", String.valueOf(shards.get(i).port()));
        }
        awaitReady();
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        for (RedisServer shard : shards) {
            shard.close();
        }
    }

    /** The cluster's nodes as seeds for {@link RedisBrokerOptions#sharded}: {@code redis://127.0.0.1:p1,...}. */
    public String seeds() {
        StringBuilder seeds = new StringBuilder();
        for (RedisServer shard : shards) {
            seeds.append(seeds.isEmpty() ? "" : ",").append(shard.uri());
        }
        return seeds.toString();
    }

    /** Shard {@code index} (0, 1 or 2). */
    RedisServer shard(int index) {
        return shards.get(index);
    }

    /** The shard that owns the slot of {@code name} (a key, or a shard channel) now. */
    int shardOf(String name) throws IOException {
        String slot = shards.get(0).command("CLUSTER", "KEYSLOT", name).get(0);
        if (moved.containsKey(slot)) {
            return moved.get(slot);
        }
        for (int i = 0; i < SHARDS; i++) {
            if (Integer.parseInt(slot) < firstSlot(i + 1)) {
                return i;
            }
        }
        throw new AssertionError("slot " + slot);
    }

    /**
     * What the shards themselves say (not what the brokers believe): each shard channel some client subscribes to,
     * with the shard it is subscribed on and how many clients subscribe to it there ({@code PUBSUB SHARDCHANNELS}
     * and {@code SHARDNUMSUB} on each shard).
     */
    Map<String, Subscribed> shardChannels() throws IOException {
        Map<String, Subscribed> channels = new TreeMap<>();
        for (int i = 0; i < SHARDS; i++) {
            RedisServer shard = shards.get(i);
            for (String channel : shard.command("PUBSUB", "SHARDCHANNELS")) {
                channels.put(channel, new Subscribed(i,
                        Integer.parseInt(shard.command("PUBSUB", "SHARDNUMSUB", channel).get(1))));
            }
        }
        return channels;
    }

    /** A shard channel's shard, and how many clients subscribe to it. */
    record Subscribed(int shard, int clients) {
    }

    /** How many clients subscribe to shard channel {@code name} on the shard that owns it ({@code SHARDNUMSUB}). */
    int shardNumsub(String name) throws IOException {
        return Integer.parseInt(shards.get(shardOf(name)).command("PUBSUB", "SHARDNUMSUB", name).get(1));
    }

    /** Three channels {@code base + n}, whose names ({@code prefix} before them) are on shards 0, 1 and 2. */
    List<String> onEveryShard(String prefix, String base) throws IOException {
        String[] found = new String[SHARDS];
        int missing = SHARDS;
        for (int i = 0; missing > 0; i++) {
            int shard = shardOf(prefix + base + i);
            if (found[shard] == null) {
                found[shard] = base + i;
                missing--;
            }
        }
        return List.of(found);
    }

    /**
     * Moves the slot of {@code name} (empty of keys) to shard {@code to}, as a resharding does: IMPORTING, MIGRATING,
     * then the new owner told to each shard. The old owner drops the slot's shard channels (SUNSUBSCRIBE to their
     * subscribers); clients are then sent to the new owner by MOVED replies.
     */
    void moveSlot(String name, int to) throws IOException, InterruptedException {
        int from = shardOf(name);
        String slot = shards.get(0).command("CLUSTER", "KEYSLOT", name).get(0);
        String fromId = shards.get(from).command("CLUSTER", "MYID").get(0);
        String toId = shards.get(to).command("CLUSTER", "MYID").get(0);
        shards.get(to).command("CLUSTER", "SETSLOT", slot, "IMPORTING", fromId);
        shards.get(from).command("CLUSTER", "SETSLOT", slot, "MIGRATING", toId);
        shards.get(to).command("CLUSTER", "SETSLOT", slot, "NODE", toId);
        shards.get(from).command("CLUSTER", "SETSLOT", slot, "NODE", toId);
        for (int i = 0; i < SHARDS; i++) {
            if (i != from && i != to) {
                shards.get(i).command("CLUSTER", "SETSLOT", slot, "NODE", toId);
            }
        }
        moved.put(slot, to);
        awaitReady();
    }

    /** Makes every shard forget who serves the slot of {@code name}: nobody does until {@link #assign}. */
    void unassign(String name) throws IOException {
        String slot = shards.get(0).command("CLUSTER", "KEYSLOT", name).get(0);
        for (RedisServer shard : shards) {
            shard.command("CLUSTER", "DELSLOTS", slot);
        }
    }

    /** Gives the slot of {@code name}, which nobody serves, to shard {@code to}; the others learn it by gossip. */
    void assign(String name, int to) throws IOException, InterruptedException {
        String slot = shards.get(0).command("CLUSTER", "KEYSLOT", name).get(0);
        shards.get(to).command("CLUSTER", "ADDSLOTS", slot);
        moved.put(slot, to);
        awaitReady();
    }

    /** Kills shard {@code index} at once (SIGKILL), without waiting for the others to notice. */
    void kill(int index) throws InterruptedException {
        shards.get(index).kill();
    }

    /** Starts shard {@code index} again on its port, and waits until every shard sees the whole cluster again. */
    void restart(int index) throws IOException, InterruptedException {
        shards.get(index).restart();
        awaitReady();
    }

    private static int firstSlot(int shard) {
        return shard * 16384 / SHARDS;
    }

    /**
     * Waits until every shard says {@code cluster_state:ok}, knows the other two, and sees every slot served: with
     * {@code cluster-require-full-coverage no} the state is ok before gossip has told a shard who serves the others'
     * slots, and a client reading the topology from it then would know no shard for them.
     */
    private void awaitReady() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_WITHIN_MILLIS);
        while (!ready()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the Redis Cluster did not form: " + info());
            }
            Thread.sleep(50);
        }
    }

    private boolean ready() {
        for (RedisServer shard : shards) {
            try {
                String info = shard.command("CLUSTER", "INFO").get(0);
                String nodes = shard.command("CLUSTER", "NODES").get(0);
                if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + SHARDS)
                        || !info.contains("cluster_slots_assigned:16384") || !info.contains("cluster_slots_ok:16384")
                        || nodes.contains("fail") || nodes.contains("handshake")) {
                    return false;
                }
            } catch (IOException notYet) {
                return false;
            }
        }
        return true;
    }

    private String info() {
        List<String> views = new ArrayList<>();
        for (RedisServer shard : shards) {
            try {
                views.add(shard.port() + ": " + shard.command("CLUSTER", "NODES").get(0));
            } catch (IOException x) {
                views.add(shard.port() + ": " + x);
            }
        }
        return String.join("\n", views);
    }
}
