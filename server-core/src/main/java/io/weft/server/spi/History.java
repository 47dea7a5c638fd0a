package io.weft.server.spi;

import io.weft.bayeux.Message;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The values of channel history (docs/protocol.md, "History and recovery"), shared by the engine and a
 * {@link Broker} that keeps history for a cluster: a position in a channel's stream, a page read from it, and the
 * {@code ext} field a delivered message carries its position in.
 */
public final class History {
    /** {@code ext.history} of a delivered message: {@code {"epoch": "…", "offset": 17}}. */
    public static final String EXT = "history";
    /**
     * {@code ext.recover} of a {@code /meta/subscribe}: the positions a client had, by concrete channel
     * ({@code {"/chat/a": {"epoch": "…", "offset": 17}}}); of its reply: each channel's position now, and whether
     * what was missed was recovered.
     */
    public static final String RECOVER = "recover";
    public static final String EPOCH = "epoch";
    public static final String OFFSET = "offset";
    public static final String RECOVERED = "recovered";

    private History() {
    }

    /**
     * A place in a channel's stream: the offset of a publication (0: before the first) in an epoch, the name of the
     * stream, which changes whenever its history is lost (a node restarted, a Redis flushed or expired it).
     */
    public record Position(String epoch, long offset) {
        public Position {
            Objects.requireNonNull(epoch, "epoch");
            if (offset < 0) {
                throw new IllegalArgumentException("negative offset " + offset);
            }
        }

        /** As {@code ext.history} carries it. */
        public Map<String, Object> toMap() {
            Map<String, Object> map = new LinkedHashMap<>(4);
            map.put(EPOCH, epoch);
            map.put(OFFSET, offset);
            return map;
        }

        /** From {@code {"epoch": "…", "offset": n}}; null if {@code value} is not one. */
        public static Position from(Object value) {
            if (value instanceof Map<?, ?> map && map.get(EPOCH) instanceof String epoch && !epoch.isEmpty()
                    && epoch.length() <= 64 && map.get(OFFSET) instanceof Number number) {
                long offset = number.longValue();
                if (offset >= 0 && number.doubleValue() == offset) {
                    return new Position(epoch, offset);
                }
            }
            return null;
        }

        /** The position a delivered message carries in {@code ext.history}; null if none. */
        public static Position of(Message message) {
            Map<String, Object> ext = message.getExt();
            return ext == null ? null : from(ext.get(EXT));
        }
    }

    /**
     * What a read of a channel's history after a position found.
     *
     * @param top the channel's position now: its epoch and the offset of its last publication (0 before the first)
     * @param messages the publications after the position asked for, in offset order, each carrying its position in
     *     {@code ext.history}; empty when not complete
     * @param complete whether {@code messages} are every publication after the position asked for: false when the
     *     epoch changed, when some were trimmed or expired, or when there were more than the read's maximum
     */
    public record Page(Position top, List<Message> messages, boolean complete) {
        public Page {
            Objects.requireNonNull(top, "top");
            messages = List.copyOf(messages);
        }
    }
}
