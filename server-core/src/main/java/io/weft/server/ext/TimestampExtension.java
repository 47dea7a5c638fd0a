package io.weft.server.ext;

import io.weft.bayeux.Message;
import io.weft.server.api.Extension;
import io.weft.server.api.ServerSession;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.function.Supplier;

/**
 * Stamps messages with the server's time in a {@code timestamp} field (RFC 1123, as the Bayeux timestamp extension
 * has it, e.g. {@code Sun, 22 Nov 2026 13:05:00 GMT}): every reply as it leaves, and every publish as it arrives, so
 * that a broadcast carries one timestamp and is still encoded once for all its subscribers.
 *
 * <p>Install once, server-wide: {@code server.addExtension(new TimestampExtension())}.
 */
public final class TimestampExtension implements Extension {
    private static final DateTimeFormatter FORMAT = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);

    private final Supplier<Instant> clock;

    public TimestampExtension() {
        this(Instant::now);
    }

    /** With a clock, for tests. */
    public TimestampExtension(Supplier<Instant> clock) {
        this.clock = clock;
    }

    @Override
    public boolean incoming(ServerSession from, Message.Mutable message) {
        if (!message.isMeta()) {
            stamp(message);
        }
        return true;
    }

    @Override
    public boolean outgoing(ServerSession from, ServerSession to, Message.Mutable message) {
        if (message.getAssociated() != null) {
            stamp(message);
        }
        return true;
    }

    private void stamp(Message.Mutable message) {
        message.put(Message.TIMESTAMP, FORMAT.format(clock.get()));
    }
}
