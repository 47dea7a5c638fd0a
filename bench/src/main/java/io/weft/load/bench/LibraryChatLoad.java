package io.weft.load.bench;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.client.MessageListener;
import java.util.LinkedHashMap;
import java.util.Map;

/** The ladder's chat clients on {@code io.weft.client}, over websocket or long-polling. */
final class LibraryChatLoad implements ChatLoad, MessageListener {
    private final Cohort cohort;
    private final Arrivals arrivals;

    private LibraryChatLoad(Cohort cohort, Arrivals arrivals) {
        this.cohort = cohort;
        this.arrivals = arrivals;
    }

    static LibraryChatLoad open(ClientOptions options, int clients, int rooms, Arrivals arrivals) throws Exception {
        Cohort cohort = options.cohort();
        LibraryChatLoad load = new LibraryChatLoad(cohort, arrivals);
        try {
            int ready = cohort.connect(clients, (index, client, done) -> client.subscribe(
                    ChatLoad.channel(index % rooms), load, Cohort.successOnly(done)));
            if (ready < clients) {
                throw new IllegalStateException("only " + ready + " of " + clients + " clients connected");
            }
            return load;
        } catch (Exception | Error x) {
            cohort.close();
            throw x;
        }
    }

    @Override
    public void publish(int from, int room, long sentNanos, String padding) {
        Map<String, Object> data = new LinkedHashMap<>(2);
        data.put("t", sentNanos);
        data.put("p", padding);
        cohort.get(from).publish(ChatLoad.channel(room), data, Promise.noop());
    }

    @Override
    public long[] batches() {
        return new long[] {cohort.batchesSent(), cohort.batchesReceived()};
    }

    @Override
    public void onMessage(Message message) {
        long now = System.nanoTime();
        Object data = message.getData();
        long sent = data instanceof Map<?, ?> map && map.get("t") instanceof Number t ? t.longValue() : Long.MIN_VALUE;
        arrivals.arrived(sent, now);
    }

    @Override
    public void close() {
        cohort.close();
    }
}
