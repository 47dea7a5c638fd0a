package io.weft.load.floor;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Iterator;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/** One selector thread: reads its connections, and writes what other threads could not finish writing to them. */
final class FloorLoop implements Runnable {
    private static final long TICK_MS = 500;

    private final FloorBayeux bayeux;
    private final Selector selector;
    private final Thread thread;
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    FloorLoop(int index, FloorBayeux bayeux) throws IOException {
        this.bayeux = bayeux;
        this.selector = Selector.open();
        this.thread = new Thread(this, "floor-loop-" + index);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void adopt(SocketChannel socket) {
        execute(() -> {
            try {
                socket.configureBlocking(false);
                socket.socket().setTcpNoDelay(true);
                SelectionKey key = socket.register(selector, SelectionKey.OP_READ);
                key.attach(new FloorConn(socket, key, this, bayeux));
            } catch (IOException x) {
                closeQuietly(socket);
            }
        });
    }

    /** Runs {@code task} on this loop's thread. */
    void execute(Runnable task) {
        tasks.add(task);
        selector.wakeup();
    }

    @Override
    public void run() {
        long nextTick = System.nanoTime();
        try {
            while (!closed) {
                selector.select(TICK_MS);
                Runnable task;
                while ((task = tasks.poll()) != null) {
                    task.run();
                }
                Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                while (keys.hasNext()) {
                    SelectionKey key = keys.next();
                    keys.remove();
                    FloorConn conn = (FloorConn) key.attachment();
                    if (!key.isValid()) {
                        conn.close();
                        continue;
                    }
                    if (key.isWritable()) {
                        conn.flush();
                    }
                    if (key.isValid() && key.isReadable()) {
                        conn.read();
                    }
                }
                long now = System.nanoTime();
                if (now - nextTick >= 0) {
                    nextTick = now + TICK_MS * 1_000_000L;
                    for (SelectionKey key : selector.keys()) {
                        if (key.attachment() instanceof FloorConn conn) {
                            conn.tick(now);
                        }
                    }
                }
            }
        } catch (IOException x) {
            System.err.println("floor: selector failed: " + x);
        } finally {
            for (SelectionKey key : selector.keys()) {
                if (key.attachment() instanceof FloorConn conn) {
                    conn.close();
                }
            }
            try {
                selector.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    void close() {
        closed = true;
        selector.wakeup();
    }

    static void closeQuietly(SocketChannel socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
