package io.weft.client;

import java.util.Objects;

/**
 * What the server answered a subscribe that asked to recover a channel (docs/protocol.md, "History and recovery"): the
 * client had a position in {@code channel}, a channel that keeps history, and subscribed to {@code subscription} (the
 * channel itself or a wildcard over it) after a new handshake. {@code recovered} says whether every message published
 * there since was delivered again (before any newer one, each once); when false they are lost, and the application
 * decides what to do (reload its state, tell the user). {@code epoch} and {@code offset} are the channel's position
 * now; null and -1 when the server could not read the channel's history (then {@code recovered} is false).
 */
public record Recovery(String channel, String subscription, boolean recovered, String epoch, long offset) {
    public Recovery {
        Objects.requireNonNull(channel, "channel");
    }
}
