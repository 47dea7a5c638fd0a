package io.weft.cluster.redis;

import java.util.concurrent.atomic.LongAdder;

/** A broker's counts, as its threads add to them; {@link RedisBroker#stats()} reads them. */
final class Counters {
    final LongAdder published = new LongAdder();
    final LongAdder publishFailures = new LongAdder();
    final LongAdder received = new LongAdder();
    final LongAdder droppedOwn = new LongAdder();
    final LongAdder copies = new LongAdder();
    final LongAdder unwanted = new LongAdder();
    final LongAdder unreadable = new LongAdder();
    final LongAdder reconnects = new LongAdder();
    final LongAdder subscribeFailures = new LongAdder();
    final LongAdder historyReads = new LongAdder();
    final LongAdder historyReadFailures = new LongAdder();
    final LongAdder historyGaps = new LongAdder();
}
