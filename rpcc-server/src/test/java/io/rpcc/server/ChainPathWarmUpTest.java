package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.StaticNameResolver;
import io.rpcc.server.internal.ChainPathWarmUp;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The JVM's warm-up of the chain path at a server's start (opted in with
 * {@code -Drpcc.warmUp.chainPath=true}) leaves no trace on the application's server: its chains run between rpcc's own throwaway nodes, which are gone when it ends. (Once per
 * JVM: if an earlier test's server started it, this checks the same on a server that did not.)
 */
class ChainPathWarmUpTest {
    static boolean warmUpRunning() {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.isAlive()
                && (t.getName().equals("rpcc-chain-warm-up") || t.getName().equals("rpcc-function-warm-up")
                || t.getName().equals("rpcc-function-precompile-app")));
    }

    @Test
    void theWarmUpRunsBesideTheServerAndLeavesItsCountersAndThreadsAlone() throws Exception {
        String was = System.setProperty(ChainPathWarmUp.ENABLED_PROPERTY, "true");
        try (RpccServer server = RpccServer.builder("app").resolver(new StaticNameResolver()).service("echo", p -> p)
                .build().start()) {
            assertTrue(Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.isAlive()
                    && t.getName().equals("rpcc-chain-warm-up")), "the opted-in warm-up started with the first server");
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (warmUpRunning()) {
                assertTrue(System.nanoTime() < end, "the warm-ups did not end in 90 s");
                Thread.sleep(20);
            }
            ServerStats stats = server.stats();
            assertEquals(0, stats.framesReceived(), stats::toString);
            assertEquals(0, stats.functionCacheMisses() + stats.functionCacheHits(), stats::toString);
            assertEquals(0, stats.connectionsOpen(), stats::toString);
            assertTrue(Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.isAlive()
                    && t.getName().contains("rpcc-warm-up-")), "the throwaway nodes closed");
        } finally {
            if (was == null) {
                System.clearProperty(ChainPathWarmUp.ENABLED_PROPERTY);
            } else {
                System.setProperty(ChainPathWarmUp.ENABLED_PROPERTY, was);
            }
        }
    }
}
