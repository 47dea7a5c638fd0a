package io.weft.examples.chat;

import io.weft.cluster.redis.RedisBroker;
import io.weft.server.api.BayeuxServer;
import io.weft.server.spi.Broker;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The chat on a single node, or on one node of a cluster through Redis: what the embedded demo's {@code --redis} and
 * the WAR's {@code chat.redis} context parameter both do. Called once, on the thread assembling the server, before it
 * takes clients.
 */
public final class ChatCluster {
    /** How often a node of a cluster tells the others its member lists again, unless told otherwise. */
    public static final Duration ANNOUNCE_EVERY = Duration.ofSeconds(2);
    private static final Logger LOG = LoggerFactory.getLogger(ChatCluster.class);

    private ChatCluster() {
    }

    /** {@link #install(BayeuxServer, String, Duration)}, announcing every {@link #ANNOUNCE_EVERY}. */
    public static ChatRooms install(BayeuxServer bayeux, String redis) {
        return install(bayeux, redis, ANNOUNCE_EVERY);
    }

    /**
     * Installs the chat on {@code bayeux}: on a single node when {@code redis} is null or blank; otherwise cluster-redis's
     * {@code RedisBroker} on that Redis ({@code redis://HOST:PORT}) first, then {@link ChatRooms#installOnCluster}
     * (whose roster makes the server's first session, after which no broker can be installed). A Redis that cannot
     * be reached fails here, naming the address ({@link IllegalStateException}), and {@code bayeux} is closed.
     */
    public static ChatRooms install(BayeuxServer bayeux, String redis, Duration announceEvery) {
        if (redis == null || redis.isBlank()) {
            return ChatRooms.install(bayeux);
        }
        try {
            Broker.install(bayeux, RedisBroker.create(redis.strip()));
            ChatRooms rooms = ChatRooms.installOnCluster(bayeux, announceEvery);
            LOG.info("the chat is one node of the cluster on {}, announcing its members every {} ms", redacted(redis),
                    announceEvery.toMillis());
            return rooms;
        } catch (RuntimeException x) {
            bayeux.close();
            throw x;
        }
    }

    /** {@code redis} with any password (or user and password) masked, for logs. */
    public static String redacted(String redis) {
        return redis.replaceFirst("//[^@/]*@", "//***@");
    }
}
