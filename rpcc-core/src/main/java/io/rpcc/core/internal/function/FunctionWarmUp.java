package io.rpcc.core.internal.function;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.spi.CompiledFunction;
import io.rpcc.core.spi.FunctionCompiler;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warms the function compilers of a starting node off its critical path: a daemon thread compiles
 * {@value #JAVA_COMPILES} trivial Java functions and runs the last (javac's classes load and get
 * JIT-compiled, a second or two of CPU in a fresh JVM) and compiles and runs a trivial JavaScript function (GraalJS's engine and locale data,
 * a second or so), so that the first chain that needs either does not pay for it.
 *
 * <ul>
 *   <li>Once per JVM: what it warms is the JVM's (javac's classes, the static GraalJS engine), so the
 *       second node of a JVM warms nothing; a warm-up stopped before it finished is done again by the
 *       next node that starts.</li>
 *   <li>It never fails the node: a compiler that is absent (its module is not on the class path) is
 *       skipped, and whatever a warm-up throws is logged at debug level only.</li>
 *   <li>It stops with the node ({@link #stop()}): it starts no further step; a step already under
 *       way (one compilation) finishes on the daemon thread. The thread is never interrupted: javac
 *       reads the JDK's platform classes through a file channel that an interrupt closes, for every
 *       compilation in the JVM that shares it.</li>
 * </ul>
 */
final class FunctionWarmUp {
    private static final Logger log = LoggerFactory.getLogger(FunctionWarmUp.class);
    /** Whether some node of this JVM has warmed (or is warming) the compilers. */
    private static final AtomicBoolean WARMED = new AtomicBoolean();

    static final String JAVA_SOURCE = """
            import io.rpcc.core.*;
            /** rpcc's warm-up at node start: never run. */
            public class WarmUp implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.end(result);
                }
            }
            """;
    /** How many Java functions the warm-up compiles (javac's JIT warms over several). */
    static final int JAVA_COMPILES = 4;
    static final String JS_SOURCE = "// rpcc's warm-up at node start\n(state, result) => rpcc.end(result)";

    private final Thread thread;
    private volatile boolean stopped;
    private volatile boolean done;

    private FunctionWarmUp(Map<FunctionLanguage, FunctionCompiler> compilers) {
        this.thread = Thread.ofPlatform().daemon().name("rpcc-function-warm-up").unstarted(() -> run(compilers));
        this.thread.setPriority(Thread.MIN_PRIORITY);
    }

    /**
     * Starts warming {@code compilers} in the background, unless this JVM has done it already.
     *
     * @return the warm-up to {@link #stop()} with the node, or {@code null} if there is nothing to warm
     */
    static FunctionWarmUp start(Map<FunctionLanguage, FunctionCompiler> compilers) {
        if (compilers.isEmpty() || !WARMED.compareAndSet(false, true)) {
            return null;
        }
        FunctionWarmUp w = new FunctionWarmUp(Map.copyOf(compilers));
        w.thread.start();
        return w;
    }

    /** Whether the warm-up ran every step (for tests). */
    boolean done() {
        return done;
    }

    /** Waits up to {@code millis} for the warm-up to end (for tests and benchmarks). */
    boolean awaitEnd(long millis) throws InterruptedException {
        thread.join(millis);
        return !thread.isAlive();
    }

    /**
     * The node closed: no further step starts (the one under way finishes; it is not interrupted, see
     * above); a warm-up cut short is left to the next node.
     */
    void stop() {
        stopped = true;
    }

    private void run(Map<FunctionLanguage, FunctionCompiler> compilers) {
        long start = System.nanoTime();
        try {
            FunctionCompiler java = compilers.get(FunctionLanguage.JAVA);
            // javac's JIT needs a few compilations; the last function also runs (the sandbox's runtime classes)
            for (int i = 0; i < JAVA_COMPILES && java != null && !stopped; i++) {
                String source = JAVA_SOURCE.replace("never run", "variant " + i);
                boolean last = i == JAVA_COMPILES - 1;
                step("Java", () -> {
                    CompiledFunction f = java.compile(ChainingFunctionSource.java(source));
                    if (last) {
                        f.invoke(ChainState.empty(), "warm");
                    }
                });
            }
            FunctionCompiler js = compilers.get(FunctionLanguage.JS);
            if (js != null && !stopped) {
                step("JavaScript", () -> {
                    CompiledFunction f = js.compile(ChainingFunctionSource.javascript(JS_SOURCE));
                    f.invoke(ChainState.empty(), "warm");
                });
            }
        } finally {
            if (stopped) {
                WARMED.set(false); // cut short: the next node to start warms again
            } else {
                done = true;
                log.debug("chaining-function compilers warmed in {} ms", (System.nanoTime() - start) / 1_000_000);
            }
        }
    }

    private interface Step {
        void run() throws Exception;
    }

    private void step(String what, Step step) {
        try {
            step.run();
        } catch (Exception | LinkageError e) {
            if (!stopped) {
                log.debug("warming the {} chaining-function compiler failed (the first chain pays instead): {}", what,
                        e.toString());
            }
        }
    }
}
