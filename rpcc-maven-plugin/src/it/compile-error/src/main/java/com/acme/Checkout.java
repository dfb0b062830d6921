package com.acme;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.NextHop;
import java.time.Duration;
import java.time.Instant;

/**
 * Compiles in this project (built for the JDK that runs the build, 23 or newer), not at a server,
 * which compiles chaining functions for Java 21: Instant.until(Instant) is new in Java 23.
 */
public class Checkout implements ChainingFunction {
    @Override
    public NextHop apply(ChainState state, Object result) {
        Duration waited = Instant.EPOCH.until(Instant.EPOCH.plusSeconds(5));
        return NextHop.end(waited.toMillis());
    }
}
