package io.rpcc.function.java.internal;

import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainException;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.spi.FunctionFailure;
import io.rpcc.core.spi.FunctionText;
import io.rpcc.core.spi.FunctionThreads;
import io.rpcc.core.spi.InvocationAbandoned;
import io.rpcc.core.spi.SandboxViolation;
import io.rpcc.core.spi.WallClock;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The Java sandbox's dynamic half: runs an instrumented chaining function under a {@link Budget}
 * on a platform thread (the JVM measures CPU time and allocation only for those), watched by the
 * {@link SandboxWatchdog} for wall time on every path. From a virtual thread the invocation moves to
 * a sandbox thread and the caller waits at most the wall-time limit. Nothing of the function runs
 * outside its budget: what it throws is described (class, message, stack trace) inside the budget,
 * so that overridden {@code getMessage()} or {@code toString()} run under its checks, and no object
 * of the function's is kept in the failure.
 */
final class Sandbox {
    private static final ThreadLocal<Consumer<FunctionFailure>> ON_ABANDON = new ThreadLocal<>();

    private final SandboxLimits limits;
    private final AtomicInteger abandonedRunning = new AtomicInteger();

    Sandbox(SandboxLimits limits) {
        this.limits = limits;
    }

    /** This sandbox's (its node's) abandoned invocations whose threads still run. */
    int abandonedRunning() {
        return abandonedRunning.get();
    }

    /**
     * Runs {@code work} with {@code onAbandon} as the hook of any sandboxed invocation it makes on
     * this thread: if the watchdog abandons the invocation, the hook reports the hop's failure and
     * the invocation ends with {@link InvocationAbandoned}.
     */
    static <T> T whenAbandoned(Consumer<FunctionFailure> onAbandon, Callable<T> work) throws Exception {
        ON_ABANDON.set(onAbandon);
        try {
            return work.call();
        } finally {
            ON_ABANDON.remove();
        }
    }

    /** Runs {@code task} in the sandbox; failures become typed {@link FunctionFailure}s. */
    <T> T run(Callable<T> task) throws Exception {
        ChainContext ctx = ChainContext.currentOrNull();
        Consumer<FunctionFailure> onAbandon = ON_ABANDON.get();
        long wallNanos = limits.wallTime().toNanos();
        if (!Thread.currentThread().isVirtual()) {
            return translate(() -> body(task, ctx, onAbandon, new WallClock(System.nanoTime(), wallNanos)));
        }
        WallClock clock = new WallClock(System.nanoTime(), wallNanos); // read here while the sandbox thread runs
        Future<T> f = FunctionThreads.submit(() -> body(task, ctx, failure -> { }, clock)); // the caller reports
        long slackNanos = TimeUnit.MILLISECONDS.toNanos(SandboxWatchdog.GRACE_MS + SandboxWatchdog.PERIOD_MS);
        return translate(() -> {
            try {
                while (true) {
                    // the deadline moves on while the function waits in preturn for its chain's reader
                    long left = clock.deadline(System.nanoTime()) + slackNanos - System.nanoTime();
                    try {
                        return f.get(Math.max(left, 0), TimeUnit.NANOSECONDS);
                    } catch (TimeoutException e) {
                        if (clock.deadline(System.nanoTime()) + slackNanos - System.nanoTime() > 0) {
                            continue;
                        }
                        f.cancel(true); // the watchdog has marked it; it ends at its next check
                        throw new SandboxViolation("wall-time", "chaining function did not return within "
                                + limits.wallTime().toMillis() + " ms" + clock.besidesWaits(System.nanoTime()));
                    }
                }
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof InvocationAbandoned) { // abandoned with a do-nothing hook: the failure is ours to report
                    throw new SandboxViolation("wall-time", "chaining function ran for more than "
                            + limits.wallTime().toMillis() + " ms, stuck in one JDK call; its thread was abandoned");
                }
                if (cause instanceof Exception ex) {
                    throw ex;
                }
                throw (Error) cause;
            }
        });
    }

    /** The invocation itself, on the thread that runs it. */
    private <T> T body(Callable<T> task, ChainContext ctx, Consumer<FunctionFailure> onAbandon, WallClock clock)
            throws Exception {
        Budget budget = new Budget(limits, clock);
        SandboxWatchdog.Invocation watched = SandboxWatchdog.start(budget, onAbandon, abandonedRunning);
        Budget.enter(budget);
        try (var scope = ctx == null ? null : ctx.push()) {
            T result;
            try {
                result = task.call();
            } catch (SandboxViolation | VirtualMachineError e) {
                throw e;
            } catch (ExceptionInInitializerError e) {
                if (e.getCause() instanceof SandboxViolation v) {
                    throw v;
                }
                throw describe(e.getCause() == null ? e : e.getCause());
            } catch (FunctionFailure e) {
                throw e;
            } catch (Throwable e) {
                throw describe(e); // inside the budget: the function's overrides run under its checks
            }
            budget.check(true);
            if (budget.violation() != null) {
                throw budget.violation(); // caught and swallowed by the function: it still counts
            }
            return result;
        } finally {
            Budget.exit();
            if (!SandboxWatchdog.end(watched)) {
                throw InvocationAbandoned.instance(); // its hop has failed already
            }
        }
    }

    /**
     * What the function threw, as a failure that holds none of its objects: the class name, and the
     * message and stack trace as the function's own code gives them, under the budget.
     */
    private static FunctionFailure describe(Throwable e) {
        String type = e.getClass().getName();
        String message;
        List<String> trace;
        try {
            message = FunctionText.bounded(e.getMessage());
            trace = FunctionText.stackTrace(e);
        } catch (SandboxViolation | VirtualMachineError v) {
            throw v;
        } catch (RuntimeException | Error inner) {
            message = "(its getMessage() threw " + inner.getClass().getName() + ")";
            trace = List.of();
        }
        // an rpcc ChainException (a merge function rethrowing a branch's failure) is rpcc's object, not the
        // function's: kept as the cause, so that the merge host can tell it is that branch's failure
        Throwable rpccOwn = e instanceof ChainException && e.getClass().getClassLoader()
                == ChainException.class.getClassLoader() ? e : null;
        return FunctionFailure.failed(type, message, trace, rpccOwn);
    }

    /** Runs {@code call}, turning the sandbox's errors into typed failures. */
    private static <T> T translate(Callable<T> call) throws Exception {
        try {
            return call.call();
        } catch (SandboxViolation v) {
            throw v.toFailure();
        } catch (StackOverflowError e) {
            throw FunctionFailure.sandboxViolation("stack-depth", "chaining function recursed too deeply", false);
        } catch (OutOfMemoryError e) {
            throw FunctionFailure.sandboxViolation("memory", "chaining function ran out of memory: " + e.getMessage(),
                    false);
        }
    }
}
