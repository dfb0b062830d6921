package io.rpcc.discovery;

import io.rpcc.core.NameResolver;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link NameResolver} backed by etcd: the endpoints of server {@code name} are the values
 * ({@code host:port}) of the keys under {@code <prefix><name>/}, in key order — the first is the
 * primary, the others its backups, to which a node {@linkplain NameResolver#resolveAll fails over}.
 * {@link EtcdRegistration} writes such keys under a lease, so a node that dies drops out.
 *
 * <p>Answers are cached for {@code refresh} per name; a name is looked up again at its first use
 * after that. If etcd cannot be reached, the last good answer is kept (logged once per outage) and
 * a name never seen resolves to nothing. Lookups block the calling thread (rpcc resolves on worker
 * threads, never on event loops) for at most the request timeout.
 *
 * <pre>{@code
 * EtcdNameResolver names = new EtcdNameResolver(URI.create("http://etcd:2379"), "/rpcc/nodes/", Duration.ofSeconds(1));
 * RpccServer server = RpccServer.builder("s1").resolver(names)...build().start();
 * }</pre>
 */
public final class EtcdNameResolver implements NameResolver {
    private static final Logger log = LoggerFactory.getLogger(EtcdNameResolver.class);

    private record Answer(List<InetSocketAddress> endpoints, long atNanos) {
    }

    private final EtcdGateway etcd;
    private final String prefix;
    private final long refreshNanos;
    private final Map<String, Answer> cache = new ConcurrentHashMap<>();
    private final Outage outage;

    /**
     * Resolves names from the etcd at {@code endpoint} (its client URL, e.g. {@code http://etcd:2379})
     * under {@code prefix} (e.g. {@code /rpcc/nodes/}), each answer kept for {@code refresh}.
     */
    public EtcdNameResolver(URI endpoint, String prefix, Duration refresh) {
        if (!prefix.endsWith("/")) {
            throw new IllegalArgumentException("the key prefix must end with '/', got '" + prefix + "'");
        }
        this.etcd = new EtcdGateway(endpoint, Duration.ofSeconds(2));
        this.prefix = prefix;
        this.refreshNanos = refresh.toNanos();
        this.outage = new Outage(log, "etcd at " + endpoint);
    }

    @Override
    public Optional<InetSocketAddress> resolve(String server) {
        List<InetSocketAddress> all = resolveAll(server);
        return all.isEmpty() ? Optional.empty() : Optional.of(all.getFirst());
    }

    @Override
    public List<InetSocketAddress> resolveAll(String server) {
        long now = System.nanoTime();
        Answer known = cache.get(server);
        if (known != null && now - known.atNanos() < refreshNanos) {
            return known.endpoints();
        }
        List<InetSocketAddress> lastGood = known == null ? List.of() : known.endpoints();
        Optional<List<InetSocketAddress>> fresh =
                outage.ask(server, lastGood, () -> endpoints(etcd.range(prefix + server + "/")));
        fresh.ifPresent(endpoints -> cache.put(server, new Answer(endpoints, now)));
        return fresh.orElse(lastGood);
    }

    /** The {@code host:port} values, in key order; a malformed one is skipped (and logged). */
    private static List<InetSocketAddress> endpoints(Map<String, String> kvs) {
        List<InetSocketAddress> endpoints = new ArrayList<>(kvs.size());
        kvs.forEach((key, value) -> {
            int colon = value.lastIndexOf(':');
            try {
                // resolved here, on the resolving (worker) thread, never later on an event loop
                endpoints.add(new InetSocketAddress(value.substring(0, colon), Integer.parseInt(value.substring(colon + 1))));
            } catch (RuntimeException e) {
                log.warn("etcd key '{}' holds '{}', not host:port: skipped", key, value);
            }
        });
        return List.copyOf(endpoints);
    }

    @Override
    public String toString() {
        return "EtcdNameResolver[" + etcd.endpoint() + prefix + "]";
    }
}
