package io.weft.examples.guide;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.LocalSession;
import java.util.Map;

/** The user guide's LocalSession snippet: a bot in the chat that answers "ping" in any room. */
public final class ChatBot {
    private ChatBot() {
    }

    public static LocalSession start(BayeuxServer bayeux) {
        // tag::local-session[]
        LocalSession bot = bayeux.newLocalSession("ping-bot");
        bot.handshake();
        bot.subscribe("/chat/*", message -> {
            Map<String, Object> data = message.getDataAsMap();
            if (data != null && "ping".equals(data.get("text"))) {
                // runs on the publisher's thread: publish and return, never block here
                bot.publish(message.getChannel(), Map.of("type", "chat", "user", "ping-bot", "text", "pong",
                        "time", System.currentTimeMillis()));
            }
        });
        // end::local-session[]
        return bot;
    }
}
