package io.rpcc.server;

import io.rpcc.client.RpccClient;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.testing.TestPki;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/** Real nodes on loopback, sharing one name resolver, closed together; plaintext or mutual TLS. */
final class Cluster implements AutoCloseable {
    /** How the nodes of a cluster talk. */
    enum Security {
        PLAINTEXT,
        /** Every node has a certificate for its name from {@link TestPki#shared()} and trusts that CA. */
        MUTUAL_TLS
    }

    private static final AtomicInteger clients = new AtomicInteger();

    final StaticNameResolver names = new StaticNameResolver();
    final TypeRegistry types;
    final Security security;
    private final List<AutoCloseable> nodes = new ArrayList<>();

    Cluster() {
        this(TypeRegistry.empty());
    }

    Cluster(TypeRegistry types) {
        this(types, Security.PLAINTEXT);
    }

    Cluster(Security security) {
        this(TypeRegistry.empty(), security);
    }

    Cluster(TypeRegistry types, Security security) {
        this.types = types;
        this.security = security;
    }

    RpccServer server(String name, UnaryOperator<RpccServer.Builder> config) {
        RpccServer.Builder b = RpccServer.builder(name).resolver(names).types(types);
        if (security == Security.MUTUAL_TLS) {
            b.tls(TestPki.shared().node(name));
        }
        RpccServer s = config.apply(b).build().start();
        names.register(name, s.address());
        nodes.add(s);
        return s;
    }

    RpccClient client() {
        return client(b -> b);
    }

    RpccClient client(UnaryOperator<RpccClient.Builder> config) {
        String name = "client-" + clients.incrementAndGet();
        RpccClient.Builder b = RpccClient.builder().name(name).resolver(names).types(types).timeout(Duration.ofSeconds(20));
        if (security == Security.MUTUAL_TLS) {
            b.tls(TestPki.shared().node(name));
        }
        RpccClient c = config.apply(b).build().start();
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
