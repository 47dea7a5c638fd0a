package io.weft.client;

import io.weft.bayeux.Message;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpStatus;

/**
 * The {@code long-polling} connection type: each batch is one POST of a JSON array, answered by a JSON array. A held
 * {@code /meta/connect} is one request the server answers late, so its timeouts (total and idle) are the server's
 * timeout plus the network delay, given by the client per batch. Cookies come from the client's own jar, never from
 * the shared HttpClient's store.
 */
final class LongPollingTransport implements ClientTransport {
    static final String NAME = "long-polling";
    private static final String CONTENT_TYPE = "application/json;charset=UTF-8";

    private final HttpClient http;
    private final Context context;
    private final URI uri;
    private final Set<Request> inFlight = ConcurrentHashMap.newKeySet();

    LongPollingTransport(HttpClient http, Context context) {
        this.http = http;
        this.context = context;
        this.uri = URI.create(context.url());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean isPersistent() {
        return false;
    }

    @Override
    public void send(List<Message.Mutable> batch, long timeoutMillis) {
        byte[] body;
        try {
            body = Messages.encode(batch);
        } catch (RuntimeException x) {
            context.receiver().onFailure(this, batch, x);
            return;
        }
        Request request = http.newRequest(uri)
                .method(HttpMethod.POST)
                .followRedirects(false)
                .body(new BytesRequestContent(CONTENT_TYPE, body))
                .timeout(timeoutMillis, TimeUnit.MILLISECONDS)
                .idleTimeout(timeoutMillis, TimeUnit.MILLISECONDS);
        String cookie = context.cookies().header(uri);
        if (cookie != null) {
            request.headers(headers -> headers.put(HttpHeader.COOKIE, cookie));
        }
        inFlight.add(request);
        request.send(new Exchange(request, batch));
    }

    @Override
    public void close() {
        IOException closed = new IOException("transport closed");
        for (Request request : inFlight) {
            request.abort(closed);
        }
    }

    private final class Exchange extends BufferingResponseListener {
        private final Request request;
        private final List<Message.Mutable> batch;

        Exchange(Request request, List<Message.Mutable> batch) {
            super(context.maxMessageSize());
            this.request = request;
            this.batch = batch;
        }

        @Override
        public void onHeaders(Response response) {
            super.onHeaders(response);
            for (String setCookie : response.getHeaders().getValuesList(HttpHeader.SET_COOKIE)) {
                context.cookies().store(uri, setCookie);
            }
        }

        @Override
        public void onComplete(Result result) {
            inFlight.remove(request);
            Receiver receiver = context.receiver();
            if (result.isFailed()) {
                receiver.onFailure(LongPollingTransport.this, batch, result.getFailure());
                return;
            }
            int status = result.getResponse().getStatus();
            if (status != HttpStatus.OK_200) {
                receiver.onFailure(LongPollingTransport.this, batch,
                        new IOException("HTTP " + status + " " + firstLine(getContentAsString())));
                return;
            }
            List<Message.Mutable> messages;
            try {
                byte[] content = getContent();
                messages = Messages.decode(content, 0, content.length);
            } catch (IOException x) {
                receiver.onFailure(LongPollingTransport.this, batch, x);
                return;
            }
            receiver.onMessages(LongPollingTransport.this, messages, batch);
        }
    }

    private static String firstLine(String text) {
        if (text == null) {
            return "";
        }
        int end = text.indexOf('\n');
        String line = end < 0 ? text : text.substring(0, end);
        return line.length() > 200 ? line.substring(0, 200) : line;
    }
}
