package io.rpcc.core.internal.chain;

import io.rpcc.core.BranchId;
import io.rpcc.core.ChainCaller;
import io.rpcc.core.IsolationLevel;
import io.rpcc.core.ChainContext;
import io.rpcc.core.Metadata;
import io.rpcc.core.VirtualConsole;
import io.rpcc.core.spi.EngineSpi;
import java.time.Instant;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@link ChainContext} of one service or chaining function invocation. Work handed to other
 * threads through its wrappers keeps the context and holds the hop's {@link Replies} count open
 * until it ends; if it throws, the hop reports the error (the chain ends partial with it). Threads
 * that rpcc starts ({@link #startThread}, {@link #startVirtualThread}) keep the exception; tasks
 * handed to an executor throw it on, as the executor's caller may expect. A {@linkplain #track
 * tracked} future holds the count until it completes and reports its failure the same way.
 */
@EngineSpi
public final class HopContext implements ChainContext {
    private final HopLocation location;
    private final VirtualConsole console;
    private final Replies replies;
    private final Metadata metadata;
    private final HopControl control;

    /**
     * A context of an invocation at {@code location} whose partial replies go to {@code replies}, with
     * the chain's {@code metadata} and the deadline and cancellation of {@code control}.
     */
    public HopContext(HopLocation location, VirtualConsole console, Replies replies, Metadata metadata,
                      HopControl control) {
        this.location = location;
        this.console = console;
        this.replies = replies;
        this.metadata = metadata;
        this.control = control;
    }

    @Override
    public String chainId() {
        return location.chainId();
    }

    @Override
    public String originator() {
        return location.originator();
    }

    @Override
    public ChainCaller caller() {
        return location.caller();
    }

    @Override
    public IsolationLevel isolation() {
        return location.isolation();
    }

    @Override
    public int hop() {
        return location.hop();
    }

    @Override
    public String node() {
        return location.node();
    }

    @Override
    public Metadata metadata() {
        return metadata;
    }

    @Override
    public BranchId branch() {
        return location.branch();
    }

    @Override
    public VirtualConsole console() {
        return console;
    }

    @Override
    public Instant deadline() {
        return control.deadline();
    }

    @Override
    public boolean isCancelled() {
        return control.isCancelled();
    }

    @Override
    public void preturn(Object reply) {
        replies.preturn(reply);
    }

    @Override
    public Runnable wrap(Runnable task) {
        return wrap(task, true);
    }

    /**
     * {@link #wrap(Runnable)}; what the task throws ends the chain, and is thrown on to the thread
     * that runs it if {@code rethrow} (an executor's caller may expect it), else kept there.
     */
    private Runnable wrap(Runnable task, boolean rethrow) {
        Callable<Void> held = holding(() -> {
            task.run();
            return null;
        }, rethrow);
        return () -> {
            try {
                held.call();
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e); // unreachable: a Runnable throws no checked exception
            }
        };
    }

    @Override
    public <V> Callable<V> wrap(Callable<V> task) {
        return holding(task, true);
    }

    /**
     * Raises the count now; the returned task runs {@code task} once, with this context, then lowers
     * it. If {@code task} throws, the hop reports it to the originator (the chain ends partial with
     * that error); the exception goes on to the caller if {@code rethrow}.
     */
    private <V> Callable<V> holding(Callable<V> task, boolean rethrow) {
        replies.raise();
        AtomicBoolean ran = new AtomicBoolean();
        return () -> {
            if (!ran.compareAndSet(false, true)) {
                throw new IllegalStateException("a task wrapped by ChainContext.wrap runs once");
            }
            try (var scope = push(); var working = control.enter()) {
                return task.call();
            } catch (Throwable e) {
                replies.failed(e);
                if (rethrow) {
                    throw e;
                }
                return null;
            } finally {
                replies.lower();
            }
        };
    }

    @Override
    public Executor executor(Executor executor) {
        return task -> {
            Runnable wrapped = wrap(task);
            try {
                executor.execute(wrapped);
            } catch (RejectedExecutionException | Error e) {
                replies.lower(); // the task will never run
                throw e;
            }
        };
    }

    @Override
    public <S extends CompletionStage<?>> S track(S stage) {
        replies.raise();
        stage.whenComplete((value, error) -> {
            try {
                if (error != null) {
                    replies.failed(Node.unwrap(error));
                }
            } finally {
                replies.lower();
            }
        });
        return stage;
    }

    @Override
    public Thread startThread(Runnable task) {
        return start(Thread.ofPlatform().name("rpcc-" + node() + "-hop-" + hop()).unstarted(wrap(task, false)));
    }

    @Override
    public Thread startVirtualThread(Runnable task) {
        return start(Thread.ofVirtual().name("rpcc-" + node() + "-hop-" + hop()).unstarted(wrap(task, false)));
    }

    private Thread start(Thread t) {
        try {
            t.start();
        } catch (RuntimeException | Error e) {
            replies.lower();
            throw e;
        }
        return t;
    }
}
