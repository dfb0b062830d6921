package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainResult;
import io.rpcc.core.SocketTransport;
import io.rpcc.core.StaticRoute;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Nodes on the native epoll transport and on NIO: they talk to each other (chains across both, in
 * plaintext and over mutual TLS), a node says which transport it runs, {@code AUTO} takes epoll
 * where it loads, a node given event loops of its own runs on their kind, and a node forced to epoll
 * where epoll cannot load fails to start, saying why and what to do.
 */
class SocketTransportTest {
    /** Netty's switch for its native transports, which rpcc's selection reads at every node's start. */
    private static final String NO_NATIVE = "io.netty.transport.noNative";

    private static void assumeEpoll() {
        assumeTrue(Epoll.isAvailable(), () -> "epoll is not available here: " + Epoll.unavailabilityCause());
    }

    @Test
    void aChainCrossesNioAndEpollNodes() throws Exception {
        assumeEpoll();
        try (Cluster cluster = new Cluster()) {
            RpccServer s1 = cluster.server("s1", b -> b.transport(SocketTransport.NIO).service("a", p -> p + ">s1"));
            // on the event loop that read it: its next hop dials from that loop (dialOnCallerLoop), on epoll
            RpccServer s2 = cluster.server("s2", b -> b.transport(SocketTransport.EPOLL).executor(Runnable::run)
                    .service("b", p -> p + ">s2"));
            RpccServer s3 = cluster.server("s3", b -> b.transport(SocketTransport.NIO).service("c", p -> p + ">s3"));
            RpccClient nioClient = cluster.client(b -> b.transport(SocketTransport.NIO));
            RpccClient epollClient = cluster.client(b -> b.transport(SocketTransport.EPOLL));
            assertEquals(SocketTransport.NIO, s1.transport());
            assertEquals(SocketTransport.EPOLL, s2.transport());
            assertEquals(SocketTransport.NIO, nioClient.transport());
            assertEquals(SocketTransport.EPOLL, epollClient.transport());
            StaticRoute route = StaticRoute.of(StaticRoute.hop("s1", "a"), StaticRoute.hop("s2", "b"), StaticRoute.hop("s3", "c"));
            StaticRoute back = StaticRoute.of(StaticRoute.hop("s2", "b"), StaticRoute.hop("s1", "a"), StaticRoute.hop("s2", "b"));
            for (RpccClient client : List.of(nioClient, epollClient)) {
                for (int i = 0; i < 20; i++) {
                    ChainResult r = client.runChain(ChainCall.along(route, "p" + i));
                    assertEquals("p" + i + ">s1>s2>s3", r.value());
                    assertEquals(List.of("s1", "s2", "s3"), r.path());
                    assertEquals("q" + i + ">s2>s1>s2", client.runChain(ChainCall.along(back, "q" + i)).value());
                }
            }
            assertTrue(s3.stats().framesReceived() > 0);
        }
    }

    @Test
    void aChainAndItsRepliesRunOverMutualTlsOnEpoll() throws Exception {
        assumeEpoll();
        try (Cluster cluster = new Cluster(Cluster.Security.MUTUAL_TLS)) {
            RpccServer s1 = cluster.server("s1", b -> b.transport(SocketTransport.EPOLL).service("count", p -> {
                for (int i = 0; i < (Integer) p; i++) {
                    ChainContext.current().preturn("r" + i);
                }
                return "counted " + p;
            }).service("echo", p -> p));
            cluster.server("s2", b -> b.transport(SocketTransport.EPOLL).service("who", p -> "s2 got " + p));
            cluster.server("s3", b -> b.transport(SocketTransport.NIO).service("who", p -> "s3 got " + p));
            RpccClient client = cluster.client(b -> b.transport(SocketTransport.EPOLL));
            assertEquals(SocketTransport.EPOLL, s1.transport());
            ReplySet<String> replies = client.callWithReplies("s1", "count", 4, String.class);
            List<String> got = new ArrayList<>();
            while (replies.hasMore()) {
                got.add(replies.next());
            }
            assertEquals(List.of("r0", "r1", "r2", "r3"), got);
            assertEquals("counted 4", replies.result().join().value());
            for (String last : List.of("s2", "s3")) {
                ChainResult r = client.runChain(ChainCall.along(
                        StaticRoute.of(StaticRoute.hop("s1", "echo"), StaticRoute.hop(last, "who")), "p"));
                assertEquals(last + " got p", r.value());
                assertEquals(List.of("s1", last), r.path());
            }
        }
    }

