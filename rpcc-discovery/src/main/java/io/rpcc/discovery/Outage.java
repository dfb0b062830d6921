package io.rpcc.discovery;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;

/**
 * Whether the source of a resolver's answers (etcd, DNS servers) answers: a lookup that cannot
 * reach it gives no answer, so that the resolver keeps its last good one, and the outage is logged
 * once when it begins and once when it ends, however many lookups fail meanwhile.
 */
final class Outage {
    /** A lookup at the source. */
    interface Lookup<T> {
        T run() throws IOException, InterruptedException;
    }

    private final Logger log;
    private final String source;
    private volatile boolean on;

    /** Logs to {@code log} about {@code source}, e.g. {@code "etcd at http://etcd:2379"}. */
    Outage(Logger log, String source) {
        this.log = log;
        this.source = source;
    }

    /**
     * What {@code lookup} of {@code server} found, or empty if the source cannot be reached;
     * {@code known} (the last good endpoints, if any) goes into the log.
     */
    <T> Optional<T> ask(String server, List<InetSocketAddress> known, Lookup<T> lookup) {
        try {
            T found = lookup.run();
            if (on) {
                on = false;
                log.info("{} answers again", source);
            }
            return Optional.of(found);
        } catch (IOException e) {
            return unreachable(server, known, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return unreachable(server, known, e);
        }
    }

    private <T> Optional<T> unreachable(String server, List<InetSocketAddress> known, Exception e) {
        if (!on) {
            on = true;
            log.warn("{} cannot be reached ({}); names resolve to their last known endpoints until it answers"
                    + " again ('{}': {})", source, e.toString(), server, known.isEmpty() ? "none" : known);
        }
        return Optional.empty();
    }
}
