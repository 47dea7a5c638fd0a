package io.weft.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.transport.netty.testing.NettyLeaks;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The router on an embedded channel behind Netty's HTTP codec: answers in the order requests came, even pipelined in
 * one packet; what the codec cannot make a request of is refused with a 4xx and the connection closed.
 */
class HttpRouterTest {
    @RegisterExtension
    static final NettyLeaks leaks = new NettyLeaks();
    private static final String HANDSHAKE = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
            + "\"supportedConnectionTypes\":[\"long-polling\"]}]";

    private final BayeuxServer bayeux = BayeuxServer.create(ServerOptions.defaults());
    private final EmbeddedChannel channel = new EmbeddedChannel(
            ConnectionSetup.codec(),
            new HttpRouter(new Mount(bayeux, "/cometd", null, Fallback.NOT_FOUND, null)));

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
        bayeux.close();
    }

    private static String post(String path, String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length + "\r\n\r\n" + json;
    }

    /** Everything written back so far, as text. */
    private String written() {
        StringBuilder text = new StringBuilder();
        ByteBuf out;
        while ((out = channel.readOutbound()) != null) {
            text.append(out.toString(StandardCharsets.UTF_8));
            out.release();
        }
        return text.toString();
    }

    /** The status line of each response, wherever it starts (a body ends without a line break). */
    private static List<String> statusLines(String text) {
        List<String> lines = new ArrayList<>();
        Matcher status = Pattern.compile("HTTP/1\\.1 \\d{3}[^\r]*").matcher(text);
        while (status.find()) {
            lines.add(status.group());
        }
        return lines;
    }

    @Test
    void pipelinedRequestsAreAnsweredInTheOrderTheyCame() {
        channel.writeInbound(Unpooled.copiedBuffer(post("/cometd", HANDSHAKE) + post("/elsewhere", "{}")
                + post("/cometd", HANDSHAKE), StandardCharsets.UTF_8));
        channel.runPendingTasks();
        String text = written();
        assertEquals(List.of("HTTP/1.1 200 OK", "HTTP/1.1 404 Not Found", "HTTP/1.1 200 OK"), statusLines(text), text);
        assertEquals(2, bayeux.getSessions().size());
        assertTrue(channel.isOpen(), "kept alive");
    }

    @Test
    void eachRequestOnAConnectionIsJudgedByItsOwnHost() {
        String sameOrigin = "POST /cometd HTTP/1.1\r\nHost: a.example\r\nOrigin: http://a.example\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + HANDSHAKE.length() + "\r\n\r\n" + HANDSHAKE;
        channel.writeInbound(Unpooled.copiedBuffer(sameOrigin, StandardCharsets.UTF_8));
        channel.runPendingTasks();
        String first = written();
        assertEquals(List.of("HTTP/1.1 200 OK"), statusLines(first), first);
        assertFalse(first.contains("Access-Control-Allow-Origin"), first);
        channel.writeInbound(Unpooled.copiedBuffer(sameOrigin.replace("Host: a.example", "Host: b.example"),
                StandardCharsets.UTF_8));
        channel.runPendingTasks();
        String second = written();
        assertEquals(List.of("HTTP/1.1 403 Forbidden"), statusLines(second), "a.example is foreign to b.example");
    }

    @Test
    void aChunkedBodyMayEndWithTrailers() {
        String request = "POST /cometd HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n" + Integer.toHexString(HANDSHAKE.length()) + "\r\n" + HANDSHAKE
                + "\r\n0\r\nX-Trace: one\r\nX-Span: two\r\nX-Hop: three\r\n\r\n";
        channel.writeInbound(Unpooled.copiedBuffer(request, StandardCharsets.UTF_8));
        channel.runPendingTasks();
        String text = written();
        assertEquals(List.of("HTTP/1.1 200 OK"), statusLines(text), text);
        assertEquals(1, bayeux.getSessions().size());
    }

    @Test
    void aTrailerWithAMalformedNameIs400AndCloses() {
        String request = "POST /cometd HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n" + Integer.toHexString(HANDSHAKE.length()) + "\r\n" + HANDSHAKE
                + "\r\n0\r\nX Trace: one\r\n\r\n";
        channel.writeInbound(Unpooled.copiedBuffer(request, StandardCharsets.UTF_8));
        channel.runPendingTasks();
        String text = written();
        assertEquals(List.of("HTTP/1.1 400 Bad Request"), statusLines(text), text);
        assertFalse(channel.isOpen());
    }

    @Test
    void aMalformedRequestLineIs400AndCloses() {
        channel.writeInbound(Unpooled.copiedBuffer("BREW /cometd COFFEE/1.0 \u0001\r\n\r\n", StandardCharsets.UTF_8));
        String text = written();
        assertTrue(text.startsWith("HTTP/1.1 400"), text);
        assertFalse(channel.isOpen());
    }

    @Test
    void headersPastTheBoundAre431AndClose() {
        channel.writeInbound(Unpooled.copiedBuffer("GET /cometd HTTP/1.1\r\nHost: x\r\nX-Big: " + "b".repeat(9000)
                + "\r\n\r\n", StandardCharsets.UTF_8));
        String text = written();
        assertTrue(text.startsWith("HTTP/1.1 431"), text);
        assertFalse(channel.isOpen());
    }

    @Test
    void aBodyLargerThanMaxMessageSizeIs413AndTheConnectionCloses() {
        channel.writeInbound(Unpooled.copiedBuffer(post("/cometd", "[\"" + "x".repeat(70_000) + "\"]"),
                StandardCharsets.UTF_8));
        channel.runPendingTasks();
        String text = written();
        assertTrue(text.startsWith("HTTP/1.1 413"), text);
        assertFalse(channel.isOpen(), "the rest of the body is not read: the connection cannot go on");
    }
}
