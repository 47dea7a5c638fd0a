package io.weft.transport.longpoll;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.client.Request;

/**
 * A scripted Bayeux client over long-polling: raw JSON out, parsed replies back, so tests read as the conversation
 * a client has with the server.
 */
final class BayeuxConversation {
    private final Browser browser;
    private String clientId;
    private int nextId = 1;

    BayeuxConversation(Browser browser) {
        this.browser = browser;
    }

    Browser browser() {
        return browser;
    }

    String clientId() {
        return clientId;
    }

    /** Handshakes; remembers the clientId of a successful reply. */
    Reply handshake() throws Exception {
        Reply reply = browser.send(browser.post("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"],\"id\":\"" + (nextId++) + "\"}]"));
        Object id = reply.message().get("clientId");
        if (id instanceof String value) {
            clientId = value;
        }
        return reply;
    }

    /** A {@code /meta/connect} with advice timeout 0: answered at once. */
    Reply connectNow() throws Exception {
        return browser.send(browser.post(connectJson(",\"advice\":{\"timeout\":0}")));
    }

    /** A {@code /meta/connect} the server may hold, not yet sent. */
    Request connectRequest() {
        return browser.post(connectJson(""));
    }

    CompletableFuture<Reply> connect() {
        return browser.sendAsync(connectRequest());
    }

    private String connectJson(String advice) {
        return "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + clientId
                + "\"" + advice + ",\"id\":\"" + (nextId++) + "\"}]";
    }

    Map<String, Object> subscribe(String channel) throws Exception {
        return browser.send(browser.post("[{\"channel\":\"/meta/subscribe\",\"subscription\":\"" + channel
                + "\",\"clientId\":\"" + clientId + "\",\"id\":\"" + (nextId++) + "\"}]")).message();
    }

    Map<String, Object> unsubscribe(String channel) throws Exception {
        return browser.send(browser.post("[{\"channel\":\"/meta/unsubscribe\",\"subscription\":\"" + channel
                + "\",\"clientId\":\"" + clientId + "\",\"id\":\"" + (nextId++) + "\"}]")).message();
    }

    Reply publish(String channel, String dataJson) throws Exception {
        return browser.send(browser.post("[{\"channel\":\"" + channel + "\",\"data\":" + dataJson
                + ",\"clientId\":\"" + clientId + "\",\"id\":\"" + (nextId++) + "\"}]"));
    }

    Map<String, Object> disconnect() throws Exception {
        return browser.send(browser.post("[{\"channel\":\"/meta/disconnect\",\"clientId\":\"" + clientId
                + "\",\"id\":\"" + (nextId++) + "\"}]")).message();
    }
}
