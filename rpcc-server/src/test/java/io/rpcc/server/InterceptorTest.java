package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.HopRejectedException;
import io.rpcc.core.Metadata;
import io.rpcc.core.MetadataTooLargeException;
import io.rpcc.core.NextHop;
import io.rpcc.core.ServiceFunction;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.TransactionAbortedException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Client and server interceptors on real nodes: credentials, rejection, order, metadata on the way. */
class InterceptorTest {
    static final StaticRoute ROUTE = StaticRoute.of(StaticRoute.hop("s1", "see"), StaticRoute.hop("s2", "see"),
            StaticRoute.hop("s3", "see"));

    final Cluster cluster = new Cluster();
    final Map<String, Metadata> seen = new ConcurrentHashMap<>();
    final AtomicInteger ran = new AtomicInteger();

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    private RpccServer server(String name, ServerInterceptor... interceptors) {
        return cluster.server(name, b -> {
            b.service("see", p -> {
                ran.incrementAndGet();
                seen.put(ChainContext.current().node(), ChainContext.current().metadata());
                return p;
            });
            for (ServerInterceptor i : interceptors) {
                b.interceptor(i);
            }
            return b;
        });
    }

    /** Refuses every hop whose metadata does not carry the token. */
    static final ServerInterceptor REQUIRES_TOKEN = new ServerInterceptor() {
        @Override
        public Object interceptService(ChainContext context, String serviceFunction, Object params, ServiceFunction next)
                throws Exception {
            if (!"s3cret".equals(context.metadata().get("authorization"))) {
                throw new HopRejectedException("no valid credential in metadata key 'authorization'");
            }
            return next.apply(params);
        }
    };

    @Test
    void aClientInterceptorAddsACredentialThatAServerChecks() {
        server("s1");
        server("s2", REQUIRES_TOKEN);
        server("s3");
        RpccClient withToken = cluster.client(b -> b.interceptor(call -> call.metadata("authorization", "s3cret")));
        assertEquals("x", withToken.runChain(ChainCall.along(ROUTE, "x")).value());
        assertEquals("s3cret", seen.get("s3").get("authorization"), "the credential reached hop 3");
        assertEquals(3, ran.get());

        ran.set(0);
        RpccClient without = cluster.client();
        ChainException e = assertThrows(ChainException.class, () -> without.runChain(ChainCall.along(ROUTE, "x")));
        HopRejectedException rejected = assertInstanceOf(HopRejectedException.class, e);
        assertEquals("s2", rejected.host());
        assertEquals(2, rejected.hop());
        assertEquals(List.of("s1", "s2"), rejected.path());
        assertEquals(HopRejectedException.class.getName(), rejected.exceptionName());
        assertEquals("no valid credential in metadata key 'authorization'", rejected.remoteMessage());
        assertTrue(e.getMessage().contains("hop 2 at 's2'"), e.getMessage());
        assertEquals(1, ran.get(), "hop 2's service function and hop 3 never ran");

        // the same through the asynchronous and the interactive paths
        CompletionException async = assertThrows(CompletionException.class,
                () -> without.startChain(ChainCall.along(ROUTE, "x")).join());
        assertInstanceOf(HopRejectedException.class, async.getCause());
        HopRejectedException interactive = assertThrows(HopRejectedException.class,
                () -> without.runChain(ChainCall.along(ROUTE, "x").interactive(true)));
        assertEquals("s2", interactive.host());
        assertEquals("x", withToken.runChain(ChainCall.along(ROUTE, "x").interactive(true)).value());
    }

    @Test
    void interceptorsSeeServiceThenChainingThenForwardInRegistrationOrder() {
        List<String> events = new CopyOnWriteArrayList<>();
        server("s1", recorder("outer", events), recorder("inner", events));
        server("s2");
        server("s3", recorder("last", events));
        RpccClient client = cluster.client(b -> b
                .interceptor(call -> {
                    events.add("client-1");
                    return call.metadata("first", "1");
                })
                .interceptor(call -> {
                    events.add("client-2 sees first=" + call.metadata().get("first"));
                    return call;
                }));
        assertEquals("x", client.runChain(ChainCall.along(ROUTE, "x")).value());
        assertEquals(List.of("client-1", "client-2 sees first=1",
                "outer service 1 at s1", "inner service 1 at s1", "inner service done", "outer service done",
                "outer chaining 1", "inner chaining 1", "inner chaining done", "outer chaining done",
                "outer forward to s2/see", "inner forward to s2/see",
                "last service 3 at s3", "last service done", "last chaining 3", "last chaining done"), events);
    }

