package io.weft.transport.netty;

import java.net.http.WebSocket;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;

/** A test client's websocket listener: each whole text message (its fragments joined) goes on a queue. */
final class TextMessages implements WebSocket.Listener {
    private final BlockingQueue<String> messages;
    private final StringBuilder text = new StringBuilder();

    TextMessages(BlockingQueue<String> messages) {
        this.messages = messages;
    }

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
        text.append(data);
        if (last) {
            messages.add(text.toString());
            text.setLength(0);
        }
        webSocket.request(1);
        return null;
    }
}
