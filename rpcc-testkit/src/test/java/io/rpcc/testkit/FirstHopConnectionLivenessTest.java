package io.rpcc.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.rpcc.client.ChainCall;
import io.rpcc.client.Heartbeats;
import io.rpcc.client.RpccClient;
import io.rpcc.client.StateFallback;
import io.rpcc.core.BrokenChainException;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The originator counts a chain's silence from when it launched it; a first request that waited
 * for its connection (here held up by a cut link for most of a heartbeat interval, as a loaded
 * client or a slow handshake holds it) leaves with that wait taken off its time-to-heartbeat, so
 * the first hop heartbeats on the originator's schedule instead of a whole interval after it got
 * the request, and the healthy chain is not declared broken. A hop silent once the request is out
 * is still broken.
 */
class FirstHopConnectionLivenessTest {
    /** A heartbeat every 2 s, broken after 3 s: a first heartbeat a whole interval after a 1.8 s wait is too late. */
    private static final Heartbeats HEARTBEATS = Heartbeats.every(Duration.ofSeconds(2), Duration.ofSeconds(3));
    /** How long the link stays cut while the first connection waits. */
    private static final long WAIT_MILLIS = 1800;

    /** Ends the chain with the result and the size of the state's blob. */
    private static final ChainingFunctionSource SIZE = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class Size implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.end(result + ":" + ((byte[]) state.get("blob")).length);
                }
            }
            """);

    private static WanCluster cluster() {
        WanCluster wan = WanCluster.of(WanTopology.paperFigure7());
        wan.server("a", WanTopology.MOUNTAIN_VIEW, b -> b.service("echo", p -> "a(" + p + ")").service("slow", p -> {
            Thread.sleep(2000); // runs past the broken-after time counted from the launch: it must heartbeat
            return "a(" + p + ")";
        }));
        return wan;
    }

    /** Runs {@code call} as its first connection waits for a cut link to heal. */
    private static ChainResult runWhileTheLinkHeals(WanCluster wan, RpccClient client, ChainCall call) {
        wan.emulator().cutBoth(WanTopology.REDMOND, WanTopology.MOUNTAIN_VIEW);
        CompletableFuture.delayedExecutor(WAIT_MILLIS, TimeUnit.MILLISECONDS)
                .execute(() -> wan.emulator().healBoth(WanTopology.REDMOND, WanTopology.MOUNTAIN_VIEW));
        return client.runChain(call);
    }

    @Test
    void aChainWhoseFirstConnectionWaitedIsNotBroken() {
        try (WanCluster wan = cluster()) {
            RpccClient client = wan.client("client", WanTopology.REDMOND, c -> c.heartbeats(HEARTBEATS));
            ChainResult r = runWhileTheLinkHeals(wan, client, ChainCall.to("a", "slow").params("x"));
            assertEquals("a(x)", r.value());
            assertEquals(0, client.brokenChains(), "the chain was declared broken after its connection waited");
        }
    }

    @Test
    void aLargeStateAdaptiveChainWhoseFirstConnectionWaitedIsNotBroken() {
        try (WanCluster wan = cluster()) {
            RpccClient client = wan.client("client", WanTopology.REDMOND,
                    c -> c.heartbeats(HEARTBEATS).stateFallback(StateFallback.ADAPTIVE));
            ChainResult r = runWhileTheLinkHeals(wan, client, ChainCall.to("a", "echo").params("x")
                    .chainingFunction(SIZE).state(ChainState.of("blob", new byte[512 * 1024])));
            assertEquals("a(x):524288", r.value());
            assertEquals(0, client.brokenChains(), "the chain was declared broken after its connection waited");
        }
    }

    @Test
    void aHopSilentAfterTheRequestLeftIsStillBroken() {
        try (WanCluster wan = cluster()) {
            RpccClient client = wan.client("client", WanTopology.REDMOND, c -> c.heartbeats(HEARTBEATS));
            assertEquals("a(x)", client.runChain(ChainCall.to("a", "echo").params("x")).value()); // connected
            wan.emulator().cutBoth(WanTopology.REDMOND, WanTopology.MOUNTAIN_VIEW);
            try {
                ChainException e = assertThrows(ChainException.class,
                        () -> client.runChain(ChainCall.to("a", "echo").params("y").timeout(Duration.ofSeconds(30))));
                assertInstanceOf(BrokenChainException.class, e, e.toString());
            } finally {
                wan.emulator().healBoth(WanTopology.REDMOND, WanTopology.MOUNTAIN_VIEW);
            }
        }
    }
}
