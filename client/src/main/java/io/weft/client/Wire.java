package io.weft.client;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's two ends of the wire, below the protocol state machine. Out: outgoing extensions, the reply each
 * message waits for, the batch's reply timer (persistent transports), then the transport. In: incoming extensions,
 * replies to their handlers, deliveries to listeners, and failures to the handlers of what was lost. Handlers and
 * listeners run on the calling thread, which never holds the client's lock here.
 */
final class Wire implements ClientTransport.Receiver {
    private static final Logger LOG = LoggerFactory.getLogger(Wire.class);

    /** A message to send and where its reply goes: success with the reply (successful or not), failure without one. */
    record Outgoing(Message.Mutable message, Promise<Message> handler) {
    }

    private final BayeuxClient client;
    private final List<ClientExtension> extensions;
    private final List<TrafficListener> traffic;
    private final ScheduledExecutorService scheduler;
    private final Listeners listeners;
    private final Listeners subscribers;
    private final PendingReplies pending = new PendingReplies();

    Wire(BayeuxClient client, List<ClientExtension> extensions, List<TrafficListener> traffic,
            ScheduledExecutorService scheduler, Listeners listeners, Listeners subscribers) {
        this.client = client;
        this.extensions = extensions;
        this.traffic = traffic;
        this.scheduler = scheduler;
        this.listeners = listeners;
        this.subscribers = subscribers;
    }

    /** Sends one batch over {@code transport}; every message's handler hears of its reply or its loss. */
    void send(ClientTransport transport, List<Outgoing> batch, long timeoutMillis) {
        List<Outgoing> kept = new ArrayList<>(batch.size());
        for (Outgoing outgoing : batch) {
            if (outgoingExtensions(outgoing.message())) {
                kept.add(outgoing);
            } else {
                complete(outgoing.handler(),
                        new IOException("message dropped by an extension: " + outgoing.message().getChannel()));
            }
        }
        if (kept.isEmpty()) {
            return;
        }
        List<Message.Mutable> messages = new ArrayList<>(kept.size());
        List<PendingReplies.Pending> entries = new ArrayList<>(kept.size());
        PendingReplies.Batch timer = transport.isPersistent() ? new PendingReplies.Batch(kept.size()) : null;
        for (Outgoing outgoing : kept) {
            Message.Mutable message = outgoing.message();
            messages.add(message);
            PendingReplies.Pending entry = new PendingReplies.Pending(message, transport, outgoing.handler(), timer);
            entries.add(entry);
            pending.add(entry);
        }
        if (timer != null) {
            timer.timer(scheduler.schedule(() -> expire(transport, entries), timeoutMillis, TimeUnit.MILLISECONDS));
        }
        for (TrafficListener listener : traffic) {
            try {
                listener.onSend(client, messages);
            } catch (RuntimeException x) {
                LOG.info("Traffic listener {} failed: {}", listener, x.toString());
            }
        }
        transport.send(messages, timeoutMillis);
    }

    /** A persistent transport's replies did not come in time: the connection is presumed dead and is closed. */
    private void expire(ClientTransport transport, List<PendingReplies.Pending> entries) {
        boolean expired = false;
        for (PendingReplies.Pending entry : entries) {
            if (pending.take(entry.id()) != null) {
                expired = true;
                complete(entry.handler(), new TimeoutException("no reply to " + entry.id() + " in time"));
            }
        }
        if (expired) {
            transport.close();
        }
    }

    @Override
    public void onMessages(ClientTransport transport, List<Message.Mutable> messages, List<Message.Mutable> request) {
        List<Message.Mutable> accepted = new ArrayList<>(messages.size());
        for (Message.Mutable message : messages) {
            if (incomingExtensions(message)) {
                accepted.add(message);
            }
        }
        for (TrafficListener listener : traffic) {
            try {
                listener.onReceive(client, accepted);
            } catch (RuntimeException x) {
                LOG.info("Traffic listener {} failed: {}", listener, x.toString());
            }
        }
        for (Message.Mutable message : accepted) {
            if (message.isMeta() || message.containsKey(Message.SUCCESSFUL)) {
                PendingReplies.Pending entry = pending.take(message.getId());
                if (entry != null) {
                    message.setAssociated(entry.request());
                    complete(entry.handler(), message);
                } else if (message.isMeta()) {
                    client.onUnsolicited(message);
                }
                if (message.isMeta()) {
                    listeners.dispatch(message);
                }
            } else {
                subscribers.dispatch(message);
                listeners.dispatch(message);
            }
        }
        if (request != null) {
            for (Message.Mutable sent : request) {
                PendingReplies.Pending entry = pending.take(sent.getId());
                if (entry != null) {
                    complete(entry.handler(), new IOException("no reply to " + sent.getChannel() + " in the response"));
                }
            }
        }
    }

    @Override
    public void onFailure(ClientTransport transport, List<Message.Mutable> batch, Throwable cause) {
        LOG.debug("Batch lost on {}: {}", transport.name(), cause.toString());
        for (Message.Mutable message : batch) {
            PendingReplies.Pending entry = pending.take(message.getId());
            if (entry != null) {
                complete(entry.handler(), cause);
            }
        }
    }

    @Override
    public void onClosed(ClientTransport transport, Throwable cause) {
        for (PendingReplies.Pending entry : pending.takeAll(transport)) {
            complete(entry.handler(), cause);
        }
    }

    /** Fails every reply still awaited, on any transport (the client is terminating). */
    void failAll(Throwable cause) {
        for (PendingReplies.Pending entry : pending.takeAll(null)) {
            complete(entry.handler(), cause);
        }
    }

    private boolean outgoingExtensions(Message.Mutable message) {
        for (ClientExtension extension : extensions) {
            try {
                if (!extension.outgoing(client, message)) {
                    return false;
                }
            } catch (RuntimeException x) {
                LOG.info("Extension {} failed on outgoing {}: {}", extension, message.getChannel(), x.toString());
            }
        }
        return true;
    }

    private boolean incomingExtensions(Message.Mutable message) {
        for (ClientExtension extension : extensions) {
            try {
                if (!extension.incoming(client, message)) {
                    return false;
                }
            } catch (RuntimeException x) {
                LOG.info("Extension {} failed on incoming {}: {}", extension, message.getChannel(), x.toString());
            }
        }
        return true;
    }

    static void complete(Promise<Message> handler, Message reply) {
        try {
            handler.succeed(reply);
        } catch (RuntimeException x) {
            LOG.info("Reply callback {} failed: {}", handler, x.toString());
        }
    }

    static void complete(Promise<Message> handler, Throwable failure) {
        try {
            handler.fail(failure);
        } catch (RuntimeException x) {
            LOG.info("Reply callback {} failed: {}", handler, x.toString());
        }
    }
}
