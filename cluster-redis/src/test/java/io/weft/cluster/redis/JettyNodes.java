package io.weft.cluster.redis;

import io.weft.cluster.redis.examples.ClusterNode;
import io.weft.server.api.BayeuxServer;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** Weft nodes of one test on embedded Jetty, loopback, port 0, started as the README shows ({@link ClusterNode}). */
final class JettyNodes implements AutoCloseable {
    private final List<Server> jetties = new ArrayList<>();
    private final List<BayeuxServer> servers = new ArrayList<>();

    /** A started node joined to the others as {@code options} say; returns its Bayeux URL. */
    String start(RedisBrokerOptions options) throws Exception {
        Server jetty = ClusterNode.start(options, 0);
        jetties.add(jetty);
        servers.add(jetty.getBean(BayeuxServer.class));
        return "http://127.0.0.1:" + ((ServerConnector) jetty.getConnectors()[0]).getLocalPort() + "/cometd";
    }

    @Override
    public void close() throws Exception {
        for (Server jetty : jetties) {
            jetty.stop();
        }
        servers.forEach(BayeuxServer::close);
    }
}
