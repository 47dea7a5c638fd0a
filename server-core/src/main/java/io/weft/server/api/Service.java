package io.weft.server.api;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import java.util.Objects;
import java.util.function.BiFunction;

/**
 * A request/response handler bound to a {@code /service/**} channel with {@link BayeuxServer#addService}: a client
 * publishes a request there, and instead of a bare acknowledgement its reply carries the service's answer, to that
 * client only: {@code {channel, id, successful: true, data: <answer>}}. This is what the official JavaScript
 * client's {@code remoteCall} expects, and the shape of device RPC.
 *
 * <p>Called on the thread processing the client's message, after the security policy, authorizers and channel
 * listeners. Must not block: complete {@code answer} later if the work waits. Failing the promise (or throwing)
 * answers {@code 500::service_failed}; the exception goes to the log, not to the client.
 */
@FunctionalInterface
public interface Service {
    void handle(ServerSession from, Message request, Promise<Object> answer);

    /** A service that answers at once with what {@code function} returns. */
    static Service of(BiFunction<ServerSession, Message, Object> function) {
        Objects.requireNonNull(function, "function");
        return (from, request, answer) -> answer.succeed(function.apply(from, request));
    }
}
