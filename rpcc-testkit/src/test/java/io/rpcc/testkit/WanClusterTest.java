package io.rpcc.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.BrokenChainException;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.HopUnreachableException;
import io.rpcc.core.StaticRoute;
import io.rpcc.server.RpccServer;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Nodes in emulated sites: every byte between sites crosses the emulated link, and no chain beats the links. */
class WanClusterTest {
    @RegisterExtension
    static final WanCluster wan = WanCluster.of(WanTopology.paperFigure7());
    static RpccClient client;

    @BeforeAll
    static void start() {
        wan.server("mv-1", WanTopology.MOUNTAIN_VIEW, b -> b.service("echo", p -> p));
        wan.server("mv-2", WanTopology.MOUNTAIN_VIEW, b -> b.service("echo", p -> p));
        wan.server("bj-1", WanTopology.BEIJING, b -> b.service("echo", p -> p));
        client = wan.client("client", WanTopology.REDMOND);
    }

    private static double oneWayMs(String a, String b) {
        return wan.emulator().topology().link(a, b).latency().toNanos() / 1e6;
    }

    @Test
    void chainsCrossTheEmulatedLinks() {
        StaticRoute route = StaticRoute.of(StaticRoute.hop("mv-1", "echo"), StaticRoute.hop("mv-2", "echo"),
                StaticRoute.hop("bj-1", "echo"));
        client.runChain(ChainCall.along(route, "warm-up"));
        wan.emulator().resetCounters();
        ChainResult chain = client.runChain(ChainCall.along(route, "x"));
        assertEquals("x", chain.value());
        assertEquals(List.of("mv-1", "mv-2", "bj-1"), chain.path());
        // client (Redmond) → mv-1 → mv-2 (same site) → bj-1 (Beijing) → client: the result comes back directly.
        double floorMs = oneWayMs(WanTopology.REDMOND, WanTopology.MOUNTAIN_VIEW)
                + oneWayMs(WanTopology.MOUNTAIN_VIEW, WanTopology.MOUNTAIN_VIEW)
                + oneWayMs(WanTopology.MOUNTAIN_VIEW, WanTopology.BEIJING)
                + oneWayMs(WanTopology.BEIJING, WanTopology.REDMOND);
        assertTrue(chain.elapsed().toNanos() / 1e6 >= floorMs, chain.elapsed() + " vs the links' " + floorMs + " ms");
        assertTrue(wan.emulator().bytesCarried(WanTopology.REDMOND, WanTopology.MOUNTAIN_VIEW) > 0);
        assertTrue(wan.emulator().bytesCarried(WanTopology.MOUNTAIN_VIEW, WanTopology.BEIJING) > 0);
        assertTrue(wan.emulator().bytesCarried(WanTopology.BEIJING, WanTopology.REDMOND) > 0, "result straight home");
        // nothing but the answer to a PING (15 bytes) that times the client's connection, for chains' deadlines
        assertTrue(wan.emulator().bytesCarried(WanTopology.MOUNTAIN_VIEW, WanTopology.REDMOND) <= 15,
                "nothing went back to the client from Mountain View: " + wan.emulator().bytesPerLink());

        client.runChain(ChainCall.along(route, "warm-up").interactive(true)); // opens the client's connections
        ChainResult rpc = client.runChain(ChainCall.along(route, "x").interactive(true));
        double rpcFloorMs = 2 * oneWayMs(WanTopology.REDMOND, WanTopology.MOUNTAIN_VIEW) * 2
                + 2 * oneWayMs(WanTopology.REDMOND, WanTopology.BEIJING);
        assertTrue(rpc.elapsed().toNanos() / 1e6 >= rpcFloorMs, rpc.elapsed() + " vs " + rpcFloorMs + " ms");
        System.out.printf("chain %.1f ms (links: %.1f ms), plain RPCs %.1f ms (links: %.1f ms)%n",
                chain.elapsed().toNanos() / 1e6, floorMs, rpc.elapsed().toNanos() / 1e6, rpcFloorMs);
    }

    @Test
    void aKilledServerIsUnreachableUntilRestartedAtTheSameAddress() {
        RpccServer first = wan.server("phoenix", WanTopology.MOUNTAIN_VIEW, b -> b.service("echo", p -> p + "!"));
        ChainCall call = ChainCall.to("phoenix", "echo").params("x");
        assertEquals("x!", client.runChain(call).value());
        InetSocketAddress address = first.address();

        wan.kill("phoenix");
        // 'phoenix' is unreachable: at once, if the client saw its connection close before sending; or,
        // if the request went out on the dying connection, after the chain broke and the client ran it
        // again step by step to diagnose it
        ChainException e = assertThrows(ChainException.class, () -> client.runChain(call));
        HopUnreachableException cause = e instanceof BrokenChainException
                ? assertInstanceOf(HopUnreachableException.class, e.getCause(), e::toString)
                : assertInstanceOf(HopUnreachableException.class, e, e::toString);
        assertTrue(cause.getMessage().contains("'phoenix'"), cause.getMessage());
        assertThrows(IllegalStateException.class, () -> wan.kill("phoenix"), "killed already");

        RpccServer second = wan.restart("phoenix");
        assertNotSame(first, second);
        assertEquals(address, second.address(), "the same port, behind the same proxies");
        assertEquals("x!", client.runChain(call).value());
        assertThrows(IllegalStateException.class, () -> wan.restart("phoenix"), "running");
    }
}
