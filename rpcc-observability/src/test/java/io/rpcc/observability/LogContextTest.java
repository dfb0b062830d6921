package io.rpcc.observability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainMdc;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.StaticRoute;
import io.rpcc.server.RpccServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The chain's log context ({@link ChainMdc}) on real nodes, captured with logback: a line the
 * application logs in a service function, one it logs in a task started with
 * {@code ctx.executor(pool)}, and rpcc's own line for a failing hop carry the chain id, hop number
 * and originator; afterwards the threads' MDC is as it was.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LogContextTest {
    static final String APP = "app.inventory";

    final StaticNameResolver names = new StaticNameResolver();
    final List<AutoCloseable> nodes = new ArrayList<>();
    final ListAppender<ILoggingEvent> events = new ListAppender<>();
    final ExecutorService pool = Executors.newSingleThreadExecutor();
    final Map<String, String> chainIds = new java.util.concurrent.ConcurrentHashMap<>();
    Logger app;
    Logger failures;

    @BeforeEach
    void capture() {
        events.start();
        app = (Logger) LoggerFactory.getLogger(APP);
        app.setLevel(Level.INFO);
        app.addAppender(events);
        failures = (Logger) LoggerFactory.getLogger("io.rpcc.failures");
        failures.addAppender(events);
    }

    @AfterEach
    void close() throws Exception {
        app.detachAppender(events);
        failures.detachAppender(events);
        pool.shutdownNow();
        for (AutoCloseable n : nodes.reversed()) {
            n.close();
        }
    }

    RpccServer server(RpccServer.Builder builder) {
        RpccServer s = builder.resolver(names).build().start();
        names.register(s.name(), s.address());
        nodes.add(s);
        return s;
    }

    RpccClient client() {
        RpccClient c = RpccClient.builder().name("origin").resolver(names).timeout(Duration.ofSeconds(30)).build().start();
        nodes.add(c);
        return c;
    }

    /** A service function that logs, and logs again in a task on {@link #pool} started through its context. */
    Object logging(Object p) throws InterruptedException {
        ChainContext ctx = ChainContext.current();
        chainIds.put(ctx.node(), ctx.chainId());
        org.slf4j.Logger log = LoggerFactory.getLogger(APP);
        log.info("in hop at {}", ctx.node());
        CountDownLatch done = new CountDownLatch(1);
        ctx.executor(pool).execute(() -> {
            log.info("in task at {}", ctx.node());
            done.countDown();
        });
        done.await();
        return p;
    }

    @Test
    void linesLoggedInAHopAndItsTasksCarryTheChain() throws Exception {
        server(RpccServer.builder("a").service("log", this::logging));
        server(RpccServer.builder("b").service("log", this::logging));
        RpccClient client = client();
        // the pool's thread carries values of its own before: they must be back after the tasks
        Map<String, String> before = Map.of(ChainMdc.CHAIN, "outer#1", "app.user", "alice");
        pool.submit(() -> before.forEach(MDC::put)).get();

        ChainResult r = client.runChain(ChainCall.along(StaticRoute.of(StaticRoute.hop("a", "log"),
                StaticRoute.hop("b", "log")), "x"));
        assertEquals("x", r.value());

        String chainId = chainIds.get("a");
        assertEquals(chainId, chainIds.get("b"));
        assertTrue(chainId.startsWith("origin#"), chainId);
        assertMdc("in hop at a", chainId, "1");
        assertMdc("in task at a", chainId, "1");
        assertMdc("in hop at b", chainId, "2");
        assertMdc("in task at b", chainId, "2");

        Map<String, String> after = pool.submit(() -> new HashMap<>(MDC.getCopyOfContextMap())).get();
        assertEquals(before, after, "the pool thread's MDC is as before the tasks");
        // the client's thread, which ran no hop, carries nothing
        assertEquals(null, MDC.get(ChainMdc.CHAIN));
    }

    @Test
    void rpccsOwnLineForAFailingHopCarriesTheChain() throws Exception {
        server(RpccServer.builder("a").service("fail", p -> {
            chainIds.put("a", ChainContext.current().chainId());
            throw new IllegalStateException("out of stock");
        }));
        RpccClient client = client();
        CompletionException e = assertThrows(CompletionException.class,
                () -> client.startChain(ChainCall.to("a", "fail").params("x")).join());
        assertInstanceOf(ServiceFunctionException.class, e.getCause());

        String chainId = chainIds.get("a");
        ILoggingEvent line = await(ev -> ev.getLoggerName().equals("io.rpcc.failures")
                && ev.getFormattedMessage().contains("failed at hop 1"));
        assertEquals(Level.WARN, line.getLevel());
        assertEquals(chainId, line.getMDCPropertyMap().get(ChainMdc.CHAIN), line.getFormattedMessage());
        assertEquals("1", line.getMDCPropertyMap().get(ChainMdc.HOP));
        assertEquals("origin", line.getMDCPropertyMap().get(ChainMdc.ORIGINATOR));
    }

    @Test
    void aScopeRestoresTheValuesItFound() {
        MDC.put(ChainMdc.HOP, "7");
        try {
            try (var scope = ChainMdc.put("o#5", 3, "o")) {
                assertEquals("o#5", MDC.get(ChainMdc.CHAIN));
                assertEquals("3", MDC.get(ChainMdc.HOP));
                assertEquals("o", MDC.get(ChainMdc.ORIGINATOR));
                try (var same = ChainMdc.put("o#5", 3, "o")) {
                    assertEquals("3", MDC.get(ChainMdc.HOP));
                }
                assertEquals("3", MDC.get(ChainMdc.HOP), "a nested scope of the same hop leaves the values");
                try (var other = ChainMdc.put("p#1", 200, "p")) {
                    assertEquals("200", MDC.get(ChainMdc.HOP));
                }
                assertEquals("o#5", MDC.get(ChainMdc.CHAIN), "a nested scope of another chain puts them back");
            }
            assertEquals("7", MDC.get(ChainMdc.HOP));
            assertEquals(null, MDC.get(ChainMdc.CHAIN));
            assertEquals(null, MDC.get(ChainMdc.ORIGINATOR));
        } finally {
            MDC.clear();
        }
    }

    private void assertMdc(String message, String chainId, String hop) throws InterruptedException {
        ILoggingEvent line = await(ev -> ev.getFormattedMessage().equals(message));
        Map<String, String> mdc = line.getMDCPropertyMap();
        assertEquals(chainId, mdc.get(ChainMdc.CHAIN), message);
        assertEquals(hop, mdc.get(ChainMdc.HOP), message);
        assertEquals("origin", mdc.get(ChainMdc.ORIGINATOR), message);
    }

    private ILoggingEvent await(java.util.function.Predicate<ILoggingEvent> which) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < end) {
            synchronized (events) { // ListAppender appends holding its own lock
                for (ILoggingEvent ev : events.list) {
                    if (which.test(ev)) {
                        return ev;
                    }
                }
            }
            Thread.sleep(5);
        }
        throw new AssertionError("no such line among " + events.list.size());
    }
}
