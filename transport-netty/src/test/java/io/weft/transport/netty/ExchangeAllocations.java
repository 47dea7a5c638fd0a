package io.weft.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerOptions;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How many bytes the Netty mount allocates for one long-polling exchange, as a browser makes it: the server publishes
 * a message, and a {@code /meta/connect} POST (with a browser's headers and the browser cookie) takes it. The
 * connection's pipeline is the real one (head clock, codec, idle handler, router, the engine behind it) on an embedded
 * channel, so every byte counted is allocated on this thread: the publish, the request's decoding, the engine's work,
 * the answer's encoding. Not a test (allocation figures depend on the JVM and its JIT): a measuring tool, run as
 *
 * <pre>
 * java -cp &lt;test classpath&gt; io.weft.transport.netty.ExchangeAllocations [exchanges]
 * </pre>
 *
 * It prints the bytes per exchange of five rounds after a warm-up; compare them before and after a change. With C2
 * the figure moves by about 100 bytes from one JVM to the next (what its escape analysis removes depends on what it
 * chose to inline): take the median of several runs. With {@code -XX:TieredStopAtLevel=1} (C1 only, no escape analysis)
 * every object the code makes is counted, and the figure is the same run after run, to a few bytes.
 */
public final class ExchangeAllocations {
    private static final Pattern CLIENT_ID = Pattern.compile("\"clientId\":\"([^\"]+)\"");
    private static final Pattern COOKIE = Pattern.compile("Set-Cookie: (BAYEUX_BROWSER=[^;\r]+)");

    private final BayeuxServer bayeux = BayeuxServer.create(ServerOptions.defaults());
    private final Mount mount = new Mount(bayeux, "/cometd", null, Fallback.NOT_FOUND, null);
    private final EmbeddedChannel channel = new EmbeddedChannel(new HeadClock(mount.engine), ConnectionSetup.codec(),
            new IdleStateHandler(0, 0, Mount.IDLE_MILLIS, TimeUnit.MILLISECONDS), new HttpRouter(mount));
    private final ServerChannel room = bayeux.createChannelIfAbsent("/chat/room", created -> { });
    private final Map<String, Object> data = Map.of("text", "hello from the room", "user", "ann");
    private byte[] connect;

    private ExchangeAllocations() {
    }

    public static void main(String[] args) {
        int exchanges = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
        ExchangeAllocations run = new ExchangeAllocations();
        try {
            run.start();
            run.exchanges(2 * exchanges); // warm-up: the JIT compiles the path
            for (int round = 1; round <= 5; round++) {
                System.out.printf("round %d: %,d bytes per exchange%n", round, run.measure(exchanges));
            }
        } finally {
            run.channel.finishAndReleaseAll();
            run.bayeux.close();
        }
    }

    /** A handshake and a subscription; then the connect the rounds repeat. */
    private void start() {
        String handshake = answer(request("/cometd/handshake", null, "[{\"channel\":\"/meta/handshake\","
                + "\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"],\"id\":\"1\"}]"));
        Matcher id = CLIENT_ID.matcher(handshake);
        Matcher cookie = COOKIE.matcher(handshake);
        if (!id.find() || !cookie.find()) {
            throw new IllegalStateException("no clientId or cookie in " + handshake);
        }
        String clientId = id.group(1);
        answer(request("/cometd/subscribe", cookie.group(1), "[{\"channel\":\"/meta/subscribe\",\"clientId\":\""
                + clientId + "\",\"subscription\":\"/chat/room\",\"id\":\"2\"}]"));
        connect = request("/cometd/connect", cookie.group(1), "[{\"channel\":\"/meta/connect\",\"clientId\":\""
                + clientId + "\",\"connectionType\":\"long-polling\",\"id\":\"5\"}]");
        String first = exchange();
        if (!first.startsWith("HTTP/1.1 200 OK") || !first.contains("hello from the room")) {
            throw new IllegalStateException("the connect did not take the message: " + first);
        }
    }

    /** The bytes this thread allocates for {@code exchanges} exchanges, per exchange. */
    private long measure(int exchanges) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(thread);
        exchanges(exchanges);
        long after = threads.getThreadAllocatedBytes(thread);
        String last = exchange();
        if (!last.startsWith("HTTP/1.1 200 OK") || !last.contains("hello from the room")) {
            throw new IllegalStateException("the connect did not take the message: " + last);
        }
        return (after - before) / exchanges;
    }

    private void exchanges(int count) {
        for (int i = 0; i < count; i++) {
            room.publish(null, data);
            send(connect);
            ByteBuf out;
            int parts = 0;
            while ((out = channel.readOutbound()) != null) {
                out.release();
                parts++;
            }
            if (parts == 0) {
                throw new IllegalStateException("no answer to exchange " + i);
            }
        }
    }

    /** One publish and one connect, with the answer as text. */
    private String exchange() {
        room.publish(null, data);
        return answer(connect);
    }

    private String answer(byte[] request) {
        send(request);
        StringBuilder text = new StringBuilder();
        ByteBuf out;
        while ((out = channel.readOutbound()) != null) {
            text.append(out.toString(StandardCharsets.UTF_8));
            out.release();
        }
        return text.toString();
    }

    /** The request's bytes in a buffer of the channel's allocator, as a socket read gives them. */
    private void send(byte[] request) {
        ByteBuf in = channel.alloc().buffer(request.length);
        in.writeBytes(request);
        channel.writeInbound(in);
    }

    /** A POST as a browser sends it: its usual headers, and the browser cookie once it has one. */
    private static byte[] request(String path, String cookie, String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        String head = "POST " + path + " HTTP/1.1\r\n"
                + "Host: localhost:8080\r\n"
                + "Connection: keep-alive\r\n"
                + "Content-Length: " + body.length + "\r\n"
                + "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0\r\n"
                + "Content-Type: application/json;charset=UTF-8\r\n"
                + "Accept: */*\r\n"
                + "Accept-Encoding: gzip, deflate, br\r\n"
                + "Accept-Language: en-US,en;q=0.5\r\n"
                + "Origin: http://localhost:8080\r\n"
                + "Referer: http://localhost:8080/chat/\r\n"
                + (cookie == null ? "" : "Cookie: " + cookie + "\r\n")
                + "\r\n";
        byte[] headBytes = head.getBytes(StandardCharsets.US_ASCII);
        byte[] whole = new byte[headBytes.length + body.length];
        System.arraycopy(headBytes, 0, whole, 0, headBytes.length);
        System.arraycopy(body, 0, whole, headBytes.length, body.length);
        return whole;
    }
}
