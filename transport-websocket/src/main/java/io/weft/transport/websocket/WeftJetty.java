package io.weft.transport.websocket;

import io.weft.server.api.BayeuxServer;
import io.weft.transport.longpoll.LongPollingHandler;
import java.util.Objects;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ContextHandler;

/**
 * Weft on an embedded Jetty 12 server in one call: {@code websocket}, {@code long-polling} and
 * {@code callback-polling} on one path, in front of whatever the server handled before.
 *
 * <pre>
 * Server
 *  └ WebSocketHandler              upgrades on path/* become websocket connections
 *     └ Handler.Sequence           every other request
 *        ├ ContextHandler(path)     LongPollingHandler: long-polling and callback-polling
 *        └ the server's handler before the mount, if it had one (the application's own contexts)
 * </pre>
 *
 * <p>Call it while assembling the server, before starting it: set the application's own handler first (if any), mount,
 * then put in front the handlers that must see every request (metrics, say) with Jetty's
 * {@code server.insertHandler(wrapper)}. The clients are given {@code http://host:port/path} (the path itself is
 * served, without a redirect to {@code path/}); the official clients derive the {@code ws://} address from it.
 *
 * <p>It needs {@code transport-longpoll} and {@code org.eclipse.jetty.websocket:jetty-websocket-core-server}, which
 * this module has as optional dependencies (a WAR needs neither): an application that embeds Jetty declares both.
 * An application that composes its handlers otherwise (its own WebSocket endpoints, a Servlet context) mounts the
 * parts itself: {@link WebSocketTransport#install} and a {@link LongPollingHandler} under a {@link ContextHandler}, as
 * this class does.
 */
public final class WeftJetty {
    private WeftJetty() {
    }

    /**
     * Mounts all three connection types on {@code path} ({@code /cometd}: no trailing slash, no wildcard; {@code /}
     * takes every request) and makes them the server's handler, in front of the one it had.
     *
     * @return the handler now at the front of the server's chain, which takes the upgrades
     */
    public static WebSocketHandler mount(Server server, BayeuxServer bayeux, String path) {
        mountWithoutWebSocket(server, bayeux, checked(path));
        WebSocketHandler webSocket = WebSocketTransport.install(bayeux, server, pathSpec(path));
        // Not server.insertHandler(webSocket): an upgrade handler starts with a next handler of its own.
        webSocket.setHandler(server.getHandler());
        server.setHandler(webSocket);
        return webSocket;
    }

    /**
     * Mounts {@code long-polling} and {@code callback-polling} only (as behind a proxy that blocks upgrades; handshakes
     * do not offer websocket) on {@code path}, in front of the server's handler.
     *
     * @return the context that serves the path
     */
    public static ContextHandler mountWithoutWebSocket(Server server, BayeuxServer bayeux, String path) {
        ContextHandler polling = new ContextHandler(checked(path));
        polling.setHandler(new LongPollingHandler(bayeux));
        polling.setAllowNullPathInContext(true); // clients post to /cometd itself: no redirect to /cometd/
        Handler before = server.getHandler();
        server.setHandler(before == null ? polling : new Handler.Sequence(polling, before));
        return polling;
    }

    private static String checked(String path) {
        Objects.requireNonNull(path, "path");
        boolean valid = path.equals("/") || (path.startsWith("/") && !path.endsWith("/") && path.indexOf('*') < 0);
        if (!valid) {
            throw new IllegalArgumentException("path must be / or start with / and end without one, as /cometd: "
                    + path);
        }
        return path;
    }

    /** The upgrade handler's path spec for {@code path}: {@code /cometd/*} matches {@code /cometd} itself too. */
    private static String pathSpec(String path) {
        return path.equals("/") ? "/*" : path + "/*";
    }
}
