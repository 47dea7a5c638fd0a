package io.weft.server.ext;

import io.weft.bayeux.Message;
import io.weft.server.api.Extension;
import io.weft.server.api.ServerSession;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The server side of the official clients' TimeSyncExtension, which estimates the offset between the client's clock
 * and the server's from the handshake and connect exchanges.
 *
 * <p>The client sends {@code ext.timesync = {tc, l, o}}: its send time, its current lag and offset estimates. The
 * reply carries {@code ext.timesync = {tc, ts, p, a}}: {@code tc} echoed, {@code ts} the server time the request
 * arrived, {@code p} how long the server held it (a long-poll is held for up to {@code timeout}), and {@code a} the
 * accuracy of the client's current estimate, {@code tc + o + l - ts}. From these the client computes
 * {@code l = (now - tc - p) / 2} and {@code o = ts - tc - l}. All times are epoch milliseconds.
 *
 * <p>Install once, server-wide: {@code server.addExtension(new TimesyncExtension())}.
 */
public final class TimesyncExtension implements Extension {
    private static final String TIMESYNC = "timesync";
    /** Where the arrival time is kept in the request's own timesync object until the reply leaves. */
    private static final String ARRIVED = "weft.arrived";

    private final LongSupplier clock;

    public TimesyncExtension() {
        this(System::currentTimeMillis);
    }

    /** With a clock of epoch milliseconds, for tests. */
    public TimesyncExtension(LongSupplier clock) {
        this.clock = clock;
    }

    @Override
    public boolean incoming(ServerSession from, Message.Mutable message) {
        Map<String, Object> sync = timesync(message);
        if (message.isMeta() && sync != null) {
            sync.put(ARRIVED, clock.getAsLong());
        }
        return true;
    }

    @Override
    public boolean outgoing(ServerSession from, ServerSession to, Message.Mutable message) {
        Message request = message.getAssociated();
        Map<String, Object> sync = request == null ? null : timesync(request);
        if (!message.isMeta() || sync == null || !(sync.get("tc") instanceof Number tc)
                || !(sync.get(ARRIVED) instanceof Number arrived)) {
            return true;
        }
        long now = clock.getAsLong();
        long lag = sync.get("l") instanceof Number l ? l.longValue() : 0;
        long offset = sync.get("o") instanceof Number o ? o.longValue() : 0;
        Map<String, Object> answer = new LinkedHashMap<>(4);
        answer.put("tc", tc.longValue());
        answer.put("ts", arrived.longValue());
        answer.put("p", now - arrived.longValue());
        answer.put("a", tc.longValue() + offset + lag - arrived.longValue());
        message.getExt(true).put(TIMESYNC, answer);
        return true;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> timesync(Message message) {
        Map<String, Object> ext = message.getExt();
        return ext != null && ext.get(TIMESYNC) instanceof Map<?, ?> sync ? (Map<String, Object>) sync : null;
    }
}
