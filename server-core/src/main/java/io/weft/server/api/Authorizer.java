package io.weft.server.api;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import java.util.Objects;

/**
 * Decides an operation on a channel, for the channel it is added to and every channel its wildcard covers
 * (an authorizer on {@code /chat/**} is asked about {@code /chat/room7}). Added with
 * {@link ServerChannel#addAuthorizer(Authorizer)}.
 *
 * <p>How answers combine, over the authorizers of the channel and of its wildcard ancestors: any {@link Result#deny}
 * wins, and its reason travels to the client ({@code 403:<reason>:publish_denied}); otherwise, if any authorizer
 * exists and none granted, the answer is deny; with no authorizers at all, the security policy alone decides. The
 * security policy is asked first; authorizers refine what it allows.
 *
 * <p>Called on the thread processing the client's message; must not block. An authorizer that throws is logged once
 * and counts as a deny.
 */
@FunctionalInterface
public interface Authorizer {
    /** What a client wants to do. CREATE is asked when a subscription would create the channel. */
    enum Operation { CREATE, SUBSCRIBE, PUBLISH }

    Result authorize(Operation operation, ChannelId channel, ServerSession session, Message message);

    /** An authorizer's answer. */
    final class Result {
        private static final Result GRANT = new Result(Kind.GRANT, null);
        private static final Result IGNORE = new Result(Kind.IGNORE, null);
        private static final Result DENY = new Result(Kind.DENY, null);

        private enum Kind { GRANT, IGNORE, DENY }

        private final Kind kind;
        private final String reason;

        private Result(Kind kind, String reason) {
            this.kind = kind;
            this.reason = reason;
        }

        /** Allows the operation, unless another authorizer denies it. */
        public static Result grant() {
            return GRANT;
        }

        /** No opinion. */
        public static Result ignore() {
            return IGNORE;
        }

        public static Result deny() {
            return DENY;
        }

        /** Denies the operation, telling the client why. */
        public static Result deny(String reason) {
            return new Result(Kind.DENY, Objects.requireNonNull(reason, "reason"));
        }

        public boolean isGranted() {
            return kind == Kind.GRANT;
        }

        public boolean isDenied() {
            return kind == Kind.DENY;
        }

        /** Why it was denied, or null. */
        public String reason() {
            return reason;
        }

        @Override
        public String toString() {
            return reason == null ? kind.name() : kind + "(" + reason + ")";
        }
    }
}
