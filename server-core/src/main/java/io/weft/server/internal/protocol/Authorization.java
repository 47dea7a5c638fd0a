package io.weft.server.internal.protocol;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.api.Authorizer;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.SecurityPolicy;
import io.weft.server.internal.channel.ChannelNode;
import io.weft.server.internal.channel.ChannelTree;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.util.Guard;
import java.util.function.Consumer;

/**
 * May this client do this to this channel? The security policy first (it may answer asynchronously), then the
 * authorizers of the channel and of its wildcards: any deny wins and its reason travels to the client; if any
 * authorizer exists and none grants, deny. Subscribing to a channel that does not exist yet asks about creating it
 * first. Local
 * sessions (server code) are not asked.
 */
final class Authorization {
    private final BayeuxServer server;
    private final ChannelTree tree;
    private final Guard guard;

    Authorization(BayeuxServer server, ChannelTree tree, Guard guard) {
        this.server = server;
        this.tree = tree;
        this.guard = guard;
    }

    /**
     * @param done told null if allowed, or the error to answer with
     */
    void check(Authorizer.Operation operation, SessionImpl session, ChannelId channel, Message message,
            Consumer<BayeuxError> done) {
        if (session.isLocal()) {
            done.accept(null);
            return;
        }
        // Only a subscription creates a channel; a publish to a channel nobody holds just reaches nobody.
        if (operation == Authorizer.Operation.SUBSCRIBE && tree.get(channel) == null) {
            decide(Authorizer.Operation.CREATE, session, channel, message, createError -> {
                if (createError != null) {
                    done.accept(createError);
                } else {
                    decide(operation, session, channel, message, done);
                }
            });
        } else {
            decide(operation, session, channel, message, done);
        }
    }

    private void decide(Authorizer.Operation operation, SessionImpl session, ChannelId channel, Message message,
            Consumer<BayeuxError> done) {
        BayeuxError denied = switch (operation) {
            case CREATE -> BayeuxError.CREATE_DENIED;
            case SUBSCRIBE -> BayeuxError.SUBSCRIBE_DENIED;
            case PUBLISH -> BayeuxError.PUBLISH_DENIED;
        };
        SecurityPolicy policy = server.getSecurityPolicy();
        guard.ask("security policy " + operation, promise -> ask(policy, operation, session, channel, message, promise),
                false, allowed -> done.accept(allowed ? authorizers(operation, session, channel, message, denied) : denied));
    }

    private void ask(SecurityPolicy policy, Authorizer.Operation operation, SessionImpl session, ChannelId channel,
            Message message, Promise<Boolean> promise) {
        switch (operation) {
            case CREATE -> policy.canCreate(server, session, channel, message, promise);
            case SUBSCRIBE -> policy.canSubscribe(server, session, channel, message, promise);
            case PUBLISH -> policy.canPublish(server, session, channel, message, promise);
        }
    }

    private BayeuxError authorizers(Authorizer.Operation operation, SessionImpl session, ChannelId channel,
            Message message, BayeuxError denied) {
        boolean any = false;
        boolean granted = false;
        for (ChannelNode node : tree.matchingAll(channel)) {
            for (Authorizer authorizer : node.getAuthorizers()) {
                any = true;
                Authorizer.Result result = result(authorizer, operation, session, channel, message);
                if (result.isDenied()) {
                    return result.reason() == null ? denied : denied.withReason(result.reason());
                }
                granted |= result.isGranted();
            }
        }
        return any && !granted ? denied : null;
    }

    private Authorizer.Result result(Authorizer authorizer, Authorizer.Operation operation, SessionImpl session,
            ChannelId channel, Message message) {
        Authorizer.Result[] result = {Authorizer.Result.deny()};
        guard.run("authorizer " + authorizer.getClass().getName(), () -> {
            Authorizer.Result answer = authorizer.authorize(operation, channel, session, message);
            result[0] = answer == null ? Authorizer.Result.deny() : answer;
        });
        return result[0];
    }
}
