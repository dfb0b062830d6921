package io.rpcc.server;

import io.rpcc.client.RpccClient;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.TypeRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/** Real nodes on loopback, sharing one name resolver, closed together. */
final class Cluster implements AutoCloseable {
    final StaticNameResolver names = new StaticNameResolver();
    final TypeRegistry types;
    private final List<AutoCloseable> nodes = new ArrayList<>();

    Cluster() {
        this(TypeRegistry.empty());
    }

    Cluster(TypeRegistry types) {
        this.types = types;
    }

    RpccServer server(String name, UnaryOperator<RpccServer.Builder> config) {
        RpccServer s = config.apply(RpccServer.builder(name).resolver(names).types(types)).build().start();
        names.register(name, s.address());
        nodes.add(s);
        return s;
    }

    RpccClient client() {
        return client(b -> b);
    }

    RpccClient client(UnaryOperator<RpccClient.Builder> config) {
        RpccClient c = config.apply(RpccClient.builder().resolver(names).types(types).timeout(Duration.ofSeconds(20)))
                .build();
        nodes.add(c);
        return c;
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable n : nodes) {
            n.close();
        }
    }
}
