package io.weft.server.internal.session;

import io.weft.bayeux.Message;
import io.weft.server.spi.History;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A session's recoveries (docs/protocol.md, "History and recovery"). While a channel's history is read for it, the
 * live publications of that channel are held here; when the read is done, what it found goes into the queue first,
 * then what was held and is newer, and from then on a publication at or before the position the client was given
 * (which a broker may deliver late, after the read) is dropped: each publication once, in offset order. Guarded by
 * itself; taken under a channel history's lock (a fan-out), never the other way round.
 */
final class Recovering {
    private final Map<String, Channel> channels = new LinkedHashMap<>(4);

    /** One channel's recovery: its live publications held while it is read, then the position the client has. */
    private static final class Channel {
        List<Message> held = new ArrayList<>();
        boolean overflowed;
        History.Position floor;
    }

    /**
     * Starts holding {@code channel}'s live publications. The positions of finished recoveries are kept at most
     * {@code max} at once (the oldest forgotten first: only the dropping of a late copy depends on one), so that a
     * client that recovers channel after channel does not grow its session.
     */
    synchronized void begin(String channel, int max) {
        channels.remove(channel);
        Iterator<Map.Entry<String, Channel>> oldest = channels.entrySet().iterator();
        while (channels.size() >= max && oldest.hasNext()) {
            if (oldest.next().getValue().held == null) {
                oldest.remove();
            }
        }
        channels.put(channel, new Channel());
    }

    /** Stops without a result (the subscription failed): what was held goes to {@code queue}. */
    synchronized void abandon(String channel, Predicate<Message> queue) {
        Channel state = channels.remove(channel);
        if (state != null && state.held != null) {
            state.held.forEach(queue::test);
        }
    }

    /**
     * A live publication for this session: held while its channel is read, dropped if the client has it already.
     *
     * @return whether it was held or dropped (true), or is to be queued now (false)
     */
    synchronized boolean intercept(Message message, int maxHeld) {
        Channel state = channels.get(message.getChannel());
        if (state == null) {
            return false;
        }
        History.Position position = History.Position.of(message);
        if (position == null) {
            return false;
        }
        if (state.held != null) {
            if (state.held.size() < maxHeld) {
                state.held.add(message);
            } else {
                state.overflowed = true;
            }
            return true;
        }
        return position.epoch().equals(state.floor.epoch()) && position.offset() <= state.floor.offset();
    }

    /**
     * The read is done: queues {@code recovered} (the publications after the client's position, through the outgoing
     * extensions already) if {@code complete}, then the held publications after {@code top}, and remembers
     * {@code top} as what the client has.
     *
     * @return whether everything was recovered: complete, and nothing held was dropped past the bound
     */
    synchronized boolean finish(String channel, History.Position top, List<Message> recovered, boolean complete,
            Predicate<Message> queue) {
        Channel state = channels.get(channel);
        if (state == null) {
            return false;
        }
        if (complete) {
            recovered.forEach(queue::test);
        }
        for (Message live : state.held) {
            History.Position position = History.Position.of(live);
            if (top == null || !position.epoch().equals(top.epoch()) || position.offset() > top.offset()) {
                queue.test(live);
            }
        }
        boolean all = complete && !state.overflowed;
        state.held = null;
        if (top == null) {
            channels.remove(channel);
        } else {
            state.floor = top;
        }
        return all;
    }
}
