package io.weft.server.internal.app;

import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.Extension;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.util.Guard;
import io.weft.server.internal.util.Steps;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Where extensions run, in their one fixed order. Incoming: the server's extensions in the order added, then the
 * session's. Outgoing: the session's in reverse order, then the server's in reverse order.
 *
 * <p>Outgoing messages that are shared (frozen broadcasts) are never changed in place: the extensions see a copy,
 * and the copy is sent only to this recipient if they changed it; otherwise the shared message, with its one
 * encoding, is sent.
 */
public final class ExtensionChain {
    private final CopyOnWriteArrayList<Extension> server = new CopyOnWriteArrayList<>();
    private final Guard guard;

    public ExtensionChain(Guard guard) {
        this.guard = guard;
    }

    public void add(Extension extension) {
        server.add(extension);
    }

    public void remove(Extension extension) {
        server.remove(extension);
    }

    public List<Extension> list() {
        return List.copyOf(server);
    }

    /**
     * Runs the incoming extensions; {@code next} is told whether the message survived (false: an extension deleted
     * it), once, possibly on another thread.
     *
     * @param from the sender's session, or null (handshake, unknown client)
     */
    public void incoming(SessionImpl from, MessageImpl message, Consumer<Boolean> next) {
        List<Extension> sessionExtensions = from == null ? List.of() : from.extensions();
        if (server.isEmpty() && sessionExtensions.isEmpty()) {
            next.accept(true);
            return;
        }
        new Incoming(from, message, server.toArray(new Extension[0]), sessionExtensions, next).start();
    }

    /** The incoming extensions in turn; one may answer later, on another thread, and the loop goes on there. */
    private final class Incoming extends Steps {
        private final SessionImpl from;
        private final MessageImpl message;
        private final Extension[] serverExtensions;
        private final List<Extension> sessionExtensions;
        private final Consumer<Boolean> next;
        private int index;
        private volatile boolean dropped;

        Incoming(SessionImpl from, MessageImpl message, Extension[] serverExtensions,
                List<Extension> sessionExtensions, Consumer<Boolean> next) {
            this.from = from;
            this.message = message;
            this.serverExtensions = serverExtensions;
            this.sessionExtensions = sessionExtensions;
            this.next = next;
        }

        void start() {
            run();
        }

        @Override
        protected boolean startNext() {
            int total = serverExtensions.length + sessionExtensions.size();
            if (dropped || index == total) {
                next.accept(!dropped);
                return false;
            }
            Extension extension = index < serverExtensions.length
                    ? serverExtensions[index]
                    : sessionExtensions.get(index - serverExtensions.length);
            index++;
            guard.ask("incoming extension " + extension.getClass().getName(),
                    promise -> extension.incoming(from, message, promise), true, keep -> {
                        dropped = !keep;
                        next();
                    });
            return true;
        }
    }

    /**
     * Runs the outgoing extensions for one recipient.
     *
     * @return the message to send (the same one, or this recipient's changed copy), or null if an extension dropped it
     */
    public MessageImpl outgoing(SessionImpl from, SessionImpl to, MessageImpl message) {
        List<Extension> sessionExtensions = to == null ? List.of() : to.extensions();
        if (server.isEmpty() && sessionExtensions.isEmpty()) {
            return message;
        }
        MessageImpl subject = message.isFrozen() ? message.copy() : message;
        for (int i = sessionExtensions.size() - 1; i >= 0; i--) {
            if (!outgoing(sessionExtensions.get(i), from, to, subject)) {
                return null;
            }
        }
        Object[] serverExtensions = server.toArray();
        for (int i = serverExtensions.length - 1; i >= 0; i--) {
            if (!outgoing((Extension) serverExtensions[i], from, to, subject)) {
                return null;
            }
        }
        if (subject != message && subject.sameFields(message)) {
            return message;
        }
        return subject == message ? message : subject.freeze();
    }

    private boolean outgoing(Extension extension, SessionImpl from, SessionImpl to, MessageImpl message) {
        return guard.test("outgoing extension " + extension.getClass().getName(),
                () -> extension.outgoing(from, to, message), true);
    }
}
