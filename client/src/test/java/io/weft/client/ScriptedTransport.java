package io.weft.client;

import io.weft.bayeux.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A transport without a network whose server is the test: each batch the client sends is taken with {@link #next},
 * and the test answers it with {@link #reply} or {@link #fail}.
 */
final class ScriptedTransport implements ClientTransport {
    private final String name;
    private final boolean persistent;
    private Context context;
    private final BlockingQueue<List<Message.Mutable>> sent = new LinkedBlockingQueue<>();
    volatile int closes;

    ScriptedTransport(String name, boolean persistent) {
        this.name = name;
        this.persistent = persistent;
    }

    ScriptedTransport attach(Context context) {
        this.context = context;
        return this;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean isPersistent() {
        return persistent;
    }

    @Override
    public void send(List<Message.Mutable> batch, long timeoutMillis) {
        sent.add(batch);
    }

    @Override
    public void close() {
        closes++;
    }

    /** The next batch the client sent; fails after 5 s. */
    List<Message.Mutable> next() throws InterruptedException {
        List<Message.Mutable> batch = sent.poll(5, TimeUnit.SECONDS);
        if (batch == null) {
            throw new AssertionError(name + ": the client sent nothing");
        }
        return batch;
    }

    /** The next batch, which must be one message on {@code channel}. */
    Message.Mutable next(String channel) throws InterruptedException {
        List<Message.Mutable> batch = next();
        if (batch.size() != 1 || !channel.equals(batch.get(0).getChannel())) {
            throw new AssertionError(name + ": expected one " + channel + ", got " + batch);
        }
        return batch.get(0);
    }

    boolean sentNothingMore() throws InterruptedException {
        return sent.poll(200, TimeUnit.MILLISECONDS) == null;
    }

    /** Answers {@code request} with replies built from {@code fields} (each gets the request's channel and id). */
    @SafeVarargs
    final void reply(List<Message.Mutable> request, Map<String, Object>... fields) {
        List<Message.Mutable> replies = new ArrayList<>();
        for (int i = 0; i < fields.length; i++) {
            Message.Mutable reply = Messages.of(fields[i]);
            if (reply.getChannel() == null) {
                reply.setChannel(request.get(i).getChannel());
                reply.setId(request.get(i).getId());
            }
            replies.add(reply);
        }
        context.receiver().onMessages(this, replies, persistent ? null : request);
    }

    void reply(Message.Mutable request, Map<String, Object> fields) {
        reply(List.of(request), fields);
    }

    void fail(List<Message.Mutable> request, Throwable cause) {
        context.receiver().onFailure(this, request, cause);
    }

    void fail(Message.Mutable request, Throwable cause) {
        fail(List.of(request), cause);
    }
}
