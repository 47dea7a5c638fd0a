package io.weft.transport.longpoll;

import io.weft.server.api.BayeuxServer;
import io.weft.server.spi.Engine;
import io.weft.transport.common.PollingTransport;
import java.util.Objects;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The {@code long-polling} and {@code callback-polling} transports as a Jetty 12 core {@link Handler}, for embedded
 * servers: every request that reaches it is a Bayeux request. Mount it under the path the clients use, for example
 * {@code new ContextHandler(new LongPollingHandler(bayeux), "/cometd")}.
 *
 * <p>Jetty calls {@link #handle} on its own threads; it never blocks, and a held {@code /meta/connect} keeps no thread
 * (only its connection and a little state) until the engine answers it. Thread-safe.
 */
public final class LongPollingHandler extends Handler.Abstract {
    private final PollingTransport transport;
    private final ParkedConnectionWatch watch = new ParkedConnectionWatch();

    /** Mounts the polling transports on {@code server}: its handshake replies will announce them. */
    public LongPollingHandler(BayeuxServer server) {
        this.transport = new PollingTransport(Engine.of(Objects.requireNonNull(server, "server")), true);
    }

    /** With the exchange's deadlines shortened, for tests; see {@link PollingTransport}. */
    LongPollingHandler(BayeuxServer server, long bodyMillis, long graceMillis) {
        this.transport = new PollingTransport(Engine.of(Objects.requireNonNull(server, "server")), bodyMillis,
                graceMillis, true);
    }

    /** HTTP/1 requests handed to the engine and not answered yet (parked polls, mostly); for tests and benchmarks. */
    int waitingRequests() {
        return watch.size();
    }

    /** Guards the server's connectors (connections per address, request-head deadlines), once per server. */
    @Override
    protected void doStart() throws Exception {
        ConnectionGuard.installOn(getServer(), transport.engine());
        super.doStart();
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        transport.handle(new JettyExchange(request, response, callback, watch));
        return true;
    }
}
