package io.rpcc.spring.boot.autoconfigure;

import io.rpcc.legacy.LegacyGrpc;
import io.rpcc.legacy.LegacyHttp;
import io.rpcc.server.RpccServer;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Registers the application's legacy-service beans ({@code rpcc-legacy}) on the auto-configured
 * server: each {@link LegacyHttp.Builder} bean as the service function named by its bean name, each
 * {@link LegacyGrpc.Builder} bean as the service functions of its gRPC service's unary methods. Loaded
 * only when the application has rpcc-legacy ({@code RpccAutoConfiguration} checks); gRPC builders only when
 * it has gRPC.
 */
final class LegacyServices {
    private static final boolean GRPC = ClassUtils.isPresent("io.grpc.ServiceDescriptor",
            LegacyServices.class.getClassLoader());

    private LegacyServices() {
    }

    /** Registers the legacy-service beans of {@code beans} on {@code server}. */
    static void register(RpccServer.Builder server, ListableBeanFactory beans) {
        for (Map.Entry<String, LegacyHttp.Builder> e : beans.getBeansOfType(LegacyHttp.Builder.class).entrySet()) {
            try {
                e.getValue().registerOn(server, e.getKey());
            } catch (IllegalArgumentException x) {
                throw new IllegalStateException("the LegacyHttp endpoint bean '" + e.getKey() + "' cannot be service"
                        + " function '" + e.getKey() + "' (" + x.getMessage() + "): rename the bean, or the other"
                        + " service function", x);
            }
        }
        if (GRPC) {
            for (Map.Entry<String, LegacyGrpc.Builder> e : beans.getBeansOfType(LegacyGrpc.Builder.class).entrySet()) {
                try {
                    e.getValue().registerOn(server);
                } catch (IllegalArgumentException x) {
                    throw new IllegalStateException("the LegacyGrpc bean '" + e.getKey() + "' cannot register its"
                            + " methods (" + x.getMessage() + "): give the other service function another name", x);
                }
            }
        }
    }
}
