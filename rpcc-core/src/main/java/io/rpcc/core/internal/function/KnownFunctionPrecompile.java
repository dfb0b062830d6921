package io.rpcc.core.internal.function;

import io.rpcc.core.ChainingFunctionSource;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compiles the chaining functions a node knows before any chain names them (the functions given to
 * {@code NodeBuilder.precompileFunctions}) into the node's function cache, on a low-priority daemon
 * thread started with the node, so that the first chain naming one finds it compiled.
 *
 * <ul>
 *   <li>Bounded: at most {@link KnownFunctions#maxFunctions()} functions, and none started after
 *       {@link KnownFunctions#budget()} has passed since the node started; what is left over is
 *       compiled by the first chain that names it, as without this.</li>
 *   <li>Never fails the node and never delays its start: a function that does not compile (or whose
 *       repository does not answer) is logged at warn level and left for the first chain to report
 *       (a compile error stays in the cache, as any other; a repository that did not answer is asked again).</li>
 *   <li>Per node (each node has its own cache), stopped with it ({@link #stop()}): no further function
 *       starts; one compilation under way finishes on the compiler pool.</li>
 * </ul>
 */
final class KnownFunctionPrecompile {
    private static final Logger log = LoggerFactory.getLogger(KnownFunctionPrecompile.class);

    /**
     * The functions a node compiles at start, and the bounds of that work.
     *
     * @param functions the functions, in the order they are compiled (a reference is fetched from its repository)
     * @param maxFunctions at most this many are compiled at start
     * @param budget none is started once this long has passed since the node started
     */
    record KnownFunctions(List<ChainingFunctionSource> functions, int maxFunctions, Duration budget) {
        /** No function known at start. */
        static final KnownFunctions NONE = new KnownFunctions(List.of(), 0, Duration.ZERO);

        KnownFunctions {
            functions = List.copyOf(functions);
        }

        boolean isEmpty() {
            return functions.isEmpty() || maxFunctions < 1 || budget.isZero() || budget.isNegative();
        }
    }

    private final Thread thread;
    private volatile boolean stopped;
    private volatile int compiled;

    private KnownFunctionPrecompile(String node, KnownFunctions known, Consumer<ChainingFunctionSource> load) {
        this.thread = Thread.ofPlatform().daemon().name("rpcc-function-precompile-" + node)
                .unstarted(() -> run(node, known, load));
        this.thread.setPriority(Thread.MIN_PRIORITY);
    }

    /**
     * Starts compiling {@code known} with {@code load} (the node's cache loader) in the background.
     *
     * @return the precompile to {@link #stop()} with the node, or {@code null} if there is nothing to compile
     */
    static KnownFunctionPrecompile start(String node, KnownFunctions known, Consumer<ChainingFunctionSource> load) {
        if (known.isEmpty()) {
            return null;
        }
        KnownFunctionPrecompile p = new KnownFunctionPrecompile(node, known, load);
        p.thread.start();
        return p;
    }

    /** Waits up to {@code millis} for the precompile to end (for tests and benchmarks). */
    boolean awaitEnd(long millis) throws InterruptedException {
        thread.join(millis);
        return !thread.isAlive();
    }

    /** How many functions it compiled (or found compiled already). */
    int compiled() {
        return compiled;
    }

    /** The node closed: no further function starts. */
    void stop() {
        stopped = true;
        thread.interrupt();
    }

    private void run(String node, KnownFunctions known, Consumer<ChainingFunctionSource> load) {
        long start = System.nanoTime();
        long end = start + known.budget().toNanos();
        List<ChainingFunctionSource> functions = known.functions();
        int n = Math.min(functions.size(), known.maxFunctions());
        int failed = 0;
        int i = 0;
        for (; i < n && !stopped && System.nanoTime() - end < 0; i++) {
            ChainingFunctionSource f = functions.get(i);
            try {
                load.accept(f);
                compiled++;
            } catch (RuntimeException | LinkageError e) {
                if (stopped) {
                    return;
                }
                failed++;
                log.warn("node '{}': chaining function {} ({}) known at start could not be compiled; the first chain"
                        + " that names it gets the error (or, if its repository did not answer, fetches it again): {}",
                        node, FunctionRuntime.shortId(f), f.language(), e.getMessage());
            }
        }
        if (stopped) {
            return;
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        if (i < functions.size()) {
            log.info("node '{}': compiled {} of {} chaining functions known at start in {} ms ({} failed); the rest are"
                    + " compiled by the first chain that names each ({} at most, within {})", node, compiled,
                    functions.size(), ms, failed, known.maxFunctions(), known.budget());
        } else {
            log.debug("node '{}': compiled {} chaining functions known at start in {} ms ({} failed)", node, compiled,
                    ms, failed);
        }
    }
}
