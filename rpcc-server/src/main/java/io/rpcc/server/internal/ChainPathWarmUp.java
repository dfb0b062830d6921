package io.rpcc.server.internal;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.Metadata;
import io.rpcc.core.NextHop;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.internal.chain.ChainOriginator;
import io.rpcc.core.internal.chain.ChainStart;
import io.rpcc.core.internal.chain.HeartbeatPolicy;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.server.RpccServer;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warms the path a chain takes through a server (originating it, encoding and decoding its frames,
 * the hop's dispatch, a sandboxed Java chaining function's invocation, the result's way back), so
 * that the first chain a fresh node runs does not pay for loading and JIT-compiling that code: once
 * per JVM, on a low-priority daemon thread started with the JVM's first server, after that server's
 * compiler warm-up and compilation of known functions ended, it runs up to {@value #CHAINS} short
 * chains between two throwaway nodes of its own on loopback, and closes them.
 *
 * <p>Opt-in, with the system property {@value #ENABLED_PROPERTY}{@code =true}: it starts two nodes of
 * its own (loopback ports, threads) for a few seconds after the first server starts, which an
 * application that counts its threads or ports may not expect.
 *
 * <ul>
 *   <li>Invisible: the throwaway nodes are not the application's (no counters, outcome cache,
 *       interceptors, decorators, policy or services of its are involved); their function is rpcc's
 *       own trivial one, never an application's.</li>
 *   <li>Bounded: at most {@value #CHAINS} chains within {@link #BUDGET}; it never fails a node (what
 *       goes wrong is logged at debug level).</li>
 *   <li>Stopped with the server that started it ({@link #stop()}): no further chain starts.</li>
 * </ul>
 */
public final class ChainPathWarmUp {
    private static final Logger log = LoggerFactory.getLogger(ChainPathWarmUp.class);
    /** Whether this JVM's chain path is warmed (or being warmed). */
    private static final AtomicBoolean STARTED = new AtomicBoolean();
    /** The system property that turns it on ({@code true}); off by default. */
    public static final String ENABLED_PROPERTY = "rpcc.warmUp.chainPath";
    /** How many chains it runs at most. */
    static final int CHAINS = 40;
    /** No chain starts after this long. */
    static final Duration BUDGET = Duration.ofSeconds(5);
    /** How long it waits for the starting server's function warm-up before running its chains anyway. */
    private static final long AWAIT_FUNCTIONS_MILLIS = 60_000;

    static final ChainingFunctionSource FUNCTION = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            /** rpcc's warm-up of the chain path at node start. */
            public class ChainPathWarmUp implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.end(result);
                }
            }
            """);

    private final Thread thread;
    private volatile boolean stopped;

    private ChainPathWarmUp(Node node, Function<RpccServer, Node> nodeOf) {
        this.thread = Thread.ofPlatform().daemon().name("rpcc-chain-warm-up").unstarted(() -> run(node, nodeOf));
        this.thread.setPriority(Thread.MIN_PRIORITY);
    }

    /**
     * Starts warming the chain path in the background after {@code node}'s function warm-up (the
     * throwaway servers' nodes reached through {@code nodeOf}), unless
     * it is off ({@value #ENABLED_PROPERTY}) or this JVM did it already.
     *
     * @return the warm-up to {@link #stop()} with the server, or {@code null} if there is none
     */
    public static ChainPathWarmUp startOnce(Node node, Function<RpccServer, Node> nodeOf) {
        if (!Boolean.getBoolean(ENABLED_PROPERTY) || !STARTED.compareAndSet(false, true)) {
            return null;
        }
        ChainPathWarmUp w = new ChainPathWarmUp(node, nodeOf);
        w.thread.start();
        return w;
    }

    /** The server closed: no further chain starts. */
    public void stop() {
        stopped = true;
        thread.interrupt();
    }

    /** Waits up to {@code millis} for the warm-up to end (for tests and benchmarks). */
    public boolean awaitEnd(long millis) throws InterruptedException {
        thread.join(millis);
        return !thread.isAlive();
    }

    private void run(Node node, Function<RpccServer, Node> nodeOf) {
        try {
            node.functions().awaitWarmUp(AWAIT_FUNCTIONS_MILLIS);
        } catch (InterruptedException e) {
            return;
        }
        if (stopped) {
            return;
        }
        long start = System.nanoTime();
        long end = start + BUDGET.toNanos();
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        StaticNameResolver names = new StaticNameResolver();
        int ran = 0;
        try (RpccServer host = RpccServer.builder("rpcc-warm-up-host-" + suffix).resolver(names)
                .service("echo", p -> p).build().start();
             RpccServer origin = RpccServer.builder("rpcc-warm-up-origin-" + suffix).resolver(names).build().start()) {
            names.register(host.name(), host.address());
            names.register(origin.name(), origin.address());
            for (; ran < CHAINS && !stopped && System.nanoTime() - end < 0; ran++) {
                ChainStart chain = new ChainStart(new NextHop.Call(host.name(), "echo", "warm-up " + ran, FUNCTION,
                        ChainState.of("i", ran)), Metadata.empty(), 4, BUDGET, null, HeartbeatPolicy.OFF);
                ChainOriginator.Pending p = nodeOf.apply(origin).launch(chain, (value, hop, at, bytes) -> { });
                p.outcome().get(BUDGET.toMillis(), TimeUnit.MILLISECONDS);
            }
            log.debug("warmed the chain path with {} chains in {} ms", ran, (System.nanoTime() - start) / 1_000_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception | LinkageError e) {
            if (!stopped) {
                log.debug("warming the chain path stopped after {} chains (the first chain pays instead): {}", ran,
                        e.toString());
            }
        } finally {
            if (stopped && ran == 0) {
                STARTED.set(false); // cut short before anything ran: the next server warms again
            }
        }
    }
}
