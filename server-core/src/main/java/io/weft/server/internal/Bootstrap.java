package io.weft.server.internal;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Scheduler;
import io.weft.server.api.ServerOptions;
import io.weft.server.internal.time.ExecutorScheduler;
import io.weft.server.spi.Broker;
import io.weft.server.spi.Engine;

/**
 * The one way from the public packages ({@code api}, {@code spi}) to the implementation: their static factories call
 * these, and nothing else of theirs names an internal class (server-core's {@code ArchitectureTest} holds them to it).
 */
public final class Bootstrap {
    private Bootstrap() {
    }

    /** A server with its own scheduler thread, stopped when the server closes. */
    public static BayeuxServer server(ServerOptions options) {
        return new BayeuxServerImpl(options, new ExecutorScheduler("weft-scheduler"), true);
    }

    /** A server on the caller's scheduler, which the caller stops. */
    public static BayeuxServer server(ServerOptions options, Scheduler scheduler) {
        return new BayeuxServerImpl(options, scheduler, false);
    }

    /** The engine of a server made here. */
    public static Engine engine(BayeuxServer server) {
        if (!(server instanceof BayeuxServerImpl impl)) {
            throw new IllegalArgumentException("not a Weft server: " + server);
        }
        return impl.engine();
    }

    /** Installs a cluster broker on a server made here. */
    public static void install(BayeuxServer server, Broker broker) {
        if (!(server instanceof BayeuxServerImpl impl)) {
            throw new IllegalArgumentException("not a Weft server: " + server);
        }
        impl.install(broker);
    }
}
