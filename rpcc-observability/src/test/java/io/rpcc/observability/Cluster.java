package io.rpcc.observability;

import io.rpcc.client.RpccClient;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.server.RpccServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/** Real nodes on loopback, sharing one name resolver, closed together. */
final class Cluster implements AutoCloseable {
    private static final AtomicInteger clients = new AtomicInteger();

    final StaticNameResolver names = new StaticNameResolver();
    private final List<AutoCloseable> nodes = new ArrayList<>();

    RpccServer server(String name, UnaryOperator<RpccServer.Builder> config) {
        RpccServer s = config.apply(RpccServer.builder(name).resolver(names)).build().start();
        names.register(name, s.address());
        nodes.add(s);
        return s;
    }

    RpccClient client(UnaryOperator<RpccClient.Builder> config) {
        RpccClient c = config.apply(RpccClient.builder().name("client-" + clients.incrementAndGet()).resolver(names)
                .timeout(Duration.ofSeconds(20))).build().start();
        nodes.add(c);
        return c;
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable n : nodes.reversed()) {
            n.close();
        }
    }
}
