package io.weft.transport.websocket;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.transport.common.WebSockets;
import org.eclipse.jetty.server.Server;

/**
 * The Bayeux {@code websocket} connection type, on the standard Jakarta WebSocket API: it runs in any Servlet 6
 * container with a Jakarta WebSocket 2.1+ container (Jetty 12, Tomcat 10.1+).
 *
 * <pre>
 * transport (HTTP body / WebSocket frame)   &lt;-- this module: one text message in = one batch,
 *   -&gt; JSON decode -&gt; extensions -&gt; ...          one engine write out = one text message
 * </pre>
 *
 * <p>Two ways to mount it. In a web application (a WAR, Spring Boot), {@link WebSocketServletMount#mount} from a
 * {@code ServletContextListener}: Weft's {@link UpgradeFilter} on the path checks the upgrade's origin, reads or sets
 * the browser cookie, copies what the request carried, and upgrades through the container's
 * {@code ServerContainer.upgradeHttpToWebSocket}, one {@link WebSocketEndpoint} per socket. On embedded Jetty,
 * {@link #install}: a {@link WebSocketHandler} in front of long-polling does the same on Jetty's core WebSocket API,
 * which costs less memory per socket than Jetty's Jakarta sessions. Both hand each socket to a Bayeux socket of
 * transport-common, configured from the server's {@link ServerOptions} as {@link WebSockets} says.
 */
public final class WebSocketTransport {
    /** The Bayeux connection type this transport serves. */
    public static final String CONNECTION_TYPE = WebSockets.CONNECTION_TYPE;

    private WebSocketTransport() {
    }

    /**
     * The handler that mounts this transport on an embedded Jetty {@code server} without Servlet contexts: WebSocket
     * upgrades on {@code pathSpec} (for example {@code /cometd/*}) become Bayeux connections, and every other request
     * goes to the handler set with {@link WebSocketHandler#setHandler} (long-polling, usually). Call it once while
     * assembling the server, before starting it.
     */
    public static WebSocketHandler install(BayeuxServer bayeux, Server server, String pathSpec) {
        return new WebSocketHandler(WebSockets.of(bayeux), server, pathSpec);
    }
}
