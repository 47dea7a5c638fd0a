package io.weft.transport.websocket;

import jakarta.websocket.CloseReason;
import jakarta.websocket.EndpointConfig;
import jakarta.websocket.MessageHandler;
import jakarta.websocket.RemoteEndpoint;
import jakarta.websocket.SendHandler;
import jakarta.websocket.SendResult;
import jakarta.websocket.Session;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A Jakarta WebSocket {@link Session} without a socket, for testing {@link WebSocketEndpoint} alone: it keeps the
 * handlers the endpoint adds (the test delivers messages through them, as a container would), records the settings
 * and the text messages sent, and either completes each send at once or keeps its handler for the test to complete
 * ({@link #holdWrites}). It enforces the API's rule of one asynchronous send at a time.
 */
final class FakeSession {
    private final Session session;
    private final EndpointConfig config;
    private final Map<String, Object> userProperties = new HashMap<>();
    private final Map<Class<?>, MessageHandler.Whole<Object>> handlers = new HashMap<>();
    private final Map<String, Object> settings = new HashMap<>();
    private final List<String> texts = new ArrayList<>();
    private final ArrayDeque<SendHandler> heldWrites = new ArrayDeque<>();
    private boolean holdWrites;
    private boolean sending;
    private CloseReason closed;

    FakeSession() {
        RemoteEndpoint.Async remote = (RemoteEndpoint.Async) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {RemoteEndpoint.Async.class}, (proxy, method, args) -> {
                    if (method.getName().equals("sendText") && args.length == 2) {
                        send((String) args[0], (SendHandler) args[1]);
                        return null;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        this.session = (Session) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Session.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getAsyncRemote" -> remote;
                    case "isOpen" -> isOpen();
                    case "close" -> close((CloseReason) args[0]);
                    case "addMessageHandler" -> addHandler((Class<?>) args[0], args[1]);
                    case "setMaxTextMessageBufferSize", "setMaxBinaryMessageBufferSize", "setMaxIdleTimeout" ->
                            set(method.getName(), args[0]);
                    case "toString" -> "FakeSession";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        this.config = (EndpointConfig) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {EndpointConfig.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getUserProperties")) {
                        return userProperties;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    Session session() {
        return session;
    }

    EndpointConfig config() {
        return config;
    }

    /** What the endpoint set on the session, by setter name. */
    synchronized Object setting(String setter) {
        return settings.get(setter);
    }

    /** From now on, sends complete only when the test says so. */
    synchronized FakeSession holdWrites() {
        holdWrites = true;
        return this;
    }

    /** The container delivers a text message to the endpoint's handler. */
    void text(String message) {
        handler(String.class).onMessage(message);
    }

    /** The container delivers a binary message to the endpoint's handler. */
    void binary(byte[] message) {
        handler(ByteBuffer.class).onMessage(ByteBuffer.wrap(message));
    }

    private synchronized MessageHandler.Whole<Object> handler(Class<?> type) {
        MessageHandler.Whole<Object> handler = handlers.get(type);
        if (handler == null) {
            throw new AssertionError("no handler for " + type.getSimpleName());
        }
        return handler;
    }

    /** Completes the oldest held send, successfully. */
    void completeWrite() {
        SendHandler handler;
        synchronized (this) {
            handler = heldWrites.pollFirst();
            sending = false;
        }
        if (handler == null) {
            throw new AssertionError("no held write");
        }
        handler.onResult(new SendResult(session));
    }

    synchronized int heldWrites() {
        return heldWrites.size();
    }

    synchronized List<String> texts() {
        return List.copyOf(texts);
    }

    /** The close code the endpoint closed with, or -1. */
    synchronized int closeCode() {
        return closed == null ? -1 : closed.getCloseCode().getCode();
    }

    synchronized String closeReason() {
        return closed == null ? null : closed.getReasonPhrase();
    }

    private void send(String text, SendHandler handler) {
        synchronized (this) {
            if (sending) {
                throw new IllegalStateException("a send is already in progress (the Jakarta API allows one)");
            }
            texts.add(text);
            if (holdWrites) {
                sending = true;
                heldWrites.addLast(handler);
                return;
            }
        }
        handler.onResult(new SendResult(session));
    }

    private synchronized boolean isOpen() {
        return closed == null;
    }

    private synchronized Object close(CloseReason reason) {
        if (closed == null) {
            closed = reason;
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    private synchronized Object addHandler(Class<?> type, Object handler) {
        handlers.put(type, (MessageHandler.Whole<Object>) handler);
        return null;
    }

    private synchronized Object set(String setter, Object value) {
        settings.put(setter, value);
        return null;
    }
}
