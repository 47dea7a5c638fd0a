package io.weft.server.stress;

import io.weft.bayeux.Message;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.Json;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A long-polling client: each request is an exchange; the held /meta/connect is one exchange that the client may
 * abandon, as a browser whose connection breaks does (whatever answer it then had is lost).
 */
final class PollingStressClient extends StressClient {
    private final InMemoryTransport transport;
    private InMemoryTransport.Exchange held;
    private long heldSince;

    PollingStressClient(InMemoryTransport transport, String name, Role role, boolean acks, long seed, Stage stage) {
        super(name, role, acks, seed, stage);
        this.transport = transport;
    }

    @Override
    protected String connectionType() {
        return "long-polling";
    }

    @Override
    protected Map<String, Object> request(Map<String, Object> message) {
        Object id = message.get(Message.ID);
        List<Map<String, Object>> replies;
        try {
            String body = transport.request(browser, Json.write(List.of(message)))
                    .get(REPLY_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            replies = Json.array(body);
        } catch (TimeoutException x) {
            ledger.problem(name + ": no reply within " + REPLY_WAIT_MILLIS + " ms to " + message);
            return null;
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(x);
        } catch (ExecutionException x) {
            ledger.problem(name + ": the request failed: " + message + ": " + x.getCause());
            return null;
        }
        // What was queued for the session while a poll was held may lead the answer (docs/protocol.md): deliveries,
        // taken as a poll's are; the rest must be the one reply.
        List<Map<String, Object>> deliveries = replies.stream()
                .filter(reply -> !reply.containsKey(Message.SUCCESSFUL)).toList();
        if (!deliveries.isEmpty()) {
            if (acked) {
                ledger.problem(name + ": an acked session got deliveries outside a /meta/connect reply: " + replies);
            }
            ledger.count("deliveries on another request's answer", deliveries.size());
            take(deliveries);
            replies = replies.subList(deliveries.size(), replies.size());
        }
        if (replies.size() != 1 || !id.equals(replies.get(0).get(Message.ID))) {
            ledger.problem(name + ": expected the one reply to " + message + ", got " + replies);
            return replies.stream().filter(reply -> id.equals(reply.get(Message.ID))).findFirst().orElse(null);
        }
        checkForm(replies.get(0));
        return replies.get(0);
    }

    @Override
    protected void pump() {
        if (held != null && held.response().isDone()) {
            takeHeld();
        }
        if (clientId != null && held == null) {
            held = transport.exchange(browser, Json.write(List.of(connectMessage(false))));
            heldSince = System.nanoTime();
        } else if (held != null && TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - heldSince) > REPLY_WAIT_MILLIS) {
            ledger.problem(name + ": a /meta/connect of " + clientId + " held for more than " + REPLY_WAIT_MILLIS
                    + " ms (timeout " + stage.timeout() + ")");
            drop();
        }
    }

    private void takeHeld() {
        InMemoryTransport.Exchange answered = held;
        held = null;
        take(Json.array(answered.response().join()));
    }

    @Override
    protected void awaitConnect(long millis) {
        if (held == null) {
            return;
        }
        try {
            held.response().get(millis, TimeUnit.MILLISECONDS);
            takeHeld();
        } catch (TimeoutException x) {
            // Still held: the caller decides.
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(x);
        } catch (ExecutionException x) {
            ledger.problem(name + ": the /meta/connect exchange failed: " + x.getCause());
            held = null;
        }
    }

    @Override
    protected boolean connecting() {
        return held != null;
    }

    @Override
    protected void drop() {
        if (held != null) {
            held.abandon();
            held = null;
        }
    }

    @Override
    protected void sessionEnded() {
        drop();
    }

    @Override
    protected void idle(long millis) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < until) {
            if (held != null && held.response().isDone()) {
                return;
            }
            sleep(1);
        }
    }

    @Override
    protected void close() {
        drop();
    }
}
