package io.weft.client;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which transport a client uses. The handshake goes over the first transport that has not failed; a transport that
 * fails before it ever worked for this client (a refused WebSocket upgrade) is set aside and the next one is tried at
 * once; when every one has failed, all are tried again. After a handshake, the connect loop uses the first of the
 * client's transports, in order of preference, that the server offers. Not thread-safe: used under the session's lock.
 */
final class Negotiation {
    private final List<ClientTransport> transports;
    private final Set<ClientTransport> failed = new HashSet<>();
    private final Set<ClientTransport> worked = new HashSet<>();

    Negotiation(List<ClientTransport> transports) {
        if (transports.isEmpty()) {
            throw new IllegalArgumentException("no transport");
        }
        this.transports = List.copyOf(transports);
    }

    List<ClientTransport> all() {
        return transports;
    }

    /** The transport for the next handshake. */
    ClientTransport forHandshake() {
        if (failed.containsAll(transports)) {
            failed.clear();
        }
        return transports.stream().filter(t -> !failed.contains(t)).findFirst().orElseThrow();
    }

    /** The connection types to offer in the next handshake, in order of preference. */
    List<String> offered() {
        List<String> types = new ArrayList<>();
        for (ClientTransport candidate : transports) {
            if (!failed.contains(candidate)) {
                types.add(candidate.name());
            }
        }
        return types;
    }

    /** {@code transport} carried a successful handshake. */
    void worked(ClientTransport transport) {
        worked.add(transport);
    }

    /**
     * {@code via} failed to carry a handshake. @return whether to fall back to another transport at once (it never
     * worked, and another one has not failed yet)
     */
    boolean fallBackFrom(ClientTransport via) {
        boolean fallBack = !worked.contains(via)
                && transports.stream().anyMatch(t -> t != via && !failed.contains(t));
        if (fallBack) {
            failed.add(via);
        }
        return fallBack;
    }

    /**
     * The transport for the connect loop, given the handshake reply's {@code supportedConnectionTypes}; null when
     * the client and the server have none in common. A reply without the list keeps {@code current}.
     */
    ClientTransport choose(Object offeredByServer, ClientTransport current) {
        if (!(offeredByServer instanceof List<?> types)) {
            return current;
        }
        for (ClientTransport candidate : transports) {
            if (!failed.contains(candidate) && types.contains(candidate.name())) {
                return candidate;
            }
        }
        return null;
    }
}
