package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import io.rpcc.core.UnknownServiceFunctionException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Paper 7.3: servers that hand their chaining functions to a nearby proxy. */
class ChainingProxyTest {
    static Cluster cluster;
    static RpccClient client;
    static RpccServer a;
    static RpccServer proxy;

    static final ChainingFunctionSource TWO_HOPS = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class TwoHops implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    ChainContext.current().console().println("deciding at " + ChainContext.current().node());
                    if (!state.contains("second")) return NextHop.call("b", "add", result, state.with("second", true));
                    return NextHop.end(result);
                }
            }
            """);

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        proxy = cluster.server("proxy", b -> b.actAsChainingProxy());
        a = cluster.server("a", b -> b.chainingProxy("proxy").service("add", p -> (Integer) p + 1));
        cluster.server("b", b -> b.chainingProxy("proxy").service("add", p -> (Integer) p + 10));
        cluster.server("plain", b -> b.service("add", p -> (Integer) p + 1));
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    @Test
    void theProxyRunsTheChainingFunctionsAndTheResultIsTheSame() {
        long proxyMissesBefore = proxy.stats().functionCacheMisses();
        ChainResult r = client.runChain("a", "add", 1, TWO_HOPS, ChainState.empty());
        assertEquals(12, r.value());
        assertEquals(List.of("a", "b"), r.path(), "the proxy is not a hop of the chain");
        assertEquals(List.of("proxy", "proxy"), r.timings().stream().map(HopTiming::chainingHost).toList());
        assertEquals(List.of("a", "b"), r.timings().stream().map(HopTiming::host).toList());
        assertEquals(List.of("deciding at proxy", "deciding at proxy"), r.console().stream().map(ConsoleLine::text).toList());
        assertEquals(0, a.stats().functionCacheMisses(), "a never compiled the chaining function");
        assertTrue(proxy.stats().functionCacheMisses() > proxyMissesBefore);
    }

    @Test
    void aNodeThatIsNotAProxyRefuses() {
        cluster.server("lazy", b -> b.chainingProxy("plain").service("add", p -> (Integer) p + 1));
        UnknownServiceFunctionException e = assertThrows(UnknownServiceFunctionException.class,
                () -> client.runChain("lazy", "add", 1, TWO_HOPS, ChainState.empty()));
        assertTrue(e.remoteMessage().contains("'plain' is not a chaining proxy"), e.remoteMessage());
        assertEquals("plain", e.host());
    }
}
