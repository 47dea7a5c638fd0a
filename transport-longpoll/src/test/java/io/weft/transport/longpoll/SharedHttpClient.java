package io.weft.transport.longpoll;

import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpCookieStore;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One Jetty HttpClient for a test class, started before its tests and stopped after them. It keeps no cookies and
 * follows no redirects: each {@link Browser} carries its own cookie, as the tests need several browsers.
 * Register with {@code @RegisterExtension static final SharedHttpClient HTTP = new SharedHttpClient();}.
 */
final class SharedHttpClient implements BeforeAllCallback, AfterAllCallback {
    private HttpClient client;

    HttpClient client() {
        return client;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        client = new HttpClient();
        client.setHttpCookieStore(new HttpCookieStore.Empty());
        client.setFollowRedirects(false);
        client.start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        client.stop();
    }
}
