package io.weft.transport.longpoll;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** HTTP/1.1 over a plain socket, for what HttpClient will not do: pipelining, exact bytes on the wire. */
final class RawHttp implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final URI uri;
    private final String extraHeaders;

    RawHttp(URI uri) throws IOException {
        this(uri, null, "");
    }

    /**
     * @param localAddress the source address to connect from, or null for any
     * @param extraHeaders more header lines sent with every request, each ending with CRLF
     */
    RawHttp(URI uri, InetAddress localAddress, String extraHeaders) throws IOException {
        this.uri = uri;
        this.extraHeaders = extraHeaders;
        this.socket = new Socket();
        if (localAddress != null) {
            socket.bind(new InetSocketAddress(localAddress, 0));
        }
        socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 10_000);
        this.socket.setSoTimeout(10_000);
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    /** Writes a POST of a JSON body, without waiting for anything. */
    void post(String json, String cookie) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        String head = postHead("Content-Length: " + body.length, cookie);
        // One write, so the server reads the whole request at once and nothing of the next one with it.
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.write(head.getBytes(StandardCharsets.US_ASCII));
        request.write(body);
        out.write(request.toByteArray());
        out.flush();
    }

    /**
     * Writes the head of a POST and the first part of its body, the rest never sent: {@code framing} is the header
     * line that says how long the body is (a Content-Length or {@code Transfer-Encoding: chunked}), without its CRLF.
     */
    void postUnfinished(String framing, String bodyStart) throws IOException {
        out.write((postHead(framing, null) + bodyStart).getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** The head of a JSON POST, up to and including the blank line; {@code framing} says how long the body is. */
    private String postHead(String framing, String cookie) {
        return "POST " + uri.getPath() + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                + "\r\nContent-Type: application/json\r\n" + framing + "\r\n" + extraHeaders
                + (cookie == null ? "" : "Cookie: BAYEUX_BROWSER=" + cookie + "\r\n") + "\r\n";
    }

    /** Writes {@code text} as it is (ISO-8859-1), without waiting for anything. */
    void write(String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    /** Waits (at most the socket's 10 s timeout) for the server to close the connection, with nothing more sent. */
    void awaitClosedByServer() throws IOException {
        byte[] more = in.readAllBytes();
        if (more.length > 0) {
            throw new IOException("expected the server to close the connection, got more bytes: "
                    + new String(more, StandardCharsets.ISO_8859_1));
        }
    }

    /** Reads one response (status line, headers, a Content-Length body). */
    String[] read() throws IOException {
        String head = readHead();
        int length = 0;
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        byte[] body = in.readNBytes(length);
        return new String[] {head.substring(0, head.indexOf("\r\n")), head, new String(body, StandardCharsets.UTF_8)};
    }

    private String readHead() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed after " + head);
            }
            head.write(b);
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.US_ASCII);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
