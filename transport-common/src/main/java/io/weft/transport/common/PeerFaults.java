package io.weft.transport.common;

import io.weft.server.spi.QuietLog;

/**
 * The log lines of the failures any peer can cause at will, without even a handshake: each kind is written at INFO the
 * first time, then summed up at most once a minute ({@link QuietLog}), so that a peer repeating one cannot flood the
 * log. One per transport (per server), shared by its sockets; the lines come from {@link BayeuxSocket}'s logger.
 */
final class PeerFaults {
    private final QuietLog notBatches = quiet("frames that were not Bayeux batches (1003)");
    private final QuietLog overLimits = quiet("batches over maxMessagesPerBatch or maxJsonDepth (1009)");
    private final QuietLog binaries = quiet("binary frames (1003)");
    private final QuietLog tooLarge = quiet("frames over maxMessageSize (1009)");
    private final QuietLog pendingFrames = quiet("sockets that did not read their frames (1008)");

    private static QuietLog quiet(String kind) {
        return new QuietLog(BayeuxSocket.class, kind);
    }

    void notBatch(Object remote, String reason) {
        notBatches.log("closing websocket from {} (1003): not a Bayeux batch: {}", remote, reason);
    }

    void overLimit(Object remote, String reason) {
        overLimits.log("closing websocket from {} (1009): {}", remote, reason);
    }

    void binary(Object remote, Object bytes) {
        binaries.log("closing websocket from {} (1003): binary frame ({} bytes); Bayeux is JSON text", remote, bytes);
    }

    void tooLarge(Object remote, String reason) {
        tooLarge.log("closing websocket from {} (1009): {}", remote, reason);
    }

    void pendingFrames(Object remote, Object max) {
        pendingFrames.log("closing websocket from {} (1008): more than {} answers or batches waited to be written "
                + "(maxPendingFrames); the client does not read them", remote, max);
    }
}
