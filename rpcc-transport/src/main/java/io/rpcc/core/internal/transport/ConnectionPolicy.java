package io.rpcc.core.internal.transport;

import io.rpcc.core.spi.EngineSpi;
import java.time.Duration;

/**
 * How a node keeps its connections healthy: when it asks a quiet peer whether it is still there, how
 * long it waits for an answer, and how it spaces out attempts to reconnect to a peer it cannot reach.
 * See the corresponding {@code NodeBuilder} settings.
 *
 * @param pingInterval read nothing on a connection for this long and a PING goes out
 *     ({@link Duration#ZERO}: never)
 * @param pingTimeout read nothing at all within this long of sending a PING and the connection is
 *     closed as silent
 * @param firstReconnectBackoff after two failed attempts in a row to connect to a peer address, no
 *     new attempt for this long (doubling with each further failure, with 20 % jitter)
 * @param maxReconnectBackoff the longest wait between two attempts to connect
 */
@EngineSpi
public record ConnectionPolicy(Duration pingInterval, Duration pingTimeout, Duration firstReconnectBackoff,
                               Duration maxReconnectBackoff) {

    /** Ping after 10 s of silence, wait 5 s for an answer; reconnect after 100 ms, doubling up to 5 s. */
    public static final ConnectionPolicy DEFAULT = new ConnectionPolicy(Duration.ofSeconds(10), Duration.ofSeconds(5),
            Duration.ofMillis(100), Duration.ofSeconds(5));

    public ConnectionPolicy {
        if (pingInterval.isNegative() || !pingTimeout.isPositive() || firstReconnectBackoff.isNegative()
                || maxReconnectBackoff.compareTo(firstReconnectBackoff) < 0) {
            throw new IllegalArgumentException("invalid connection policy " + pingInterval + ", " + pingTimeout + ", "
                    + firstReconnectBackoff + ", " + maxReconnectBackoff);
        }
    }
}
