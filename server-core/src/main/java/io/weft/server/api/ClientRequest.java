package io.weft.server.api;

import java.net.InetSocketAddress;
import java.security.Principal;
import java.util.List;
import java.util.Set;

/**
 * What the HTTP request that created a session carried: the {@code /meta/handshake} request over long-polling and
 * callback-polling, the upgrade request of the socket that carried the handshake over websocket. Read it from
 * {@link ServerSession#getRequest()} in a {@link SecurityPolicy}, an {@link Authorizer}, a listener or a service: who
 * the user is ({@link #getUserPrincipal()} where the container authenticated one, the HTTP session the application
 * logged the user into), where the client is, what it sent.
 *
 * <p>A snapshot taken when the request arrived, kept for the session's life; the container's request object itself is
 * never kept. Behind a reverse proxy the address and {@link #isSecure()} are the forwarded ones only where the
 * container is told to trust the proxy (see the user guide). Thread-safe and immutable, except that
 * {@link #getHttpSessionAttribute(String)} reads the live HTTP session.
 */
public interface ClientRequest {
    /** The first value of the header {@code name} (case-insensitive), or null. */
    String getHeader(String name);

    /** Every value of the header {@code name} (case-insensitive), in order; empty if none. */
    List<String> getHeaders(String name);

    /** The names of the headers the request carried. */
    Set<String> getHeaderNames();

    /** The value of the cookie {@code name} the request carried (the first, if several), or null. */
    String getCookie(String name);

    /** The client's address as the container sees it, or null if unknown. */
    InetSocketAddress getRemoteAddress();

    /** Whether the client reached the server over HTTPS (its own TLS, or a trusted proxy's). */
    boolean isSecure();

    /** The user the container authenticated for this request, or null. */
    Principal getUserPrincipal();

    /** The id of the HTTP session the request belonged to, or null if it belonged to none (or the container has none). */
    String getHttpSessionId();

    /**
     * An attribute of the HTTP session the request belonged to, read now, or null (no such attribute, no HTTP session,
     * or the HTTP session has since ended).
     */
    Object getHttpSessionAttribute(String name);
}