    private static ServerInterceptor recorder(String name, List<String> events) {
        return new ServerInterceptor() {
            @Override
            public Object interceptService(ChainContext context, String serviceFunction, Object params,
                                           ServiceFunction next) throws Exception {
                events.add(name + " service " + context.hop() + " at " + ChainContext.current().node());
                Object result = next.apply(params);
                events.add(name + " service done");
                return result;
            }

            @Override
            public NextHop interceptChaining(ChainContext context, ChainState state, Object result,
                                             ChainingFunction next) throws Exception {
                events.add(name + " chaining " + context.hop());
                NextHop hop = next.apply(state, result);
                events.add(name + " chaining done");
                return hop;
            }

            @Override
            public Metadata interceptForward(ChainContext context, NextHop.Call next, Metadata metadata) {
                events.add(name + " forward to " + next.server() + "/" + next.serviceFunction());
                return metadata;
            }
        };
    }

    @Test
    void aForwardInterceptorChangesTheMetadataOfTheFollowingHops() {
        server("s1", new ServerInterceptor() {
            @Override
            public Metadata interceptForward(ChainContext context, NextHop.Call next, Metadata metadata) {
                return metadata.without("authorization").with("span", "s1-" + context.hop());
            }
        });
        server("s2");
        server("s3");
        RpccClient client = cluster.client();
        client.runChain(ChainCall.along(ROUTE, "x").metadata("authorization", "t").metadata("tenant", "acme"));
        assertEquals(Metadata.empty().with("authorization", "t").with("tenant", "acme"), seen.get("s1"),
                "hop 1 sees what it received");
        Metadata after = Metadata.empty().with("tenant", "acme").with("span", "s1-1");
        assertEquals(after, seen.get("s2"));
        assertEquals(after, seen.get("s3"), "hop 3 receives hop 2's metadata unchanged");
    }

    /** Marks what each hand-back of a node carries: {@code back} = kind@node#hop. */
    static final ServerInterceptor MARKS_HAND_BACKS = new ServerInterceptor() {
        @Override
        public Metadata interceptHandBack(ChainContext context, HandBack handBack, Metadata metadata) {
            return metadata.with("back", handBack + "@" + context.node() + "#" + context.hop());
        }
    };

    /** Records the metadata each kind of hop at a node starts with. */
    private HopDecorator recordsStarts(String node) {
        return start -> {
            seen.put(node + "/" + start.kind(), start.context().metadata());
            return HopDecorator.Listener.NONE;
        };
    }

