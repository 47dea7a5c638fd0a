package io.weft.server.internal.protocol;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.internal.JsonCodec;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Service;
import io.weft.server.internal.app.ExtensionChain;
import io.weft.server.internal.app.Listeners;
import io.weft.server.internal.channel.ChannelTree;
import io.weft.server.internal.delivery.Publisher;
import io.weft.server.internal.history.Histories;
import io.weft.server.internal.session.SessionRegistry;
import io.weft.server.internal.stats.Counters;
import io.weft.server.internal.util.Guard;
import io.weft.server.internal.util.Refusals;
import java.util.function.Function;

/** The pieces of the server the protocol handlers work with, assembled once by the server. */
public record EngineParts(
        BayeuxServer server,
        JsonCodec codec,
        SessionRegistry sessions,
        ChannelTree tree,
        ExtensionChain extensions,
        Publisher publisher,
        Listeners listeners,
        Guard guard,
        Refusals refusals,
        Counters counters,
        Function<ChannelId, Service> services,
        Histories histories) {
}
