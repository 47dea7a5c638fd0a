package io.weft.client;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.ListIterator;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client side of history and recovery (docs/protocol.md, "History and recovery"): keeps, for each channel that
 * keeps history, the last position ({@code epoch}, {@code offset}) the client saw there, from delivered messages
 * ({@code ext.history}) and subscribe replies ({@code ext.recover}); adds {@code ext.recover} with those positions to
 * each {@code /meta/subscribe} (the channel's own, or for a wildcard those of the channels under it, at most
 * {@value #MAX_RECOVER_CHANNELS}), so that the subscriptions the client makes again after a new handshake recover what
 * the old session missed; drops a delivered message whose position is not past the one kept (the application never
 * gets one twice, with the ack extension too); and tells the {@link RecoveryListener}s each recovery's outcome. One
 * instance per client; thread-safe (long-polling may deliver on two exchanges at once).
 */
final class RecoveryExtension implements ClientExtension {
    /** At most this many channels' positions in one subscribe (the server's {@code maxRecoverChannels}). */
    static final int MAX_RECOVER_CHANNELS = 64;
    /** The most channels whose positions are kept; past it, those seen least recently are forgotten. */
    static final int MAX_CHANNELS = 1_000;

    private static final Logger LOG = LoggerFactory.getLogger(RecoveryExtension.class);
    private static final String HISTORY = "history";
    private static final String RECOVER = "recover";
    private static final String EPOCH = "epoch";
    private static final String OFFSET = "offset";
    private static final String RECOVERED = "recovered";

    /** A place in a channel's stream. */
    record Position(String epoch, long offset) {
        Map<String, Object> toMap() {
            Map<String, Object> map = new LinkedHashMap<>(4);
            map.put(EPOCH, epoch);
            map.put(OFFSET, offset);
            return map;
        }

        /** From {@code {"epoch": "…", "offset": n}}; null if {@code value} is not one. */
        static Position from(Object value) {
            if (value instanceof Map<?, ?> map && map.get(EPOCH) instanceof String epoch && !epoch.isEmpty()
                    && epoch.length() <= 64 && map.get(OFFSET) instanceof Number number) {
                long offset = number.longValue();
                if (offset >= 0 && number.doubleValue() == offset) {
                    return new Position(epoch, offset);
                }
            }
            return null;
        }
    }

    private final List<RecoveryListener> listeners;
    /** Channel to position, least recently changed first. */
    private final LinkedHashMap<String, Position> positions = new LinkedHashMap<>();
    /** What this session subscribed to, as the server confirmed: an unsubscribe forgets only what none covers. */
    private final Set<String> subscribed = new HashSet<>();

    RecoveryExtension(List<RecoveryListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    @Override
    public boolean outgoing(BayeuxClient client, Message.Mutable message) {
        String channel = message.getChannel();
        if ("/meta/handshake".equals(channel)) {
            synchronized (this) {
                subscribed.clear(); // a new session: the client subscribes again, and the replies say to what
            }
        } else if ("/meta/subscribe".equals(channel)) {
            Map<String, Object> recover = new LinkedHashMap<>();
            for (String subscription : subscriptions(message)) {
                recover.putAll(recoverFor(subscription));
            }
            if (!recover.isEmpty()) {
                message.getExt(true).put(RECOVER, recover);
            }
        }
        return true;
    }

    @Override
    public boolean incoming(BayeuxClient client, Message.Mutable message) {
        String channel = message.getChannel();
        if (channel == null) {
            return true;
        }
        if ("/meta/subscribe".equals(channel)) {
            for (Recovery recovery : replied(message)) {
                tell(client, recovery);
            }
        } else if ("/meta/unsubscribe".equals(channel)) {
            if (message.isSuccessful()) {
                unsubscribed(subscriptions(message));
            }
        } else if (!message.isMeta() && !message.containsKey(Message.SUCCESSFUL)) {
            return accept(message);
        }
        return true;
    }

    /** The position kept for {@code channel}, or null. */
    synchronized Position position(String channel) {
        return positions.get(channel);
    }

    /**
     * What a subscribe to {@code subscription} sends in {@code ext.recover}: the channel's own position, or for a
     * wildcard those of the channels under it, the most recently seen first.
     */
    synchronized Map<String, Object> recoverFor(String subscription) {
        Map<String, Object> recover = new LinkedHashMap<>();
        if (!ChannelId.isValid(subscription)) {
            return recover;
        }
        ChannelId pattern = ChannelId.of(subscription);
        if (!pattern.isWild()) {
            Position position = positions.get(subscription);
            if (position != null) {
                recover.put(subscription, position.toMap());
            }
            return recover;
        }
        ListIterator<Map.Entry<String, Position>> latest = new ArrayList<>(positions.entrySet())
                .listIterator(positions.size());
        while (latest.hasPrevious() && recover.size() < MAX_RECOVER_CHANNELS) {
            Map.Entry<String, Position> entry = latest.previous();
            if (pattern.matches(ChannelId.of(entry.getKey()))) {
                recover.put(entry.getKey(), entry.getValue().toMap());
            }
        }
        return recover;
    }

    /**
     * A delivered message: false if the client already had it (its epoch is the one kept for its channel and its
     * offset is not above the one kept), else true, its position kept. A message without a position is accepted.
     */
    synchronized boolean accept(Message message) {
        Map<String, Object> ext = message.getExt();
        Position position = ext == null ? null : Position.from(ext.get(HISTORY));
        if (position == null) {
            return true;
        }
        Position kept = positions.get(message.getChannel());
        if (kept != null && kept.epoch().equals(position.epoch()) && position.offset() <= kept.offset()) {
            return false;
        }
        if (kept != null || ChannelId.isValid(message.getChannel())) {
            keep(message.getChannel(), position);
        }
        return true;
    }

    /**
     * A subscribe reply: keeps the positions its {@code ext.recover} gives where the client has none in that epoch,
     * and returns the recoveries it answers.
     *
     * <p>A reply's position, the channel's latest, never moves on a position kept in its epoch: what is delivered after
     * it moves that on. When recovered, what was missed follows (or came already), and would be taken for duplicates;
     * when the session already had the channel through another subscription, what is on its way would. A position of
     * no use (behind what the server still has) costs nothing: the next recovery says it is too old.
     */
    synchronized List<Recovery> replied(Message reply) {
        if (!reply.isSuccessful()) {
            return List.of();
        }
        subscribed.addAll(subscriptions(reply));
        Map<String, Object> ext = reply.getExt();
        if (ext == null || !(ext.get(RECOVER) instanceof Map<?, ?> entries)) {
            return List.of();
        }
        Object subscription = reply.get(Message.SUBSCRIPTION);
        List<Recovery> recoveries = new ArrayList<>();
        for (Map.Entry<?, ?> entry : entries.entrySet()) {
            if (!(entry.getKey() instanceof String channel) || !(entry.getValue() instanceof Map<?, ?> value)
                    || !ChannelId.isValid(channel)) {
                continue;
            }
            Position position = Position.from(value);
            Object recovered = value.get(RECOVERED);
            Position kept = positions.get(channel);
            if (position != null && !Boolean.TRUE.equals(recovered)
                    && (kept == null || !kept.epoch().equals(position.epoch()))) {
                keep(channel, position);
            }
            if (recovered instanceof Boolean flag) {
                recoveries.add(new Recovery(channel, subscription instanceof String s ? s : null, flag,
                        position == null ? null : position.epoch(), position == null ? -1 : position.offset()));
            }
        }
        return recoveries;
    }

    /** Forgets the positions of the channels none of the subscriptions left covers. */
    private synchronized void unsubscribed(List<String> patterns) {
        subscribed.removeAll(patterns);
        List<ChannelId> left = subscribed.stream().filter(ChannelId::isValid).map(ChannelId::of).toList();
        positions.keySet().removeIf(channel -> {
            ChannelId id = ChannelId.of(channel);
            return left.stream().noneMatch(pattern -> pattern.matches(id));
        });
    }

    private void keep(String channel, Position position) {
        positions.remove(channel); // put again: last, the most recently seen
        positions.put(channel, position);
        if (positions.size() > MAX_CHANNELS) {
            positions.remove(positions.keySet().iterator().next());
        }
    }

    private void tell(BayeuxClient client, Recovery recovery) {
        for (RecoveryListener listener : listeners) {
            try {
                listener.onRecovery(client, recovery);
            } catch (RuntimeException x) {
                LOG.info("Recovery listener {} failed: {}", listener, x.toString());
            }
        }
    }

    /** The channels a subscribe or unsubscribe (or its reply) names: one, or a list. */
    private static List<String> subscriptions(Message message) {
        Object subscription = message.get(Message.SUBSCRIPTION);
        if (subscription instanceof String one) {
            return List.of(one);
        }
        List<String> all = new ArrayList<>();
        if (subscription instanceof List<?> list) {
            for (Object each : list) {
                if (each instanceof String name) {
                    all.add(name);
                }
            }
        }
        return all;
    }
}
