package io.weft.server.internal.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The default scheduler's thread ends with {@code close}: a web application that closes its server when it is
 * undeployed leaves no thread behind (Tomcat reports one as a leak).
 */
@Timeout(30)
class ExecutorSchedulerTest {
    private static boolean alive(String threadName) {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(thread -> thread.getName().equals(threadName) && thread.isAlive());
    }

    @Test
    void closeReturnsOnceTheThreadHasEnded() throws Exception {
        String name = "scheduler-" + UUID.randomUUID();
        ExecutorScheduler scheduler = new ExecutorScheduler(name);
        CountDownLatch ran = new CountDownLatch(1);
        scheduler.schedule(ran::countDown, 0);
        assertTrue(ran.await(5, TimeUnit.SECONDS));
        scheduler.schedule(() -> { }, 60_000);
        assertTrue(alive(name));

        scheduler.close();

        assertFalse(alive(name), "the scheduler's thread is still running after close");
    }

    @Test
    void aTaskThatClosesItsSchedulerDoesNotWaitForItself() throws Exception {
        String name = "scheduler-" + UUID.randomUUID();
        ExecutorScheduler scheduler = new ExecutorScheduler(name);
        CompletableFuture<Void> closed = new CompletableFuture<>();
        scheduler.schedule(() -> {
            scheduler.close();
            closed.complete(null);
        }, 0);
        // Waiting for itself would take the close's two 5 s waits.
        closed.get(3, TimeUnit.SECONDS);
        scheduler.close();
        assertFalse(alive(name));
        assertEquals(false, scheduler.schedule(() -> { }, 0).cancel(), "a closed scheduler takes no task");
    }
}