    static final io.rpcc.core.ChainingFunctionSource THEN_S3 = io.rpcc.core.ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class ThenS3 implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.callThenEnd("s3", "see", result);
                }
            }
            """);

    @Test
    void aSubChainsResultGoesBackWithTheMetadataTheHandBackInterceptorsGive() {
        cluster.server("s1", b -> b.interceptor(MARKS_HAND_BACKS).decorator(recordsStarts("s1"))
                .service("returned", p -> io.rpcc.core.SubChain.to("s2", "see").params(p).composition(false))
                .service("composed", p -> io.rpcc.core.SubChain.to("s2", "see").params(p).composition(true)));
        cluster.server("s2", b -> b.interceptor(MARKS_HAND_BACKS).decorator(recordsStarts("s2")).service("see", p -> p));
        server("s3");
        RpccClient client = cluster.client();
        assertEquals("x", client.runChain(ChainCall.to("s1", "returned").params("x").chainingFunction(THEN_S3)).value());
        assertEquals("SUB_CHAIN_RESULT@s2#2", seen.get("s1/SUB_CHAIN_RETURN").get("back"),
                "the parent resumes at s1 with what s2's interceptor gave");
        assertEquals("SUB_CHAIN_RESULT@s2#2", seen.get("s3").get("back"), "and the hops after it");

        seen.clear();
        assertEquals("y", client.runChain(ChainCall.to("s1", "composed").params("y").chainingFunction(THEN_S3)).value());
        assertEquals("SUB_CHAIN_RESULT@s2#2", seen.get("s2/SUB_CHAIN_RETURN").get("back"), "composed: resumed at s2");
        assertEquals("SUB_CHAIN_RESULT@s2#2", seen.get("s3").get("back"));
    }

    static final io.rpcc.core.ChainingFunctionSource FORK = io.rpcc.core.ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            import java.util.List;
            public class Fork implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.split(List.of(NextHop.callThenEnd("s2", "see", result + "-2"),
                            NextHop.callThenEnd("s3", "see", result + "-3"))).mergeAt("s3");
                }
            }
            """);

    @Test
    void theMergeStartsWithTheMetadataTheSplitsHandBackGave() {
        server("s1", MARKS_HAND_BACKS, new ServerInterceptor() {
            @Override
            public Metadata interceptForward(ChainContext context, NextHop.Call next, Metadata metadata) {
                return metadata.with("branch", next.server());
            }
        });
        server("s2");
        cluster.server("s3", b -> b.decorator(recordsStarts("s3")).service("see", p -> {
            seen.put("s3", ChainContext.current().metadata());
            return p;
        }));
        assertEquals(List.of("x-2", "x-3"), cluster.client().runChain(ChainCall.to("s1", "see").params("x")
                .chainingFunction(FORK)).value());
        Metadata merge = seen.get("s3/MERGE");
        assertEquals("SPLIT_OPENING@s1#1", merge.get("back"));
        assertTrue(!merge.contains("branch"), "the opening's metadata is not a branch's: " + merge);
        assertEquals("s3", seen.get("s3").get("branch"), "a branch's first hop gets its forward metadata");
        assertTrue(!seen.get("s3").contains("back"), "and not the opening's");
    }

    @Test
    void aForwardInterceptorCanStopTheChainNamingItsHop() {
        server("s1", new ServerInterceptor() {
            @Override
            public Metadata interceptForward(ChainContext context, NextHop.Call next, Metadata metadata) {
                throw new HopRejectedException("'" + next.server() + "' is outside the trust domain");
            }
        });
        server("s2");
        server("s3");
        HopRejectedException e = assertThrows(HopRejectedException.class,
                () -> cluster.client().runChain(ChainCall.along(ROUTE, "x")));
        assertEquals("s1", e.host());
        assertEquals(1, e.hop());
        assertEquals("'s2' is outside the trust domain", e.remoteMessage());
        assertEquals(1, ran.get(), "s2 never ran");
    }

    @Test
    void aForwardInterceptorThatStopsAnAtomicChainAbortsItAtOnce() {
        // the hop has voted before its forward interceptor runs: the vote (with its slice of the chain's
        // credit) must still go home, or the chain could not end before its deadline
        server("s1", new ServerInterceptor() {
            @Override
            public Metadata interceptForward(ChainContext context, NextHop.Call next, Metadata metadata) {
                throw new HopRejectedException("'" + next.server() + "' is outside the trust domain");
            }
        });
        server("s2");
        server("s3");
        long start = System.nanoTime();
        TransactionAbortedException e = assertThrows(TransactionAbortedException.class,
                () -> cluster.client().runChain(ChainCall.along(ROUTE, "x").atomic().deadline(Duration.ofSeconds(30))));
        assertTrue(e.getMessage().contains("'s2' is outside the trust domain"), e.getMessage());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20),
                "the abort came with the failure, not at the chain's deadline: " + e.getMessage());
        assertEquals(1, ran.get(), "s2 never ran");
    }

    @Test
    void anInterceptorThatOverfillsTheMetadataEndsTheChainWithATypedError() {
        server("s1", new ServerInterceptor() {
            @Override
            public Metadata interceptForward(ChainContext context, NextHop.Call next, Metadata metadata) {
                return metadata.with("blob", new byte[Metadata.MAX_BYTES]);
            }
        });
        server("s2");
        server("s3");
        ChainException e = assertThrows(ChainException.class, () -> cluster.client().runChain(ChainCall.along(ROUTE, "x")));
        assertEquals(MetadataTooLargeException.class.getName(), e.exceptionName());
        assertEquals("s1", e.host());
        assertEquals(1, e.hop());
        assertTrue(e.remoteMessage().contains("a server interceptor at 's1' failed before forwarding to 's2'"),
                e.remoteMessage());
    }

    @Test
    void aFailingClientInterceptorFailsTheStartAtTheCaller() {
        server("s1");
        RpccClient client = cluster.client(b -> b.interceptor(call -> {
            throw new IllegalStateException("no token available");
        }));
        assertThrows(IllegalStateException.class, () -> client.runChain(ChainCall.to("s1", "see")));
        CompletionException e = assertThrows(CompletionException.class, () -> client.call("s1", "see", "x").join());
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertEquals(0, ran.get());
    }
}