    @Test
    void autoTakesEpollWhereItLoadsAndSaysSo() throws Exception {
        try (Cluster cluster = new Cluster()) {
            RpccServer byDefault = cluster.server("s0", b -> b.service("echo", p -> p));
            assertEquals(SocketTransport.NIO, byDefault.transport(), "NIO unless asked otherwise");
            RpccServer auto = cluster.server("s1", b -> b.transport(SocketTransport.AUTO).service("echo", p -> p));
            SocketTransport expected = Epoll.isAvailable() && !Boolean.getBoolean(NO_NATIVE)
                    ? SocketTransport.EPOLL : SocketTransport.NIO;
            System.out.println("transport AUTO runs on " + auto.transport());
            assertEquals(expected, auto.transport());
            RpccClient client = cluster.client(b -> b.transport(SocketTransport.AUTO));
            assertEquals(expected, client.transport());
            assertEquals("x", client.runChain(ChainCall.along(StaticRoute.of(StaticRoute.hop("s1", "echo")), "x")).value());
        }
    }

    @Test
    void aNodeWithItsOwnEventLoopsRunsOnTheirKind() throws Exception {
        assumeEpoll();
        EventLoopGroup epoll = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        EventLoopGroup nio = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (Cluster cluster = new Cluster()) {
            RpccServer onEpoll = cluster.server("s1", b -> b.eventLoopGroup(epoll).service("echo", p -> p)); // unset: follows
            RpccServer onNio = cluster.server("s2", b -> b.eventLoopGroup(nio).transport(SocketTransport.NIO)
                    .service("echo", p -> p));
            assertEquals(SocketTransport.EPOLL, onEpoll.transport());
            assertEquals(SocketTransport.NIO, onNio.transport());
            RpccClient client = cluster.client(b -> b.eventLoopGroup(nio).transport(SocketTransport.AUTO));
            assertEquals(SocketTransport.NIO, client.transport());
            ChainResult r = client.runChain(ChainCall.along(
                    StaticRoute.of(StaticRoute.hop("s1", "echo"), StaticRoute.hop("s2", "echo"), StaticRoute.hop("s1", "echo")), "y"));
            assertEquals(List.of("s1", "s2", "s1"), r.path());

            IllegalStateException e = assertThrows(IllegalStateException.class, () -> RpccServer.builder("s3")
                    .eventLoopGroup(nio).transport(SocketTransport.EPOLL).service("echo", p -> p).build().start());
            System.out.println("epoll asked of a NIO group: " + e.getMessage());
            assertTrue(e.getMessage().contains("'s3'") && e.getMessage().contains("EpollIoHandler"), e.getMessage());
        } finally {
            epoll.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            nio.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void epollForcedWhereItCannotLoadFailsTheStartAndAutoFallsBackToNio() throws Exception {
        String before = System.getProperty(NO_NATIVE);
        System.setProperty(NO_NATIVE, "true"); // epoll is unavailable for rpcc's selection from here on
        try (Cluster cluster = new Cluster()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> cluster.server("s1",
                    b -> b.transport(SocketTransport.EPOLL).service("echo", p -> p)));
            System.out.println("epoll forced where it cannot load: " + e.getMessage());
            assertTrue(e.getMessage().contains("node 's1'") && e.getMessage().contains("epoll is not available here")
                    && e.getMessage().contains(NO_NATIVE) && e.getMessage().contains("AUTO"), e.getMessage());

            RpccServer auto = cluster.server("s2", b -> b.transport(SocketTransport.AUTO).service("echo", p -> p));
            assertEquals(SocketTransport.NIO, auto.transport());
            RpccClient client = cluster.client(b -> b.transport(SocketTransport.AUTO));
            assertEquals(SocketTransport.NIO, client.transport());
            assertEquals("z", client.runChain(ChainCall.along(StaticRoute.of(StaticRoute.hop("s2", "echo")), "z")).value());
        } finally {
            if (before == null) {
                System.clearProperty(NO_NATIVE);
            } else {
                System.setProperty(NO_NATIVE, before);
            }
        }
    }
}
