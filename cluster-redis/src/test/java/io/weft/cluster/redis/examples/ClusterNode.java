package io.weft.cluster.redis.examples;

import io.weft.cluster.redis.RedisBroker;
import io.weft.cluster.redis.RedisBrokerOptions;
import io.weft.metrics.micrometer.MetricsHandler;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.Broker;
import io.weft.transport.websocket.WeftJetty;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** The module README's example: one node of a cluster on embedded Jetty. The cluster tests start their nodes so. */
public final class ClusterNode {
    private ClusterNode() {
    }

    /**
     * A node in a process of its own, for the tests that kill one: {@code ClusterNode redis://host:port}; prints
     * {@code READY port=N} once it listens, and runs until killed.
     */
    public static void main(String[] args) throws Exception {
        Server jetty = start(args[0], 0);
        System.out.println("READY port=" + ((ServerConnector) jetty.getConnectors()[0]).getLocalPort());
        System.out.flush();
        jetty.join();
    }

    /** A started node on {@code 127.0.0.1:port} (0: any free port) joined to the others through {@code redisUri}. */
    public static Server start(String redisUri, int port) throws Exception {
        return start(RedisBrokerOptions.of(redisUri), port);
    }

    /** A started node on {@code 127.0.0.1:port} (0: any free port) joined to the others as {@code options} say. */
    public static Server start(RedisBrokerOptions options, int port) throws Exception {
        // snippet:node
        // RedisBrokerOptions.of("redis://127.0.0.1:6379"), or on a Redis Cluster with sharded pub/sub:
        // RedisBrokerOptions.builder("redis://10.0.0.1:6379,redis://10.0.0.2:6379").sharded(true).build()
        BayeuxServer bayeux = BayeuxServer.create(ServerOptions.defaults());
        Broker.install(bayeux, RedisBroker.create(options)); // before the server takes clients

        Server jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        jetty.addConnector(connector);
        WeftJetty.mount(jetty, bayeux, "/cometd");
        jetty.insertHandler(new MetricsHandler(bayeux)); // /health for the balancer: 503 as soon as it drains
        jetty.start();
        // end:node
        jetty.addBean(bayeux); // for the tests: jetty.getBean(BayeuxServer.class), closed after Jetty stops
        return jetty;
    }
}
