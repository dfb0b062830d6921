package io.rpcc.core.internal.function;

import io.rpcc.core.ChainContext;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.internal.chain.CurrentContext;
import io.rpcc.core.internal.wire.ErrorCode;
import io.rpcc.core.internal.wire.HopFailure;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The Java sandbox's dynamic half: runs an instrumented chaining function under a {@link Budget}
 * on a platform thread (the JVM measures CPU time and allocation only for those). From a virtual
 * thread the invocation moves to a sandbox thread and the caller waits at most the wall-time
 * limit; a function stuck where no check runs (deep inside a JDK call) is then abandoned: its
 * chain fails at once, and the thread ends at the function's next check.
 */
final class Sandbox {

    private final SandboxLimits limits;

    Sandbox(SandboxLimits limits) {
        this.limits = limits;
    }

    /** Runs {@code task} in the sandbox; failures become typed {@link HopFailure}s, other exceptions pass. */
    <T> T run(Callable<T> task) throws Exception {
        ChainContext ctx = CurrentContext.peek();
        Callable<T> body = () -> {
            Budget budget = new Budget(limits);
            Budget.enter(budget);
            try (var scope = ctx == null ? null : CurrentContext.enter(ctx)) {
                T result = task.call();
                budget.check(true);
                if (budget.violation() != null) {
                    throw budget.violation(); // caught and swallowed by the function: it still counts
                }
                return result;
            } finally {
                Budget.exit();
            }
        };
        try {
            if (!Thread.currentThread().isVirtual()) {
                return body.call();
            }
            Future<T> f = MonitoredExecution.THREADS.submit(body);
            try {
                return f.get(limits.wallTime().toMillis() + 250, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                f.cancel(true);
                throw new SandboxViolation("wall-time", "chaining function did not return within "
                        + limits.wallTime().toMillis() + " ms");
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof Exception ex) {
                    throw ex;
                }
                throw (Error) cause;
            }
        } catch (SandboxViolation v) {
            throw violation(v.getMessage());
        } catch (ExceptionInInitializerError e) {
            if (e.getCause() instanceof SandboxViolation v) {
                throw violation(v.getMessage());
            }
            throw e;
        } catch (StackOverflowError e) {
            throw violation("chaining function recursed too deeply (rule: stack-depth)");
        } catch (OutOfMemoryError e) {
            throw violation("chaining function ran out of memory: " + e.getMessage() + " (rule: memory)");
        }
    }

    private static HopFailure violation(String message) {
        return new HopFailure(ErrorCode.SANDBOX_VIOLATION, message);
    }
}
