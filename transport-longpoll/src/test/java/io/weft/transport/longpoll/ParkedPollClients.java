package io.weft.transport.longpoll;

import io.weft.server.testing.Json;
import java.io.IOException;
import java.net.HttpCookie;
import java.net.InetAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * The client side of {@link ParkedPollMemory}, in a JVM of its own so that its sockets do not weigh on the server's
 * heap. Opens N connections, one browser each (its own cookie), and on each: handshake, a connect answered at once,
 * optionally a subscription, then a connect that the server parks. Sends browser-like headers, so that the server's
 * per-connection header handling sees what it would see from a browser. Prints {@code PARKED n}, then holds the
 * connections until its standard input closes.
 *
 * <p>Arguments: {@code uri sessions subscribe(true|false) sourceAddresses}; with more than one source address,
 * connection i binds 127.0.0.(1 + i % sourceAddresses), for when one address runs out of ephemeral ports.
 */
public final class ParkedPollClients {
    private ParkedPollClients() {
    }

    public static void main(String[] args) throws Exception {
        URI uri = URI.create(args[0]);
        int sessions = Integer.parseInt(args[1]);
        boolean subscribe = Boolean.parseBoolean(args[2]);
        int sources = Integer.parseInt(args[3]);
        String origin = "http://" + uri.getHost() + ":" + uri.getPort();
        String headers = "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
                + "Chrome/126.0.0.0 Safari/537.36\r\n"
                + "Accept: */*\r\nAccept-Language: en-US,en;q=0.9\r\nAccept-Encoding: gzip, deflate, br\r\n"
                + "Origin: " + origin + "\r\nReferer: " + origin + "/chat.html\r\nConnection: keep-alive\r\n";

        List<RawHttp> connections = new ArrayList<>(sessions);
        for (int i = 0; i < sessions; i++) {
            InetAddress source = sources > 1 ? InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (1 + i % sources)})
                    : null;
            RawHttp connection = new RawHttp(uri, source, headers);
            connections.add(connection);
            park(connection, subscribe);
            if ((i + 1) % 1000 == 0) {
                System.err.println("parked " + (i + 1));
            }
        }
        System.out.println("PARKED " + sessions);
        System.out.flush();
        while (System.in.read() >= 0) {
            // Hold the connections until the measuring process closes our input.
        }
        for (RawHttp connection : connections) {
            connection.close();
        }
    }

    private static void park(RawHttp connection, boolean subscribe) throws IOException {
        connection.post("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"minimumVersion\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\",\"callback-polling\"],"
                + "\"advice\":{\"timeout\":60000,\"interval\":0},\"id\":\"1\"}]", null);
        String[] handshake = connection.read();
        String cookie = null;
        for (String line : handshake[1].split("\r\n")) {
            if (line.regionMatches(true, 0, "Set-Cookie:", 0, 11)) {
                cookie = HttpCookie.parse(line).get(0).getValue();
            }
        }
        String clientId = (String) Json.array(handshake[2]).get(0).get("clientId");
        if (clientId == null || cookie == null) {
            throw new IOException("handshake failed: " + handshake[1] + handshake[2]);
        }
        connection.post("[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"advice\":{\"timeout\":0},"
                + "\"id\":\"2\",\"clientId\":\"" + clientId + "\"}]", cookie);
        connection.read();
        if (subscribe) {
            connection.post("[{\"channel\":\"/meta/subscribe\",\"subscription\":\"/bench/room\",\"id\":\"3\","
                    + "\"clientId\":\"" + clientId + "\"}]", cookie);
            connection.read();
        }
        connection.post("[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"id\":\"4\","
                + "\"clientId\":\"" + clientId + "\"}]", cookie);
    }
}
