package io.weft.server.internal.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.EndReason;
import io.weft.server.api.ServerOptions;
import io.weft.server.internal.session.SessionHooks;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.session.SessionRegistry;
import io.weft.server.internal.session.Subscription;
import io.weft.server.internal.stats.Counters;
import io.weft.server.internal.util.Refusals;
import io.weft.server.testing.ManualScheduler;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ChannelTreeTest {
    /** The tree alone: nothing to tell, nothing to publish through. */
    private final ChannelTree tree = new ChannelTree(new ChannelHost() {
        @Override
        public ServerOptions options() {
            return ServerOptions.defaults();
        }

        @Override
        public void channelAdded(ChannelNode channel) {
        }

        @Override
        public void channelRemoved(ChannelNode channel) {
        }

        @Override
        public void subscribed(SessionImpl session, ChannelNode channel, Message message) {
        }

        @Override
        public void unsubscribed(SessionImpl session, ChannelNode channel, Message message) {
        }

        @Override
        public void publish(SessionImpl from, ChannelNode channel, Object data, Promise<Boolean> delivered) {
            throw new UnsupportedOperationException("not in these tests");
        }
    });
    /** Sessions that tell nobody anything. */
    private final SessionRegistry sessions = new SessionRegistry(ServerOptions.defaults(), new ManualScheduler(),
            new Refusals(), new Counters(), new SessionHooks() {
                @Override
                public void beforeConnectReply(SessionImpl session, List<Message> out) {
                }

                @Override
                public void queued(SessionImpl session, Message message) {
                }

                @Override
                public void queueFull(SessionImpl session, Message message) {
                }

                @Override
                public void ended(SessionImpl session, EndReason reason, List<Subscription> channels) {
                }

                @Override
                public void deliverTo(SessionImpl to, SessionImpl from, MessageImpl message) {
                }
            }, message -> 0);

    private SessionImpl session() {
        SessionImpl session = sessions.newSession(null, null, null, false);
        sessions.register(session);
        return session;
    }

    private Set<String> matching(String channel) {
        return tree.matching(ChannelId.of(channel)).stream().map(ChannelNode::toString).collect(Collectors.toSet());
    }

    @Test
    void findsTheExactChannelAndEveryMatchingWildcard() {
        for (String channel : List.of("/a/b/c", "/a/b/*", "/a/b/**", "/a/**", "/**", "/a/*", "/a/b/c/d", "/x/**")) {
            tree.subscribe(ChannelId.of(channel), session(), null);
        }
        assertEquals(Set.of("/a/b/c", "/a/b/*", "/a/b/**", "/a/**", "/**"), matching("/a/b/c"));
        assertEquals(Set.of("/a/*", "/a/**", "/**"), matching("/a/z"));
        assertEquals(Set.of("/**"), matching("/q"));
    }

    @Test
    void channelsWithoutSubscribersAreNotReturned() {
        tree.getOrCreate(ChannelId.of("/a/b"));
        assertEquals(Set.of(), matching("/a/b"));
    }

    @Test
    void subscribeIsIdempotentAndUnsubscribeRemoves() {
        SessionImpl session = session();
        ChannelId channel = ChannelId.of("/a");
        assertTrue(tree.subscribe(channel, session, null));
        assertFalse(tree.subscribe(channel, session, null));
        assertEquals(1, tree.get(channel).subscribers().size());
        assertEquals(1, session.getSubscriptions().size());
        assertTrue(tree.unsubscribe(channel, session, null));
        assertFalse(tree.unsubscribe(channel, session, null));
        assertTrue(session.getSubscriptions().isEmpty());
    }

    @Test
    void anEndedSessionCannotSubscribe() {
        SessionImpl session = session();
        session.disconnect();
        assertFalse(tree.subscribe(ChannelId.of("/a"), session, null));
        assertFalse(tree.get(ChannelId.of("/a")).hasSubscribers());
    }

    @Test
    void unusedChannelsAreSweptAfterSeveralSweepsLeavesFirst() {
        SessionImpl session = session();
        tree.subscribe(ChannelId.of("/a/b"), session, null);
        tree.unsubscribe(ChannelId.of("/a/b"), session, null);
        for (int i = 1; i < ChannelTree.SWEEPS_BEFORE_REMOVAL; i++) {
            assertEquals(0, tree.sweep());
        }
        assertEquals(1, tree.sweep());
        assertNull(tree.get(ChannelId.of("/a/b")));
        assertNotNull(tree.get(ChannelId.of("/a")));
        for (int i = 1; i < ChannelTree.SWEEPS_BEFORE_REMOVAL; i++) {
            tree.sweep();
        }
        assertEquals(1, tree.sweep());
        assertNull(tree.get(ChannelId.of("/a")));
    }

    @Test
    void channelsWithSubscribersOrPersistentAreKept() {
        tree.subscribe(ChannelId.of("/kept"), session(), null);
        tree.getOrCreate(ChannelId.of("/persistent")).setPersistent(true);
        for (int i = 0; i < 10; i++) {
            tree.sweep();
        }
        assertNotNull(tree.get(ChannelId.of("/kept")));
        assertNotNull(tree.get(ChannelId.of("/persistent")));
    }

    @Test
    void aSweptChannelIsRecreatedOnSubscribe() {
        SessionImpl session = session();
        ChannelNode before = tree.getOrCreate(ChannelId.of("/a"));
        for (int i = 0; i < ChannelTree.SWEEPS_BEFORE_REMOVAL; i++) {
            tree.sweep();
        }
        assertTrue(before.isRemoved());
        assertTrue(tree.subscribe(ChannelId.of("/a"), session, null));
        assertTrue(tree.get(ChannelId.of("/a")).hasSubscribers());
    }
}
