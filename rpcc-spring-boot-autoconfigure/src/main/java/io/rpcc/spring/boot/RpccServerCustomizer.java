package io.rpcc.spring.boot;

import io.rpcc.server.RpccServer;

/**
 * Changes the auto-configured server's builder before the server is built, for what the
 * {@code rpcc.server.*} properties do not cover (TLS, a sandbox, an executor, a chaining proxy...).
 * Every bean of this type runs, in {@code @Order}, after the properties are applied.
 */
@FunctionalInterface
public interface RpccServerCustomizer {

    /** Changes {@code builder} in place. */
    void customize(RpccServer.Builder builder);
}
