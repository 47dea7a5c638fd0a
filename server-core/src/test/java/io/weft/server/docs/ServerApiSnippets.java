package io.weft.server.docs;

import io.weft.bayeux.Message;
import io.weft.server.api.Authorizer;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.EndReason;
import io.weft.server.api.Extension;
import io.weft.server.api.LocalSession;
import io.weft.server.api.SecurityPolicy;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.api.Service;
import io.weft.server.ext.AcknowledgedMessagesExtension;
import io.weft.server.ext.TimesyncExtension;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The code shown in docs/server-api.md, compiled and exercised by {@link ServerApiSnippetsTest}. Each snippet sits
 * between {@code tag::name[]} and {@code end::name[]} comments; the docs test checks that the page shows each one
 * exactly as it is here.
 */
final class ServerApiSnippets {
    private ServerApiSnippets() {
    }

    static BayeuxServer create() {
        // tag::create[]
        ServerOptions options = ServerOptions.builder()
                .timeout(20_000)          // hold /meta/connect for 20 s
                .maxInterval(10_000)      // forget a client 10 s after it stops connecting
                .maxQueue(1_000)          // per session; the oldest message goes first
                .build();
        BayeuxServer server = BayeuxServer.create(options);
        server.addExtension(new AcknowledgedMessagesExtension());   // for clients that ask for acks
        server.addExtension(new TimesyncExtension());
        // end::create[]
        return server;
    }

    // tag::policy[]
    /** Only clients that present a known token in the handshake's ext may connect. */
    static final class TokenPolicy implements SecurityPolicy {
        private final Set<String> tokens;

        TokenPolicy(Set<String> tokens) {
            this.tokens = tokens;
        }

        @Override
        public boolean canHandshake(BayeuxServer server, ServerSession session, Message handshake) {
            Map<String, Object> ext = handshake.getExt();
            return ext != null && tokens.contains(ext.get("token"));
        }
    }
    // end::policy[]

    static void authorize(BayeuxServer server) {
        // tag::authorizer[]
        server.createChannelIfAbsent("/members/**", channel -> {
            channel.setPersistent(true);
            channel.addAuthorizer((operation, channelId, session, message) ->
                    session.getAttribute("member") != null
                            ? Authorizer.Result.grant()
                            : Authorizer.Result.deny("members only"));   // 403:members only:publish_denied
        });
        // end::authorizer[]
    }

    static void moderate(BayeuxServer server) {
        // tag::listener[]
        server.createChannelIfAbsent("/chat/**", channel -> {
            channel.setPersistent(true);
            channel.addListener((ServerChannel.MessageListener) (from, ch, message) -> {
                Map<String, Object> data = message.getDataAsMap();
                if (data == null || String.valueOf(data.get("text")).contains("spam")) {
                    return false;                     // vetoed: the publisher gets 404::message_deleted
                }
                Map<String, Object> stamped = new HashMap<>(data);
                stamped.put("at", System.currentTimeMillis());
                message.setData(stamped);             // changed before anyone receives it
                return true;
            });
        });
        // end::listener[]
    }

    static void presence(BayeuxServer server) {
        // tag::sessions[]
        server.addListener(new BayeuxServer.SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, Message handshake) {
                session.setAttribute("joined", System.currentTimeMillis());
            }

            @Override
            public void sessionRemoved(ServerSession session, EndReason reason) {
                boolean vanished = reason == EndReason.TIMED_OUT;   // closed the tab vs. said goodbye
                System.out.println(session.getId() + (vanished ? " timed out" : " left"));
            }
        });
        // end::sessions[]
    }

    static void services(BayeuxServer server) {
        // tag::service[]
        server.addService("/service/time", Service.of((from, request) ->
                Map.of("now", System.currentTimeMillis())));

        server.addService("/service/lookup", (from, request, answer) ->
                // Answer later, from any thread, without blocking the caller's thread:
                CompletableFuture.supplyAsync(() -> Map.of("user", String.valueOf(request.getData())))
                        .whenComplete((result, failure) -> {
                            if (failure != null) {
                                answer.fail(failure);       // the client gets 500::service_failed
                            } else {
                                answer.succeed(result);
                            }
                        }));
        // end::service[]
    }

    static LocalSession bot(BayeuxServer server) {
        // tag::local[]
        LocalSession bot = server.newLocalSession("echo-bot");
        bot.handshake();
        bot.subscribe("/chat/lobby", message -> {
            Map<String, Object> data = message.getDataAsMap();
            if (data != null && !"bot".equals(data.get("user"))) {
                bot.publish("/chat/lobby", Map.of("user", "bot", "text", "you said: " + data.get("text")));
            }
        });
        // end::local[]
        return bot;
    }

    static void extension(BayeuxServer server) {
        // tag::extension[]
        server.addExtension(new Extension() {
            @Override
            public boolean incoming(ServerSession from, Message.Mutable message) {
                // Every message from clients passes here first; returning false deletes it.
                return !"/chat/closed".equals(message.getChannel());
            }

            @Override
            public boolean outgoing(ServerSession from, ServerSession to, Message.Mutable message) {
                if (to != null && "/meta/handshake".equals(message.getChannel())) {
                    message.getExt(true).put("motd", "welcome");
                }
                return true;
            }
        });
        // end::extension[]
    }

    static void direct(BayeuxServer server, String clientId) {
        // tag::deliver[]
        ServerSession session = server.getSession(clientId);
        if (session != null) {
            // To this client only, on a channel it need not have subscribed to:
            session.deliver(null, "/private/notice", Map.of("text", "your export is ready"));
        }
        // end::deliver[]
    }

    static void lazy(BayeuxServer server) {
        // tag::lazy[]
        server.createChannelIfAbsent("/stock/ticks", channel -> {
            channel.setPersistent(true);
            channel.setLazy(true);            // do not wake a held poll for each tick...
            channel.setLazyTimeout(500);      // ...but send within half a second
        });
        server.getChannel("/stock/ticks").publish(null, Map.of("symbol", "WEFT", "price", 42.0));
        // end::lazy[]
    }
}
