package io.weft.load;

/**
 * One run of the scenario: how many batches, how big, how often. Immutable.
 *
 * @param clients how many simulated clients take part
 * @param batches how many batches are sent
 * @param batchSize messages per batch (one request or frame)
 * @param batchPauseMicros the pause between two batches' intended send times, in microseconds
 * @param messageSize the size of each message's chat text, in characters
 * @param randomize pick each batch's sender at random rather than in turn
 */
public record RunConfig(int clients, int batches, int batchSize, long batchPauseMicros, int messageSize,
        boolean randomize) {
    public RunConfig {
        LoadConfig.requireAtLeast("clients", clients, 1);
        LoadConfig.requireAtLeast("batch count", batches, 1);
        LoadConfig.requireAtLeast("batch size", batchSize, 1);
        LoadConfig.requireAtLeast("batch pause", batchPauseMicros, 0);
        LoadConfig.requireAtLeast("message size", messageSize, 0);
    }

    public long messages() {
        return (long) batches * batchSize;
    }
}
