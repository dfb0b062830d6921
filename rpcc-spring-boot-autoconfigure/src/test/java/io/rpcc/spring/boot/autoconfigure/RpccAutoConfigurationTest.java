package io.rpcc.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.client.StateFallback;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionIsolation;
import io.rpcc.core.NameResolver;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.SocketTransport;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.TypeRegistry;
import io.rpcc.server.RpccServer;
import io.rpcc.spring.boot.RpccClientCustomizer;
import io.rpcc.spring.boot.RpccNodeLifecycle;
import io.rpcc.spring.boot.RpccProperties;
import io.rpcc.spring.boot.RpccServerCustomizer;
import io.rpcc.spring.boot.autoconfigure.TestServices.Greeter;
import io.rpcc.spring.boot.autoconfigure.TestServices.Greeting;
import io.rpcc.spring.boot.autoconfigure.TestServices.Inventory;
import io.rpcc.spring.boot.autoconfigure.TestServices.Order;
import io.rpcc.spring.boot.autoconfigure.TestServices.PoliteGreeter;
import io.rpcc.spring.boot.autoconfigure.TestServices.ShoutAspect;
import io.rpcc.spring.boot.autoconfigure.scan.Quote;
import io.rpcc.spring.boot.health.RpccClientHealthIndicator;
import io.rpcc.spring.boot.health.RpccServerHealthIndicator;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.EnableAspectJAutoProxy;
import org.springframework.context.annotation.Import;

