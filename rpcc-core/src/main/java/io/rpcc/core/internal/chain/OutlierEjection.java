package io.rpcc.core.internal.chain;

import io.rpcc.core.spi.EngineSpi;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Which endpoints of a name a node tries, in which order (failover, paper 3.9): the resolver's
 * order, except that an endpoint that failed {@code ejectAfter} times in a row is <em>ejected</em> —
 * tried only after the others — for a period that starts at {@code firstEjection} and doubles with
 * each ejection in a row, up to {@link #MAX_EJECTION}; when it ends the endpoint is tried in its
 * place again (one failure then ejects it anew), and one success clears its record. An ejected
 * endpoint is still tried when every other one has failed: ejection orders, it never makes a name
 * unreachable. Thread-safe; per node.
 */
@EngineSpi
public final class OutlierEjection {
    /** The longest an endpoint stays ejected. */
    static final Duration MAX_EJECTION = Duration.ofSeconds(30);

    /** One endpoint's record: failures in a row, ejections in a row, ejected until (nanoTime). */
    private record Record(int failures, int ejections, long ejectedUntil) {
    }

    private final int ejectAfter;
    private final long firstEjectionNanos;
    private final Map<InetSocketAddress, Record> records = new ConcurrentHashMap<>();
    private final AtomicLong failovers = new AtomicLong();
    private final AtomicLong ejections = new AtomicLong();

    /** Ejects an endpoint after {@code ejectAfter} failures in a row, first for {@code firstEjection}. */
    public OutlierEjection(int ejectAfter, Duration firstEjection) {
        if (ejectAfter < 1) {
            throw new IllegalArgumentException("ejectAfter must be at least 1, got " + ejectAfter);
        }
        this.ejectAfter = ejectAfter;
        this.firstEjectionNanos = firstEjection.toNanos();
    }

    /** {@code endpoints} in the order to try them at {@code nowNanos}: those not ejected first, in order. */
    public List<InetSocketAddress> order(List<InetSocketAddress> endpoints, long nowNanos) {
        if (records.isEmpty() || endpoints.size() < 2) {
            return endpoints;
        }
        List<InetSocketAddress> ordered = new ArrayList<>(endpoints.size());
        List<InetSocketAddress> ejected = new ArrayList<>(0);
        for (InetSocketAddress a : endpoints) {
            Record r = records.get(a);
            (r != null && nowNanos - r.ejectedUntil() < 0 ? ejected : ordered).add(a);
        }
        ordered.addAll(ejected);
        return ordered;
    }

    /** Whether {@code endpoint} is ejected at {@code nowNanos}. */
    public boolean isEjected(InetSocketAddress endpoint, long nowNanos) {
        Record r = records.get(endpoint);
        return r != null && nowNanos - r.ejectedUntil() < 0;
    }

    /** A hop was handed to {@code endpoint}: its record is cleared. */
    public void succeeded(InetSocketAddress endpoint) {
        if (!records.isEmpty()) {
            records.remove(endpoint);
        }
    }

    /** Handing a hop to {@code endpoint} failed at {@code nowNanos}; {@code failingOver}: another endpoint is tried next. */
    public void failed(InetSocketAddress endpoint, long nowNanos, boolean failingOver) {
        if (failingOver) {
            failovers.incrementAndGet();
        }
        records.compute(endpoint, (a, r) -> {
            int failures = (r == null ? 0 : r.failures()) + 1;
            int inRow = r == null ? 0 : r.ejections();
            boolean periodOver = r != null && r.ejectedUntil() != 0 && nowNanos - r.ejectedUntil() >= 0;
            if (failures >= ejectAfter || periodOver) { // (a failure after an ejection ejects again, for longer)
                ejections.incrementAndGet();
                long period = Math.min(MAX_EJECTION.toNanos(), firstEjectionNanos << Math.min(20, inRow));
                return new Record(0, inRow + 1, nowNanos + period);
            }
            return new Record(failures, inRow, r == null ? 0 : r.ejectedUntil());
        });
    }

    /** Hops handed to a later endpoint of a name after an earlier one failed. */
    public long failovers() {
        return failovers.get();
    }

    /** Times an endpoint was ejected. */
    public long ejections() {
        return ejections.get();
    }
}
