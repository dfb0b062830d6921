package io.rpcc.spring.boot;

import io.rpcc.client.RpccClient;

/**
 * Changes the auto-configured client's builder before the client is built, for what the
 * {@code rpcc.client.*} properties do not cover (TLS, interceptors, an executor...). Every bean of
 * this type runs, in {@code @Order}, after the properties are applied.
 */
@FunctionalInterface
public interface RpccClientCustomizer {

    /** Changes {@code builder} in place. */
    void customize(RpccClient.Builder builder);
}
