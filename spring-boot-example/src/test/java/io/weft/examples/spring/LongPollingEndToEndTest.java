package io.weft.examples.spring;

import io.weft.spring.boot.testing.CometdClients.Transport;

/** {@link EndToEndSuite} over HTTP long-polling, through the starter's {@code LongPollingServlet} on Boot's Tomcat. */
class LongPollingEndToEndTest extends EndToEndSuite {
    @Override
    Transport transport() {
        return Transport.LONG_POLLING;
    }
}
