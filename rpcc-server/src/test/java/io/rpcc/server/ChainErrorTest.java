package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainTimeoutException;
import io.rpcc.core.ChainingFunctionCompileException;
import io.rpcc.core.ChainingFunctionException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FrameTooLargeException;
import io.rpcc.core.HopLimitExceededException;
import io.rpcc.core.HopPath;
import io.rpcc.core.HopUnreachableException;
import io.rpcc.core.SandboxViolationException;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.UnknownServerException;
import io.rpcc.core.UnknownServiceFunctionException;
import io.rpcc.core.UnregisteredTypeException;
import io.rpcc.core.internal.wire.FrameType;
import io.rpcc.core.internal.wire.Hello;
import io.rpcc.core.internal.wire.Serialization;
import io.rpcc.core.internal.wire.WireFormat;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every failure reaches the originator as a typed exception with the exception's name, message,
 * the failing hop and host, and the path so far; and the servers go on serving.
 */
class ChainErrorTest {
    /** Registered at the client only, to make a value the servers cannot decode. */
    record ClientOnly(String text) {
    }

    /** Registered nowhere. */
    record Unregistered(int n) {
    }

    static Cluster cluster;
    static RpccServer s1;
    static RpccClient client;
    static RpccClient clientWithExtraType;

    /** Reads the next hop from the state: {@code next} = "server/function", or ends. */
    static final ChainingFunctionSource GOTO = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class Goto implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    String next = (String) state.get("next");
                    if (next == null) {
                        return NextHop.end(result);
                    }
                    int slash = next.indexOf('/');
                    return NextHop.call(next.substring(0, slash), next.substring(slash + 1), result,
                            state.without("next"));
                }
            }
            """);

    @BeforeAll
    static void start() throws Exception {
        cluster = new Cluster();
        s1 = cluster.server("s1", b -> b.service("echo", p -> p));
        cluster.server("s2", b -> b
                .service("echo", p -> p)
                .service("boom", p -> {
                    throw new IllegalStateException("boom at s2");
                })
                .service("unregistered", p -> new Unregistered(3))
                .service("slow", p -> {
                    Thread.sleep(1500);
                    return p;
                }));
        cluster.server("s3", b -> b.maxFrameSize(64 * 1024).service("echo", p -> p));
        cluster.names.register("dead", DeadAddresses.next()); // nothing listens there, nor can
        client = cluster.client();
        clientWithExtraType = cluster.client(b -> b.types(TypeRegistry.of(ClientOnly.class)));
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    @AfterEach
    void serversStillServe() {
        StaticRoute route = StaticRoute.of(StaticRoute.hop("s1", "echo"), StaticRoute.hop("s2", "echo"),
                StaticRoute.hop("s3", "echo"));
        assertEquals("still alive", client.runChain(ChainCall.along(route, "still alive")).value());
    }

    private static <T extends ChainException> T fails(Class<T> type, Supplier<Object> chain) {
        ChainException e = assertThrows(ChainException.class, chain::get);
        return assertInstanceOf(type, e, () -> "expected " + type.getSimpleName() + " but got " + e);
    }

    private static Object chain(String first, String function, Object params, ChainingFunctionSource cf, String next) {
        return client.runChain(first, function, params, cf, next == null ? ChainState.empty() : ChainState.of("next", next));
    }

    @Test
    void unknownFirstServerFailsAtTheClient() {
        UnknownServerException e = fails(UnknownServerException.class,
                () -> client.runChain("nowhere", "echo", "x", ChainingFunctionSource.NONE, ChainState.empty()));
        assertEquals(client.name(), e.host());
        assertEquals(0, e.hop());
        assertEquals(List.of(), e.path());
        assertEquals(UnknownServerException.class.getName(), e.exceptionName());
        assertTrue(e.getMessage().contains("no address for server 'nowhere'"), e.getMessage());
    }

    @Test
    void unknownNextServerNamesTheHopThatTriedIt() {
        UnknownServerException e = fails(UnknownServerException.class, () -> chain("s1", "echo", "x", GOTO, "nowhere/echo"));
        assertEquals("s1", e.host());
        assertEquals(1, e.hop());
        assertEquals(List.of("s1"), e.path());
        assertTrue(e.remoteMessage().startsWith("no address for server 'nowhere'"), e.remoteMessage());
    }

    @Test
    void unknownServiceFunction() {
        UnknownServiceFunctionException e = fails(UnknownServiceFunctionException.class,
                () -> chain("s1", "echo", "x", GOTO, "s2/nosuch"));
        assertEquals("s2", e.host());
        assertEquals(2, e.hop());
        assertEquals(List.of("s1", "s2"), e.path());
        assertEquals("server 's2' has no service function 'nosuch' (it has: [boom, echo, slow, unregistered])",
                e.remoteMessage());
    }

    @Test
    void aHopSentToAClientIsRefusedThere() {
        RpccClient target = clientWithExtraType;
        cluster.names.register(target.name(), target.address());
        UnknownServiceFunctionException e = fails(UnknownServiceFunctionException.class,
                () -> chain("s1", "echo", "x", GOTO, target.name() + "/echo"));
        assertEquals(target.name(), e.host());
        assertEquals(2, e.hop());
        assertEquals(List.of("s1", target.name()), e.path());
        assertEquals("node '" + target.name() + "' is a client and hosts no service functions (asked for 'echo')",
                e.remoteMessage());
        assertEquals("still serving", target.runChain("s1", "echo", "still serving", ChainingFunctionSource.NONE,
                ChainState.empty()).value(), "the client that refused the hop goes on");
    }

    @Test
    void serviceFunctionThatThrows() {
        ServiceFunctionException e = fails(ServiceFunctionException.class, () -> chain("s1", "echo", "x", GOTO, "s2/boom"));
        assertEquals("java.lang.IllegalStateException", e.exceptionName());
        assertTrue(e.remoteMessage().contains("boom at s2"), e.remoteMessage());
        assertEquals("s2", e.host());
        assertEquals(List.of("s1", "s2"), e.path());
        assertTrue(e.failure().details().stream().anyMatch(l -> l.contains("ChainErrorTest")), "stack trace travels");
    }

    @Test
    void chainingFunctionThatThrows() {
        ChainingFunctionSource cf = ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class Thrower implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        if (state.contains("go")) return NextHop.call("s2", "echo", result, ChainState.empty());
                        throw new IllegalArgumentException("bad state: " + state.names());
                    }
                }
                """);
        ChainingFunctionException e = fails(ChainingFunctionException.class,
                () -> client.runChain("s1", "echo", "x", cf, ChainState.of("go", true)));
        assertEquals("java.lang.IllegalArgumentException", e.exceptionName());
        assertEquals("bad state: []", e.remoteMessage());
        assertEquals("s2", e.host());
        assertEquals(2, e.hop());
        assertEquals(List.of("s1", "s2"), e.path());
        assertEquals(2, e.timings().size(), "timings up to the failure");
    }

    @Test
    void chainingFunctionThatReturnsNull() {
        ChainingFunctionSource cf = ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class Nothing implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) { return null; }
                }
                """);
        ChainingFunctionException e = fails(ChainingFunctionException.class,
                () -> client.runChain("s1", "echo", "x", cf, ChainState.empty()));
        assertTrue(e.remoteMessage().contains("returned null"), e.remoteMessage());
        assertEquals("s1", e.host());
    }

    @Test
    void chainingFunctionThatDoesNotCompile() {
        ChainingFunctionSource cf = ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class Broken implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        return NextHop.end(undefinedVariable);
                    }
                }
                """);
        ChainingFunctionCompileException e = fails(ChainingFunctionCompileException.class,
                () -> client.runChain("s2", "echo", "x", cf, ChainState.empty()));
        assertEquals("s2", e.host());
        assertEquals(1, e.hop());
        assertEquals(List.of("s2"), e.path());
        assertEquals(1, e.diagnostics().size(), e.getMessage());
        ChainingFunctionCompileException.Diagnostic d = e.diagnostics().get(0);
        assertEquals(4, d.line());
        assertEquals(28, d.column());
        assertTrue(d.message().contains("cannot find symbol"), d.message());
        assertTrue(e.getMessage().contains("Broken") && e.getMessage().contains("4:28"), e.getMessage());
        assertEquals(ChainErrorCode.CHAINING_FUNCTION_COMPILE, e.code());
        assertEquals(e.diagnostics(), e.failure().fields().diagnostics(), "diagnostics travel as fields");
    }

    @Test
    void aSandboxViolationAtHop2CarriesItsRuleAsAField() {
        ChainingFunctionSource cf = ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class Hog implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        if (state.contains("go")) return NextHop.call("s2", "echo", result, ChainState.empty());
                        long[] huge = new long[Integer.MAX_VALUE - 8];
                        return NextHop.end(huge.length);
                    }
                }
                """);
        SandboxViolationException e = fails(SandboxViolationException.class,
                () -> client.runChain("s1", "echo", "x", cf, ChainState.of("go", true)));
        assertEquals(ChainErrorCode.SANDBOX_VIOLATION, e.code());
        assertEquals("memory", e.failure().fields().sandboxRule(), "the rule travels as a field");
        assertEquals("memory", e.rule());
        assertEquals("s2", e.host());
        assertEquals(2, e.hop());
        assertEquals(List.of("s1", "s2"), e.path());
        assertFalse(e.isRetryable(), "the function, not the moment: it fails again");
    }

    @Test
    void unreachableNextHop() {
        HopUnreachableException e = fails(HopUnreachableException.class, () -> chain("s1", "echo", "x", GOTO, "dead/echo"));
        assertEquals("s1", e.host());
        assertEquals(1, e.hop());
        assertEquals(List.of("s1"), e.path());
        assertTrue(e.remoteMessage().startsWith("cannot connect to 'dead' at "), e.remoteMessage());
    }

    @Test
    void resolverPointingAtTheWrongNode() {
        cluster.names.register("impostor", cluster.names.resolve("s3").orElseThrow());
        try {
            HopUnreachableException e = fails(HopUnreachableException.class,
                    () -> chain("s1", "echo", "x", GOTO, "impostor/echo"));
            assertTrue(e.remoteMessage().contains("is 's3', not 'impostor'"), e.remoteMessage());
        } finally {
            cluster.names.unregister("impostor");
        }
    }

    @Test
    void valueTheReceiverCannotDecode() {
        UnregisteredTypeException e = fails(UnregisteredTypeException.class, () -> clientWithExtraType.runChain(
                "s1", "echo", new ClientOnly("hi"), ChainingFunctionSource.NONE, ChainState.empty()));
        assertEquals("s1", e.host());
        assertEquals(1, e.hop());
        assertEquals(List.of("s1"), e.path());
        assertEquals(ChainErrorCode.UNREGISTERED_TYPE, e.code());
        assertEquals(TypeRegistry.nameDerivedId(ClientOnly.class), e.typeId().orElseThrow(), "the id, as a field");
        assertEquals(ClientOnly.class.getName(), e.typeName().orElseThrow(), "the originator's class for that id");
        assertTrue(e.remoteMessage().contains("type id " + TypeRegistry.nameDerivedId(ClientOnly.class)
                + " (io.rpcc.server.ChainErrorTest$ClientOnly at the originator) is not registered on this node"),
                e.remoteMessage());
        assertTrue(e.remoteMessage().contains("sent by " + clientWithExtraType.name()), "names the sender: " + e.remoteMessage());
        assertTrue(e.remoteMessage().contains("rpcc.types"), "the Spring Boot property: " + e.remoteMessage());
        assertFalse(e.isRetryable());
    }

    @Test
    void unregisteredParameterTypeIsNamedAtTheClient() {
        UnregisteredTypeException e = fails(UnregisteredTypeException.class, () -> client.runChain(
                "s1", "echo", new Unregistered(1), ChainingFunctionSource.NONE, ChainState.empty()));
        assertEquals(0, e.hop());
        assertTrue(e.remoteMessage().contains("class io.rpcc.server.ChainErrorTest$Unregistered is not registered"),
                e.remoteMessage());
        assertTrue(e.remoteMessage().contains("register(io.rpcc.server.ChainErrorTest.Unregistered.class)")
                && e.remoteMessage().contains("rpcc.types"), e.remoteMessage());
        assertEquals(Unregistered.class.getName(), e.typeName().orElseThrow());
        assertTrue(e.typeId().isEmpty(), "the sender has no id for a class it did not register");
    }

    @Test
    void unregisteredResultTypeIsNamedByTheServer() {
        UnregisteredTypeException e = fails(UnregisteredTypeException.class,
                () -> chain("s1", "echo", "x", GOTO, "s2/unregistered"));
        assertEquals("s2", e.host());
        assertEquals(List.of("s1", "s2"), e.path());
        assertTrue(e.remoteMessage().contains("ChainErrorTest$Unregistered is not registered"), e.remoteMessage());
    }

    @Test
    void oversizedStateIsRefusedBeforeItIsSent() {
        String big = "x".repeat(100_000);
        FrameTooLargeException atClient = fails(FrameTooLargeException.class,
                () -> client.runChain("s3", "echo", "x", GOTO, ChainState.of("ballast", big)));
        assertEquals(0, atClient.hop());
        assertTrue(atClient.remoteMessage().contains("maximum frame size of 65536 bytes"), atClient.remoteMessage());

        ChainingFunctionSource grow = ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class Grow implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        if (state.contains("big")) return NextHop.end("done");
                        return NextHop.call("s3", "echo", result, state.with("big", new String(new char[100_000])));
                    }
                }
                """);
        FrameTooLargeException atHop = fails(FrameTooLargeException.class,
                () -> client.runChain("s1", "echo", "x", grow, ChainState.empty()));
        assertEquals("s1", atHop.host());
        assertEquals(List.of("s1"), atHop.path());
    }

    @Test
    void hopLimitEndsARunawayChain() {
        ChainingFunctionSource pingPong = ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class PingPong implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        String here = ChainContext.current().node();
                        return NextHop.call(here.equals("s1") ? "s2" : "s1", "echo", result, state);
                    }
                }
                """);
        HopLimitExceededException e = fails(HopLimitExceededException.class, () -> client.runChain(
                ChainCall.to("s1", "echo").params("x").chainingFunction(pingPong).maxHops(25)));
        assertEquals(25, e.hop());
        assertEquals(25, e.path().size());
        assertEquals("s1", e.host());
        assertTrue(e.remoteMessage().startsWith("chain reached its hop limit of 25 hops"), e.remoteMessage());

        HopLimitExceededException defaultLimit = fails(HopLimitExceededException.class, () -> client.runChain(
                ChainCall.to("s1", "echo").params("x").chainingFunction(pingPong).timeout(Duration.ofSeconds(60))));
        assertEquals(2000, defaultLimit.hop());
        // the path is bounded (HopPath): its first and last 16 servers, one entry counting the 1,968 between
        assertEquals(HopPath.MAX_ENTRIES, defaultLimit.path().size());
        assertEquals(2000, HopPath.visited(defaultLimit.path()));
        assertEquals("… 1968 hops …", defaultLimit.path().get(16));
        assertEquals("s2", defaultLimit.path().getLast());
        assertEquals("s2", defaultLimit.host());

        HopLimitExceededException interactive = fails(HopLimitExceededException.class, () -> client.runChain(
                ChainCall.to("s1", "echo").params("x").chainingFunction(pingPong).maxHops(10).interactive(true)));
        assertEquals(10, interactive.hop());
        assertEquals(10, interactive.path().size());
    }

    @Test
    void timeoutAtTheClientAndTheLateResultIsDropped() throws Exception {
        // The timeout cancels the chain, but the notice cannot reach s2 (this client forgets its
        // address once the request left), so s2's result arrives after the end: dropped and counted.
        StaticNameResolver own = new StaticNameResolver().register("s2", cluster.names.resolve("s2").orElseThrow());
        RpccClient forgetful = cluster.client(b -> b.resolver(own));
        CompletableFuture<ChainResult> f = forgetful.startChain(ChainCall.to("s2", "slow").params("x")
                .timeout(Duration.ofMillis(200)));
        own.unregister("s2");
        ChainTimeoutException e = fails(ChainTimeoutException.class, () -> {
            try {
                return f.join();
            } catch (CompletionException c) {
                throw (RuntimeException) c.getCause();
            }
        });
        assertEquals(forgetful.name(), e.host());
        assertTrue(e.remoteMessage().contains("no result within 200 ms"), e.remoteMessage());
        for (int i = 0; i < 100 && forgetful.lateFrames() == 0; i++) {
            Thread.sleep(50);
        }
        assertEquals(1, forgetful.lateFrames());
        assertEquals(0, forgetful.chainsInFlight());
    }

    @Test
    void garbageOnTheWireIsDroppedAndTheServerGoesOn() throws Exception {
        long malformedBefore = s1.stats().malformedFrames();
        InetSocketAddress addr = cluster.names.resolve("s1").orElseThrow();
        try (Socket raw = new Socket(addr.getAddress(), addr.getPort())) {
            raw.setSoTimeout(5000);
            OutputStream out = raw.getOutputStream();
            ByteBuf hello = new WireFormat(new Serialization(TypeRegistry.empty()))
                    .encode(new Hello("raw", "127.0.0.1", 1, 1 << 20), 1 << 20);
            out.write(ByteBufUtil.getBytes(hello));                         // the handshake first
            hello.release();
            byte v = FrameType.PROTOCOL_VERSION;
            out.write(new byte[] {0, 0, 0, 5, v, 99, 1, 2, 3});           // unknown frame type
            out.write(new byte[] {0, 0, 0, 6, v, 2, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff}); // truncated request
            out.flush();
            for (int i = 0; i < 100 && s1.stats().malformedFrames() < malformedBefore + 2; i++) {
                Thread.sleep(20);
            }
            assertEquals(malformedBefore + 2, s1.stats().malformedFrames());
            out.write(new byte[] {0, 0, 0, 5, (byte) (v + 1), 2, 1, 2, 3}); // another protocol version: connection closed
            out.flush();
            raw.getInputStream().readAllBytes(); // the server's HELLO, then the end of the stream (else: a timeout)
            assertEquals(-1, raw.getInputStream().read(), "the server closes a connection that speaks another version");
        }
        // @AfterEach then proves that s1 still serves chains.
    }
}
