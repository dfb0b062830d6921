package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionIsolation;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.SandboxViolationException;
import io.rpcc.core.TypeRegistry;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Java chaining functions run in function-runner processes ({@link FunctionIsolation#PROCESS}). */
public class IsolatedJavaFunctionTest {
    /** An application type, registered with the node: it must pass through a runner. */
    public record Order(String sku, int qty) {
    }

    static Cluster cluster;
    static RpccServer isolated;
    static RpccClient client;

    @BeforeAll
    static void start() {
        cluster = new Cluster(TypeRegistry.of(Order.class));
        isolated = cluster.server("isolated", b -> b
                .sandbox(new SandboxLimits(Duration.ofMillis(300), 32L << 20, Duration.ofSeconds(2)))
                .functionIsolation(FunctionIsolation.PROCESS)
                .functionRunners(2, 1, 4, 96)
                .service("echo", p -> p));
        client = cluster.client(b -> b.timeout(Duration.ofSeconds(60)));
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    static final ChainingFunctionSource DOUBLE = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class Double implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    ChainContext.current().console().println("in a runner");
                    io.rpcc.server.IsolatedJavaFunctionTest.Order o = (io.rpcc.server.IsolatedJavaFunctionTest.Order) result;
                    return NextHop.end(new io.rpcc.server.IsolatedJavaFunctionTest.Order(o.sku() + state.get("tag"), o.qty() * 2));
                }
            }
            """);

    @Test
    void applicationTypesPassThroughARunner() {
        var r = client.runChain("isolated", "echo", new Order("A-1", 21), DOUBLE, ChainState.of("tag", "!"));
        assertEquals(new Order("A-1!", 42), r.value());
        assertTrue(r.console().stream().anyMatch(l -> l.text().equals("in a runner")), r.console().toString());
        assertNotNull(isolated.functionRunners());
    }
}
