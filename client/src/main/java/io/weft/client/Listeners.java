package io.weft.client;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Message listeners by channel, exact or wildcard, and the dispatch of a message to every listener whose channel
 * matches it ({@code /chat/a} reaches {@code /chat/a}, {@code /chat/*}, {@code /chat/**} and {@code /**}).
 * Thread-safe; reads (dispatch) take no lock.
 */
final class Listeners {
    private static final Logger LOG = LoggerFactory.getLogger(Listeners.class);
    private static final int MAX_CACHED_CHANNELS = 10_000;

    private final Map<String, List<MessageListener>> byChannel = new ConcurrentHashMap<>();
    /** The channel names a message on a channel matches, computed once per channel. */
    private final Map<String, List<String>> patterns = new ConcurrentHashMap<>();

    /** @return whether this is the channel's first listener */
    boolean add(String channel, MessageListener listener) {
        boolean[] first = new boolean[1];
        byChannel.compute(channel, (name, list) -> {
            if (list == null) {
                list = new CopyOnWriteArrayList<>();
                first[0] = true;
            }
            list.add(listener);
            return list;
        });
        return first[0];
    }

    /** @return whether the channel has no listener left (false also when {@code listener} was not there) */
    boolean remove(String channel, MessageListener listener) {
        boolean[] last = new boolean[1];
        byChannel.computeIfPresent(channel, (name, list) -> {
            if (!list.remove(listener)) {
                return list;
            }
            last[0] = list.isEmpty();
            return last[0] ? null : list;
        });
        return last[0];
    }

    /** Removes every listener of {@code channel}. @return whether there were any */
    boolean removeAll(String channel) {
        return byChannel.remove(channel) != null;
    }

    /** The channels that have listeners, a snapshot. */
    Set<String> channels() {
        return Set.copyOf(byChannel.keySet());
    }

    boolean isEmpty() {
        return byChannel.isEmpty();
    }

    /** Calls every listener matching the message's channel; a listener that throws is logged and skipped. */
    void dispatch(Message message) {
        if (byChannel.isEmpty()) {
            return;
        }
        String channel = message.getChannel();
        if (channel == null) {
            return;
        }
        for (String pattern : patterns(channel)) {
            List<MessageListener> list = byChannel.get(pattern);
            if (list != null) {
                for (MessageListener listener : list) {
                    notify(listener, message);
                }
            }
        }
    }

    private List<String> patterns(String channel) {
        List<String> cached = patterns.get(channel);
        if (cached != null) {
            return cached;
        }
        List<String> computed = new ArrayList<>(4);
        computed.add(channel);
        if (ChannelId.isValid(channel)) {
            for (ChannelId wildcard : ChannelId.of(channel).wildcards()) {
                computed.add(wildcard.id());
            }
        }
        if (patterns.size() < MAX_CACHED_CHANNELS) {
            patterns.put(channel, computed);
        }
        return computed;
    }

    static void notify(MessageListener listener, Message message) {
        try {
            listener.onMessage(message);
        } catch (RuntimeException x) {
            LOG.info("Message listener {} failed on {}: {}", listener, message.getChannel(), x.toString());
        }
    }
}