/** The auto-configuration's beans, properties and service registration, on real nodes in real contexts. */
class RpccAutoConfigurationTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RpccAutoConfiguration.class,
                    RpccHealthContributorAutoConfiguration.class, RpccTracingAutoConfiguration.class,
                    RpccMetricsAutoConfiguration.class));

    @Test
    void serverAndClientStartWithTheContext() {
        runner.withPropertyValues("rpcc.server.name=s1").run(context -> {
            assertThat(context).hasSingleBean(RpccServer.class).hasSingleBean(RpccClient.class)
                    .hasSingleBean(NameResolver.class)
                    .hasSingleBean(TypeRegistry.class).hasBean("rpccServerLifecycle").hasBean("rpccClientLifecycle");
            RpccServer server = context.getBean(RpccServer.class);
            assertThat(server.name()).isEqualTo("s1");
            assertThat(server.address().getPort()).isPositive();
            assertThat(context.getBean("rpccServerLifecycle", RpccNodeLifecycle.class).isRunning()).isTrue();
            // the server registered itself: the client reaches it by name
            assertThat(context.getBean(NameResolver.class).resolve("s1")).contains(server.address());
            assertThat(context.getBean(RpccClient.class).address().getPort()).isPositive();
        });
    }

    @Test
    void aChainPolicyBeanDecidesWhoMayCallWhat() {
        runner.withPropertyValues("rpcc.server.name=s1")
                .withBean(io.rpcc.server.ChainPolicy.class, () -> (service, caller) -> service.equals("secret")
                        ? io.rpcc.server.ChainPolicy.Decision.deny("not for you")
                        : io.rpcc.server.ChainPolicy.ALLOW_ALL.decide(service, caller))
                .withBean(RpccServerCustomizer.class, () -> b -> b.service("secret", p -> "s").service("open", p -> "o"))
                .run(context -> {
                    RpccClient client = context.getBean(RpccClient.class);
                    assertThat(client.runChain(io.rpcc.client.ChainCall.to("s1", "open")).value()).isEqualTo("o");
                    assertThatThrownBy(() -> client.runChain(io.rpcc.client.ChainCall.to("s1", "secret")))
                            .isInstanceOf(io.rpcc.core.PermissionDeniedException.class).hasMessageContaining("not for you");
                });
    }

    @Test
    void theServerNameDefaultsToTheApplicationName() {
        runner.withPropertyValues("spring.application.name=catalog")
                .run(context -> assertThat(context.getBean(RpccServer.class).name()).isEqualTo("catalog"));
    }

    @Test
    void aServerWithoutANameFailsSayingWhichPropertyToSet() {
        runner.run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                .hasMessageContaining("rpcc.server.name").hasMessageContaining("rpcc.server.enabled=false"));
    }

    @Test
    void propertiesTurnTheServerAndTheClientOff() {
        runner.withPropertyValues("rpcc.server.enabled=false").run(context -> assertThat(context)
                .doesNotHaveBean(RpccServer.class).doesNotHaveBean("rpccServerLifecycle")
                .doesNotHaveBean(RpccServerHealthIndicator.class).hasSingleBean(RpccClientHealthIndicator.class)
                .hasSingleBean(RpccClient.class));
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.client.enabled=false").run(context -> assertThat(context)
                .hasSingleBean(RpccServer.class).doesNotHaveBean(RpccClient.class));
    }

    @Test
    void propertiesAreBoundAndApplied() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.server.port=" + port, "rpcc.server.max-hops=7",
                        "rpcc.server.max-frame-size=2MB", "rpcc.peers.b=127.0.0.1:7999", "rpcc.peers.c=[::1]:8001",
                        "rpcc.types=" + Order.class.getName(), "rpcc.client.name=c1", "rpcc.client.timeout=3s",
                        "rpcc.client.reply-buffer-bytes=1MB", "rpcc.shutdown-grace=2s")
                .run(context -> {
                    RpccProperties properties = context.getBean(RpccProperties.class);
                    assertThat(properties.getServer().getMaxHops()).isEqualTo(7);
                    assertThat(properties.getServer().getMaxFrameSize().toBytes()).isEqualTo(2L << 20);
                    assertThat(properties.getClient().getTimeout()).isEqualTo(Duration.ofSeconds(3));
                    assertThat(context.getBean(RpccServer.class).address().getPort()).isEqualTo(port);
                    assertThat(context.getBean(RpccClient.class).name()).isEqualTo("c1");
                    NameResolver names = context.getBean(NameResolver.class);
                    assertThat(names.resolve("b")).contains(new InetSocketAddress("127.0.0.1", 7999));
                    assertThat(names.resolve("c")).contains(new InetSocketAddress("::1", 8001));
                    assertThat(context.getBean(TypeRegistry.class).registrations())
                            .anySatisfy(r -> assertThat(r.type()).isEqualTo(Order.class));
                    assertThat(context.getBean("rpccServerLifecycle", RpccNodeLifecycle.class).grace())
                            .isEqualTo(Duration.ofSeconds(2));
                });
    }

    /** A Java chaining function that wraps the stock count in an application type ({@code scan.Quote}). */
    private static final ChainingFunctionSource QUOTE = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            import io.rpcc.spring.boot.autoconfigure.scan.Quote;
            public class ToQuote implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.end(new Quote(state.get("sku", String.class), ((Integer) result).longValue()));
                }
            }
            """);

    @Test
    void javaFunctionPropertiesRunFunctionsInRunnerProcesses() {
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.types=" + Order.class.getName() + "," + Quote.class.getName(),
                        "rpcc.server.functions.java.isolation=process", "rpcc.server.functions.java.runners=1",
                        "rpcc.server.functions.java.spare-runners=1", "rpcc.server.functions.java.runner-queue=4",
                        "rpcc.server.functions.java.runner-heap=64MB")
                .withUserConfiguration(PlainServices.class).run(context -> {
                    RpccProperties.JavaFunctions java = context.getBean(RpccProperties.class).getServer().getFunctions()
                            .getJava();
                    assertThat(java.getIsolation()).isEqualTo(FunctionIsolation.PROCESS);
                    assertThat(java.getRunnerHeap().toMegabytes()).isEqualTo(64);
                    ChainResult result = context.getBean(RpccClient.class).runChain(ChainCall.to("s1", "stock")
                            .params(new Order("abc", 4)).chainingFunction(QUOTE).state(ChainState.of("sku", "abc")));
                    assertThat(result.value()).isEqualTo(new Quote("abc", 12));
                    // the server's runner pool: runner JVMs, children of this one, with the heap the property set
                    assertThat(runnerArguments()).isNotEmpty().allSatisfy(args -> assertThat(args).contains("-Xmx64m"));
                });
    }

    @Test
    void javaFunctionsRunInProcessByDefault() {
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.types=" + Order.class.getName() + "," + Quote.class.getName())
                .withUserConfiguration(PlainServices.class).run(context -> {
                    RpccProperties.JavaFunctions java = context.getBean(RpccProperties.class).getServer().getFunctions()
                            .getJava();
                    assertThat(java.getIsolation()).isEqualTo(FunctionIsolation.IN_PROCESS);
                    assertThat(List.of(java.getRunners(), java.getSpareRunners(), java.getRunnerQueue()))
                            .containsExactly(2, 2, 32);
                    assertThat(java.getRunnerHeap().toMegabytes()).isEqualTo(96);
                    ChainResult result = context.getBean(RpccClient.class).runChain(ChainCall.to("s1", "stock")
                            .params(new Order("abc", 4)).chainingFunction(QUOTE).state(ChainState.of("sku", "abc")));
                    assertThat(result.value()).isEqualTo(new Quote("abc", 12));
                    assertThat(runnerArguments()).isEmpty();
                });
    }

    @Test
    void theTransportPropertiesChooseEachNodesSocketTransport() {
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.server.transport=nio").run(context -> {
            assertThat(context.getBean(RpccServer.class).transport()).isEqualTo(SocketTransport.NIO);
            assertThat(context.getBean(RpccServerHealthIndicator.class).health().getDetails())
                    .containsEntry("transport", "NIO");
        });
        runner.withPropertyValues("rpcc.server.name=s1").run(context -> assertThat(context.getBean(RpccServer.class)
                .transport()).isIn(SocketTransport.EPOLL, SocketTransport.NIO)); // AUTO: never fails, says which
        if (io.netty.channel.epoll.Epoll.isAvailable()) {
            runner.withPropertyValues("rpcc.server.name=s1", "rpcc.server.transport=epoll", "rpcc.client.transport=nio")
                    .run(context -> {
                        assertThat(context.getBean(RpccServer.class).transport()).isEqualTo(SocketTransport.EPOLL);
                        assertThat(context.getBean(RpccClient.class).transport()).isEqualTo(SocketTransport.NIO);
                    });
        }
    }

    @Test
    void aRunnerPoolOutOfRangeNamesTheProperties() {
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.server.functions.java.isolation=by-trust",
                        "rpcc.server.functions.java.runner-heap=8MB")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("rpcc.server.functions.java.runners").hasMessageContaining("heap=8 MiB")
                        .hasMessageContaining("at least 16MB"));
    }

    /** The application's chaining function, as a bean: the server compiles it at start. */
    @Configuration(proxyBeanMethods = false)
    static class KnownFunction {
        @Bean
        ChainingFunctionSource quote() {
            return QUOTE;
        }
    }

    @Test
    void chainingFunctionBeansAreCompiledAtStartBeforeAnyChain() {
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.types=" + Order.class.getName() + "," + Quote.class.getName())
                .withUserConfiguration(PlainServices.class, KnownFunction.class).run(context -> {
                    RpccServer server = context.getBean(RpccServer.class);
                    long end = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
                    while (server.stats().functionCacheMisses() < 1 && System.nanoTime() < end) {
                        Thread.sleep(20);
                    }
                    assertThat(server.stats().functionCacheMisses()).isEqualTo(1);
                    ChainResult result = context.getBean(RpccClient.class).runChain(ChainCall.to("s1", "stock")
                            .params(new Order("abc", 4)).chainingFunction(QUOTE).state(ChainState.of("sku", "abc")));
                    assertThat(result.value()).isEqualTo(new Quote("abc", 12));
                    assertThat(server.stats().functionCacheMisses()).as("the chain found it compiled").isEqualTo(1);
                });
    }

    @Test
    void aPrecompileBudgetOutOfRangeNamesTheProperties() {
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.server.functions.precompile.max-functions=0")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("rpcc.server.functions.precompile.max-functions"));
    }

    /** The command lines of this JVM's function-runner children (a server's runner pool). */
    private static List<String> runnerArguments() {
        return ProcessHandle.current().children().map(RpccAutoConfigurationTest::commandLine)
                .filter(args -> args.contains("io.rpcc.core.internal.function.FunctionRunnerMain")).toList();
    }

    /**
     * The command line of {@code process}: from /proc where there is one (ProcessHandle.Info has no
     * arguments for a command line as long as this test JVM's class path), else from ProcessHandle.Info.
     */
    private static String commandLine(ProcessHandle process) {
        Path proc = Path.of("/proc", Long.toString(process.pid()), "cmdline");
        try {
            return new String(Files.readAllBytes(proc), StandardCharsets.UTF_8).replace('\0', ' ');
        } catch (IOException e) {
            return process.info().arguments().map(a -> String.join(" ", a)).orElse("");
        }
    }

    @Test
    void theGraceDefaultsToSpringsShutdownPhaseTimeout() {
        runner.withPropertyValues("rpcc.server.name=s1", "spring.lifecycle.timeout-per-shutdown-phase=7s")
                .run(context -> {
                    assertThat(context.getBean("rpccServerLifecycle", RpccNodeLifecycle.class).grace())
                            .isEqualTo(Duration.ofSeconds(7));
                    assertThat(context.getBean("rpccClientLifecycle", RpccNodeLifecycle.class).grace())
                            .isEqualTo(Duration.ofSeconds(7));
                });
        runner.withPropertyValues("rpcc.server.name=s1").run(context -> assertThat(
                context.getBean("rpccServerLifecycle", RpccNodeLifecycle.class).grace()).isEqualTo(Duration.ofSeconds(30)));
    }

    @Test
    void aMalformedPeerNamesTheKeyAndTheExpectedForm() {
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.peers.b=nohost").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageContaining("rpcc.peers.b=nohost")
                .hasMessageContaining("expected host:port"));
    }

    @Test
    void serviceBeansServeChains() {
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.types=" + Order.class.getName())
                .withUserConfiguration(PlainServices.class).run(context -> {
                    RpccClient client = context.getBean(RpccClient.class);
                    assertThat(client.call("s1", "stock", new Order("abc", 4)).join().value()).isEqualTo(12);
                    assertThat(client.call("s1", "ping", null).join().value()).isEqualTo("pong");
                    assertThatThrownBy(() -> client.call("s1", "notAService", null).join())
                            .hasMessageContaining("notAService");
                    // the parameter's type is checked, with a message naming the function and both types
                    assertThatThrownBy(() -> client.call("s1", "stock", "abc").join())
                            .cause().isInstanceOf(ServiceFunctionException.class)
                            .hasMessageContaining("service function 'stock' takes a " + Order.class.getName());
                });
    }

    @Test
    void aServiceInterfacesMethodsAreServedWithSeveralParametersAsAList() {
        runner.withPropertyValues("rpcc.server.name=s1").withUserConfiguration(InterfaceServices.class).run(context -> {
            RpccClient client = context.getBean(RpccClient.class);
            assertThat(client.call("s1", "price", List.of("abc", 2)).join().value()).isEqualTo(600L);
            assertThatThrownBy(() -> client.call("s1", "price", "abc").join())
                    .cause().isInstanceOf(ServiceFunctionException.class)
                    .hasMessageContaining("takes 2 parameters, passed as a list of 2 values");
        });
    }

    @Test
    void aServiceMethodWhoseLastParameterIsAnInputStreamReadsTheHopsDataStream() {
        runner.withPropertyValues("rpcc.server.name=s1").withUserConfiguration(StreamingServices.class).run(context -> {
            byte[] data = new byte[3 << 20]; // 3 MB: more than a stream's window at the server
            ChainResult result = context.getBean(RpccClient.class).runChain(ChainCall.to("s1", "upload")
                    .params("prices.csv").stream(new ByteArrayInputStream(data)));
            assertThat(result.value()).isEqualTo("prices.csv: " + data.length + " bytes");
            assertThat(context.getBean(RpccServer.class).streamStats().streamsOpened()).isEqualTo(1);
        });
    }

    @Test
    void anIdempotentServiceMethodRunsAgainWhenItsChainIsSentAgainAndTheOthersReplay() throws Exception {
        int nobody;
        try (ServerSocket socket = new ServerSocket(0)) {
            nobody = socket.getLocalPort();
        }
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.peers.gone=127.0.0.1:" + nobody)
                .withUserConfiguration(CountingServices.class).run(context -> {
                    RpccClient client = context.getBean(RpccClient.class);
                    TestServices.Counters counters = context.getBean(TestServices.Counters.class);
                    for (String function : List.of("read", "write")) {
                        // the hop at s1 runs, the next one cannot be reached; sent again, s1 sees the same chain
                        ChainCall call = ChainCall.along(StaticRoute.of(StaticRoute.hop("s1", function),
                                StaticRoute.hop("gone", "x")), 1);
                        ChainException first = (ChainException) catchThrowable(() -> client.runChain(call));
                        assertThat(first).isNotNull();
                        assertThatThrownBy(() -> client.retransmit(first, Duration.ofSeconds(10)).join())
                                .cause().isInstanceOf(ChainException.class);
                    }
                    assertThat(counters.idempotentRuns).as("idempotent: it runs again").hasValue(2);
                    assertThat(counters.otherRuns).as("not idempotent: its outcome is replayed").hasValue(1);
                });
    }

    @Test
    void anIdempotentStreamingServiceMethodIsRefusedSayingWhy() {
        runner.withPropertyValues("rpcc.server.name=s1").withUserConfiguration(IdempotentStreamingService.class)
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("@ServiceMethod " + TestServices.IdempotentUpload.class.getName()
                                + ".upload of bean 'idempotentUpload' reads a data stream")
                        .hasStackTraceContaining("remove idempotent = true"));
    }

    @Test
    void theStateFallbackAndStreamPropertiesAreApplied() {
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.types=" + Order.class.getName() + "," + Quote.class.getName(),
                        "rpcc.client.state-fallback=always", "rpcc.server.stream-buffer-bytes=8MB", "rpcc.server.stream-buffer-share=0.25",
                        "rpcc.server.stream-window-bytes=512KB", "rpcc.server.stream-chunk-bytes=16KB",
                        "rpcc.server.max-streams-per-connection=4", "rpcc.server.stream-idle-timeout=5s",
                        "rpcc.client.stream-chunk-bytes=32KB")
                .withUserConfiguration(PlainServices.class, StreamingServices.class).run(context -> {
                    RpccProperties properties = context.getBean(RpccProperties.class);
                    assertThat(properties.getClient().getStateFallback()).isEqualTo(StateFallback.ALWAYS);
                    assertThat(properties.getServer().getStreamWindowBytes().toKilobytes()).isEqualTo(512);
                    assertThat(properties.getServer().getMaxStreamsPerConnection()).isEqualTo(4);
                    assertThat(properties.getServer().getStreamIdleTimeout()).isEqualTo(Duration.ofSeconds(5));
                    assertThat(properties.getClient().getStreamChunkBytes().toKilobytes()).isEqualTo(32);
                    RpccServer server = context.getBean(RpccServer.class);
                    assertThat(server.streamStats().budgetBytes()).isEqualTo(8L << 20);
                    assertThat(server.streamStats().budgetBytesPerAddress()).isEqualTo(2L << 20);
                    // ALWAYS: the state stays at the client, which runs the chaining function itself
                    ChainResult result = context.getBean(RpccClient.class).runChain(ChainCall.to("s1", "stock")
                            .params(new Order("abc", 4)).chainingFunction(QUOTE).state(ChainState.of("sku", "abc")));
                    assertThat(result.value()).isEqualTo(new Quote("abc", 12));
                    assertThat(result.interactive()).isTrue();
                    // a stream through the server's smaller window and chunks
                    byte[] data = new byte[2 << 20];
                    assertThat(context.getBean(RpccClient.class).runChain(ChainCall.to("s1", "upload").params("a")
                            .stream(new ByteArrayInputStream(data)).stateFallback(StateFallback.NEVER)).value())
                            .isEqualTo("a: " + data.length + " bytes");
                    assertThat(server.streamStats().peakBufferedBytes()).isLessThanOrEqualTo(512 << 10);
                });
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.client.state-fallback=adaptive").run(context ->
                assertThat(context.getBean(RpccProperties.class).getClient().getStateFallback())
                        .isEqualTo(StateFallback.ADAPTIVE));
    }

    @Test
    void streamPropertiesOutOfRangeNameTheProperties() {
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.server.stream-window-bytes=1KB")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("rpcc.server.stream-buffer-bytes, .stream-buffer-share, .stream-window-bytes")
                        .hasStackTraceContaining("streamWindowBytes must be at least 262144"));
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.server.stream-buffer-share=1.5")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining(".stream-buffer-share"));
        runner.withPropertyValues("rpcc.server.name=s1", "rpcc.client.max-streams-per-connection=0")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("rpcc.client.stream-buffer-bytes"));
    }

    @Test
    void proxiedServiceBeansAreCalledThroughTheirProxies() {
        runner.withPropertyValues("rpcc.server.name=s1").withUserConfiguration(ClassProxiedServices.class)
                .run(context -> {
                    assertThat(AopUtils.isCglibProxy(context.getBean(Greeter.class))).isTrue();
                    ChainResult result = context.getBean(RpccClient.class).call("s1", "greet", "ann").join();
                    assertThat(result.value()).isEqualTo("HELLO ANN"); // the advice ran, and the target's field was there
                    assertThat(context.getBean(ShoutAspect.class).calls).hasValue(1);
                });
        runner.withPropertyValues("rpcc.server.name=s1").withUserConfiguration(InterfaceProxiedServices.class)
                .run(context -> {
                    assertThat(AopUtils.isJdkDynamicProxy(context.getBean(Greeting.class))).isTrue();
                    ChainResult result = context.getBean(RpccClient.class).call("s1", "greetPolitely", "bob").join();
                    assertThat(result.value()).isEqualTo("GOOD DAY BOB");
                    assertThat(context.getBean(ShoutAspect.class).calls).hasValue(1);
                });
    }

    @Test
    void aServiceMethodThatTheProxyCannotReachIsAClearError() {
        runner.withPropertyValues("rpcc.server.name=s1").withUserConfiguration(HiddenBehindJdkProxy.class)
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("@ServiceMethod " + TestServices.Hidden.class.getName()
                                + ".hidden of bean 'hidden' cannot be called through the bean's AOP proxy")
                        .hasStackTraceContaining("declare it on an interface"));
    }

    @Test
    void aServiceNameDeclaredTwiceNamesBothBeans() {
        runner.withPropertyValues("rpcc.server.name=s1").withUserConfiguration(PlainServices.class, DuplicatePing.class)
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("service function 'ping' is declared twice")
                        .hasMessageContaining("bean 'inventory'").hasMessageContaining("bean 'secondPing'"));
    }

    @Test
    void aServiceBeanWithoutServiceMethodsIsAnError() {
        runner.withPropertyValues("rpcc.server.name=s1").withUserConfiguration(EmptyService.class)
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("@RpccService bean 'empty'").hasMessageContaining("no @ServiceMethod"));
    }

    @Test
    void customizersChangeTheBuilders() {
        AtomicBoolean serverCustomized = new AtomicBoolean();
        runner.withPropertyValues("rpcc.server.name=s1")
                .withBean(RpccServerCustomizer.class, () -> builder -> {
                    serverCustomized.set(true);
                    builder.service("extra", params -> "from a customizer");
                })
                .withBean(RpccClientCustomizer.class, () -> builder -> builder.name("customized-client"))
                .run(context -> {
                    assertThat(serverCustomized).isTrue();
                    RpccClient client = context.getBean(RpccClient.class);
                    assertThat(client.name()).isEqualTo("customized-client");
                    assertThat(client.call("s1", "extra", null).join().value()).isEqualTo("from a customizer");
                });
    }

    @Test
    void applicationBeansReplaceTheAutoConfiguredOnes() {
        TypeRegistry types = TypeRegistry.of(Order.class);
        runner.withPropertyValues("rpcc.server.enabled=false")
                .withBean(TypeRegistry.class, () -> types)
                .run(context -> assertThat(context.getBean(TypeRegistry.class)).isSameAs(types));
    }

    @Configuration(proxyBeanMethods = false)
    static class InterfaceServices {
        @Bean
        TestServices.PricingService pricing() {
            return new TestServices.PricingService();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CountingServices {
        @Bean
        TestServices.Counters counters() {
            return new TestServices.Counters();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class StreamingServices {
        @Bean
        TestServices.UploadService uploads() {
            return new TestServices.UploadService();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class IdempotentStreamingService {
        @Bean
        TestServices.IdempotentUpload idempotentUpload() {
            return new TestServices.IdempotentUpload();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PlainServices {
        @Bean
        Inventory inventory() {
            return new Inventory();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAspectJAutoProxy(proxyTargetClass = true)
    static class ClassProxiedServices {
        @Bean
        ShoutAspect shoutAspect() {
            return new ShoutAspect();
        }

        @Bean
        Greeter greeter() {
            return new Greeter();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAspectJAutoProxy(proxyTargetClass = false)
    static class InterfaceProxiedServices {
        @Bean
        ShoutAspect shoutAspect() {
            return new ShoutAspect();
        }

        @Bean
        PoliteGreeter politeGreeter() {
            return new PoliteGreeter();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAspectJAutoProxy(proxyTargetClass = false)
    @Import(TestServices.ShoutAspect.class)
    static class HiddenBehindJdkProxy {
        @Bean
        TestServices.Hidden hidden() {
            return new TestServices.Hidden();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class DuplicatePing {
        @Bean
        TestServices.SecondPing secondPing() {
            return new TestServices.SecondPing();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class EmptyService {
        @Bean
        TestServices.Empty empty() {
            return new TestServices.Empty();
        }
    }
}
