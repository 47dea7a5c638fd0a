package io.weft.transport.websocket;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.SocketAddress;
import java.nio.channels.ReadPendingException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;

/**
 * A Jetty {@link Session} without a socket, for testing {@link WebSocketEndpoint} alone. It keeps Jetty's demand rule
 * (one frame per demand; a second demand while one is outstanding throws {@link ReadPendingException}), records the
 * text frames and pongs written, and either completes each write at once or keeps its callback for the test to
 * complete ({@link #holdWrites}).
 */
final class FakeSession implements InvocationHandler {
    private final SocketAddress remote;
    private final Session session;
    private final List<String> texts = new ArrayList<>();
    private final ArrayDeque<Callback> heldWrites = new ArrayDeque<>();
    private boolean holdWrites;
    private boolean demanded;
    private int demands;
    private int pongs;
    private int closeCode = -1;
    private String closeReason;
    private Callback closeCallback;

    private FakeSession(SocketAddress remote) {
        this.remote = remote;
        this.session = (Session) Proxy.newProxyInstance(Session.class.getClassLoader(), new Class<?>[] {Session.class},
                this);
    }

    static FakeSession from(SocketAddress remote) {
        return new FakeSession(remote);
    }

    Session session() {
        return session;
    }

    /** From now on, writes (text frames, pongs, the close frame) complete only when the test says so. */
    synchronized FakeSession holdWrites() {
        holdWrites = true;
        return this;
    }

    /** Jetty delivers a frame: it uses up the outstanding demand. Fails if none was outstanding. */
    synchronized void deliver() {
        if (!demanded) {
            throw new AssertionError("a frame was delivered without demand");
        }
        demanded = false;
    }

    synchronized boolean demanded() {
        return demanded;
    }

    synchronized int demands() {
        return demands;
    }

    synchronized List<String> texts() {
        return List.copyOf(texts);
    }

    synchronized int pongs() {
        return pongs;
    }

    synchronized int heldWrites() {
        return heldWrites.size();
    }

    synchronized int closeCode() {
        return closeCode;
    }

    synchronized String closeReason() {
        return closeReason;
    }

    /** Completes the oldest held write, as Jetty's write callback would once the bytes are out. */
    void completeWrite() {
        Callback write;
        synchronized (this) {
            write = heldWrites.poll();
        }
        if (write == null) {
            throw new AssertionError("no write is waiting");
        }
        write.succeed();
    }

    /** Completes the close frame's write. */
    void completeClose() {
        Callback close;
        synchronized (this) {
            close = closeCallback;
            closeCallback = null;
        }
        close.succeed();
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) {
        switch (method.getName()) {
            case "demand" -> {
                synchronized (this) {
                    if (demanded) {
                        throw new ReadPendingException();
                    }
                    demanded = true;
                    demands++;
                }
                return null;
            }
            case "sendText" -> {
                synchronized (this) {
                    texts.add((String) args[0]);
                }
                written((Callback) args[1]);
                return null;
            }
            case "sendPong" -> {
                synchronized (this) {
                    pongs++;
                }
                written((Callback) args[1]);
                return null;
            }
            case "close" -> {
                if (args != null && args.length == 3) {
                    closed((Integer) args[0], (String) args[1], (Callback) args[2]);
                }
                return null;
            }
            case "isOpen" -> {
                synchronized (this) {
                    return closeCode < 0;
                }
            }
            case "getRemoteSocketAddress" -> {
                return remote;
            }
            case "toString" -> {
                return "FakeSession[" + remote + "]";
            }
            case "hashCode" -> {
                return System.identityHashCode(proxy);
            }
            case "equals" -> {
                return proxy == args[0];
            }
            default -> {
                return method.getReturnType() == boolean.class ? Boolean.FALSE : null;
            }
        }
    }

    private void closed(int code, String reason, Callback callback) {
        synchronized (this) {
            if (closeCode >= 0) {
                throw new AssertionError("closed twice: " + closeCode + " then " + code);
            }
            closeCode = code;
            closeReason = reason;
            if (holdWrites) {
                closeCallback = callback;
                return;
            }
        }
        callback.succeed();
    }

    private void written(Callback callback) {
        synchronized (this) {
            if (holdWrites) {
                heldWrites.add(callback);
                return;
            }
        }
        callback.succeed();
    }
}
