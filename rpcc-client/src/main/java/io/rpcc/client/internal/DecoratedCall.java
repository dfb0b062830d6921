package io.rpcc.client.internal;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ChainDecorator;
import io.rpcc.client.ChainDecoratorException;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.internal.chain.Failovers;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call as the client's {@link ChainDecorator}s decorated it: the call to start and the listeners
 * to tell, once, how it ended (the innermost first).
 */
public final class DecoratedCall {
    private static final Logger log = LoggerFactory.getLogger(DecoratedCall.class);

    private final @Nullable ChainCall call;
    private final List<ChainDecorator.Listener> listeners;
    private final AtomicBoolean ended = new AtomicBoolean();
    private final CountDownLatch told = new CountDownLatch(1);
    private volatile @Nullable Thread teller;
    private final AtomicBoolean afterStart = new AtomicBoolean();

    private DecoratedCall(@Nullable ChainCall call, List<ChainDecorator.Listener> listeners) {
        this.call = call;
        this.listeners = listeners;
    }

    /**
     * Runs {@code decorators} on {@code call}. If one fails, the listeners of those before it are
     * told the failure at once and the {@link ChainDecoratorException} is thrown.
     */
    public static DecoratedCall decorate(List<ChainDecorator> decorators, ChainCall call, ChainDecorator.Mode mode,
                                         boolean interactive) {
        if (decorators.isEmpty()) {
            return new DecoratedCall(call, List.of());
        }
        List<ChainDecorator.Listener> listeners = new ArrayList<>(decorators.size());
        for (ChainDecorator decorator : decorators) {
            ChainDecorator.Decoration decoration;
            Throwable thrown = null;
            try {
                decoration = decorator.decorate(new ChainDecorator.Start(call, mode, interactive));
            } catch (RuntimeException | Error e) { // an Error too: the caller is told, then it propagates as the cause
                decoration = null;
                thrown = e;
            }
            if (decoration == null) {
                ChainDecoratorException failure = new ChainDecoratorException(decorator.getClass().getName(),
                        call.server(), call.serviceFunction(), thrown);
                DecoratedCall started = new DecoratedCall(null, listeners);
                started.afterStart();
                started.ended(null, failure);
                throw failure;
            }
            call = decoration.call();
            listeners.add(decoration.listener());
        }
        return new DecoratedCall(call, List.copyOf(listeners));
    }

    /** The call to start. */
    public ChainCall call() {
        if (call == null) {
            throw new IllegalStateException("no call");
        }
        return call;
    }

    /** Tells the listeners that the start method has done its part on the calling thread (once). */
    public void afterStart() {
        if (listeners.isEmpty() || !afterStart.compareAndSet(false, true)) {
            return;
        }
        for (int i = listeners.size() - 1; i >= 0; i--) {
            try {
                listeners.get(i).afterStart();
            } catch (RuntimeException | Error e) {
                log.warn("a client decorator's listener {} threw from afterStart(); ignored", listeners.get(i), e);
            }
        }
    }

    /** Tells the listeners that the chain is sent again as {@code attempt} after {@code failure} (on this thread). */
    public void retried(int attempt, Throwable failure) {
        for (int i = listeners.size() - 1; i >= 0; i--) {
            try {
                listeners.get(i).retried(attempt, failure);
            } catch (RuntimeException | Error e) {
                log.warn("a client decorator's listener {} threw from retried(); ignored", listeners.get(i), e);
            }
        }
    }

    /** Tells the listeners that a partial reply of {@code bytes} was delivered to the call (on this thread). */
    public void replied(int bytes) {
        for (int i = listeners.size() - 1; i >= 0; i--) {
            try {
                listeners.get(i).replied(bytes);
            } catch (RuntimeException | Error e) {
                log.warn("a client decorator's listener {} threw from replied(); ignored", listeners.get(i), e);
            }
        }
    }

    /** Whether any listener is told (replies need no tap otherwise). */
    public boolean listens() {
        return !listeners.isEmpty();
    }

    /**
     * Where the client's node tells this call's failovers: to the listeners, on the thread that
     * sends ({@link Failovers#NONE} if there are none).
     */
    public Failovers failovers() {
        if (listeners.isEmpty()) {
            return Failovers.NONE;
        }
        return (server, failed, next, failure) -> {
            for (int i = listeners.size() - 1; i >= 0; i--) {
                try {
                    listeners.get(i).failedOver(server, failed, next, failure);
                } catch (RuntimeException | Error e) {
                    log.warn("a client decorator's listener {} threw from failedOver(); ignored", listeners.get(i), e);
                }
            }
        };
    }

    /**
     * Tells the listeners how the call ended, the first time only; {@code failure} is unwrapped from
     * completion and cancellation exceptions. Returns at once if another thread is telling them.
     */
    public void ended(@Nullable ChainResult result, @Nullable Throwable failure) {
        if (listeners.isEmpty() || !ended.compareAndSet(false, true)) {
            return;
        }
        teller = Thread.currentThread();
        try {
            Throwable why = unwrap(failure);
            for (int i = listeners.size() - 1; i >= 0; i--) {
                try {
                    listeners.get(i).ended(result, why);
                } catch (RuntimeException | Error e) {
                    log.warn("a client decorator's listener {} threw from ended(); ignored", listeners.get(i), e);
                }
            }
        } finally {
            teller = null;
            told.countDown();
        }
    }

    /**
     * As {@link #ended}, for a caller that must not return before the listeners know (a cancel, which
     * promises its listeners are told at once): if another thread won the race to tell them (the
     * call's own completion, say), waits until it has, unless this thread is the one telling them (a
     * listener that cancels). Interrupted, it returns with the interrupt flag set.
     */
    public void endedBeforeReturning(@Nullable ChainResult result, @Nullable Throwable failure) {
        ended(result, failure);
        if (listeners.isEmpty() || teller == Thread.currentThread()) {
            return;
        }
        try {
            told.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static @Nullable Throwable unwrap(@Nullable Throwable failure) {
        Throwable t = failure;
        if (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof CancellationException && t.getCause() instanceof ChainException cause) {
            t = cause;
        }
        return t;
    }
}
