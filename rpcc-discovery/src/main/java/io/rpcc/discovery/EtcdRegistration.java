package io.rpcc.discovery;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's entry in etcd, for {@link EtcdNameResolver}: the key {@code <prefix><name>/<endpointId>}
 * holding {@code host:port}, under a lease of {@code ttl} that this registration renews every third
 * of it. When the node dies the renewals stop and etcd deletes the key after the TTL; {@link #close}
 * (a node that shuts down) revokes the lease, deleting it at once. Endpoint ids order a name's
 * endpoints: the lowest is the primary. Owns one daemon thread, stopped by {@link #close}.
 *
 * <pre>{@code
 * RpccServer s2 = RpccServer.builder("s2")...build().start();
 * EtcdRegistration entry = EtcdRegistration.register(URI.create("http://etcd:2379"), "/rpcc/nodes/", "s2", "a",
 *         s2.address(), Duration.ofSeconds(10));
 * }</pre>
 */
public final class EtcdRegistration implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EtcdRegistration.class);

    private final EtcdGateway etcd;
    private final String key;
    private final String value;
    private final Duration ttl;
    private final ScheduledExecutorService renewer;
    private volatile long lease;

    private EtcdRegistration(EtcdGateway etcd, String key, String value, Duration ttl) {
        this.etcd = etcd;
        this.key = key;
        this.value = value;
        this.ttl = ttl;
        this.renewer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rpcc-etcd-lease " + key);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Registers {@code address} as endpoint {@code endpointId} of server {@code name} in the etcd at
     * {@code endpoint}, under {@code prefix}, with a lease of {@code ttl} (at least 1 s).
     *
     * @throws IOException if etcd cannot be reached or refuses
     */
    public static EtcdRegistration register(URI endpoint, String prefix, String name, String endpointId,
                                            InetSocketAddress address, Duration ttl)
            throws IOException, InterruptedException {
        if (ttl.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("an etcd lease lasts at least 1 s, got " + ttl);
        }
        EtcdRegistration r = new EtcdRegistration(new EtcdGateway(endpoint, Duration.ofSeconds(2)),
                prefix + name + "/" + endpointId, address.getHostString() + ":" + address.getPort(), ttl);
        r.put();
        long every = Math.max(1, ttl.toMillis() / 3);
        r.renewer.scheduleWithFixedDelay(r::renew, every, every, TimeUnit.MILLISECONDS);
        return r;
    }

    private void put() throws IOException, InterruptedException {
        long granted = etcd.grant(ttl);
        etcd.put(key, value, granted);
        lease = granted;
    }

    private void renew() {
        try {
            if (!etcd.keepAlive(lease)) { // expired meanwhile (etcd was away longer than the TTL): register again
                log.warn("the etcd lease of '{}' had expired; registering it again", key);
                put();
            }
        } catch (IOException e) {
            log.warn("cannot renew the etcd lease of '{}' at {} ({}); it lapses after {} s without renewal", key,
                    etcd.endpoint(), e.toString(), ttl.toSeconds());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The key this registration holds. */
    public String key() {
        return key;
    }

    /** Stops renewing, as a dead node does: etcd deletes the key when the lease's TTL runs out. */
    public void abandon() {
        renewer.shutdownNow();
    }

    /** Removes the entry at once (revokes the lease) and stops renewing. */
    @Override
    public void close() {
        renewer.shutdownNow();
        try {
            etcd.revoke(lease);
        } catch (IOException e) {
            log.warn("cannot revoke the etcd lease of '{}' ({}); it lapses after {} s", key, e.toString(), ttl.toSeconds());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
