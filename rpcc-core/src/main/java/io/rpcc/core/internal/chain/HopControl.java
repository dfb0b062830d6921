package io.rpcc.core.internal.chain;

import io.rpcc.core.ChainContext;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.HeartbeatBudget;
import io.rpcc.core.spi.EngineSpi;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The deadline and the cancellation of one hop at one node. The deadline is the budget the hop's
 * request carried, counted from the request's arrival on this node's clock. Cancelling marks the
 * hop cancelled and interrupts every thread working for it at that moment: the thread running the
 * service function and those running work started through its {@code ChainContext}. A thread is
 * interruptible only between {@link #enter()} and the close of the returned scope, so an interrupt
 * never lands on a pooled thread's next task.
 */
@EngineSpi
public final class HopControl {
    private final long arrivedNanos;
    private final long budgetNanos;
    private final List<Thread> threads = new ArrayList<>(2); // guarded by this; a thread once per enter
    private volatile boolean cancelled;
    private List<Runnable> onCancel; // guarded by this; null once cancelled
    private final long heartbeatIntervalNanos; // 0: the chain sends no heartbeats
    private volatile long heartbeatDueNanos;

    /** A hop whose request arrived at {@code arrivedNanos} with {@code budgetNanos} left (or {@link ChainHeader#NO_DEADLINE}). */
    public HopControl(long arrivedNanos, long budgetNanos) {
        this(arrivedNanos, budgetNanos, HeartbeatBudget.NONE);
    }

    /**
     * A hop whose request arrived at {@code arrivedNanos} with {@code budgetNanos} left (or
     * {@link ChainHeader#NO_DEADLINE}) and {@code heartbeat} as its time-to-heartbeat.
     */
    public HopControl(long arrivedNanos, long budgetNanos, HeartbeatBudget heartbeat) {
        this.arrivedNanos = arrivedNanos;
        this.budgetNanos = budgetNanos;
        this.heartbeatIntervalNanos = heartbeat.intervalNanos();
        this.heartbeatDueNanos = arrivedNanos + Math.max(0, heartbeat.remainingNanos());
    }

    /** Whether the hop's chain sends heartbeats and one is due at {@code nowNanos} (paper 3.9). */
    public boolean heartbeatDue(long nowNanos) {
        return heartbeatIntervalNanos > 0 && nowNanos - heartbeatDueNanos >= 0;
    }

    /** A heartbeat was sent at {@code nowNanos}: the next is due one interval later. */
    public void heartbeatSent(long nowNanos) {
        heartbeatDueNanos = nowNanos + heartbeatIntervalNanos;
    }

    /**
     * The time-to-heartbeat to send the chain on with at {@code nowNanos}: what is left here less
     * the network allowance of one crossing, as {@link NextHopDecision#lessAllowance} counts a budget down.
     */
    public HeartbeatBudget heartbeatForNext(long nowNanos, long allowanceNanos) {
        if (heartbeatIntervalNanos == 0) {
            return HeartbeatBudget.NONE;
        }
        return new HeartbeatBudget(heartbeatIntervalNanos,
                NextHopDecision.lessAllowance(heartbeatDueNanos - nowNanos, allowanceNanos));
    }

    /** Nanoseconds left of the chain's deadline at {@code nowNanos}, or {@link ChainHeader#NO_DEADLINE}. */
    public long remainingNanos(long nowNanos) {
        return budgetNanos == ChainHeader.NO_DEADLINE ? ChainHeader.NO_DEADLINE : budgetNanos - (nowNanos - arrivedNanos);
    }

    /** Whether the chain has a deadline. */
    public boolean hasDeadline() {
        return budgetNanos != ChainHeader.NO_DEADLINE;
    }

    /** The deadline on this node's clock, or {@link Instant#MAX} without one. */
    public Instant deadline() {
        return hasDeadline() ? Instant.now().plusNanos(remainingNanos(System.nanoTime())) : Instant.MAX;
    }

    /** The budget the request arrived with. */
    long budgetNanos() {
        return budgetNanos;
    }

    /** Whether the chain was cancelled while this hop was at this node. */
    public boolean isCancelled() {
        return cancelled;
    }

    /**
     * Marks the hop cancelled, interrupts the threads working for it and runs what waits for the
     * cancel ({@link #whenCancelled}): threads that were not started through the context (a captured
     * context, {@code ChainContext.push()}, a chaining function) are not interrupted, so what they
     * wait for in rpcc must wake them.
     */
    public void cancel() {
        cancelled = true;
        List<Runnable> wake;
        synchronized (this) {
            for (Thread t : threads) {
                t.interrupt();
            }
            wake = onCancel;
            onCancel = null;
        }
        if (wake != null) {
            wake.forEach(Runnable::run);
        }
    }

    /**
     * Runs {@code wake} when the hop is cancelled, or now if it is already: it must wake whatever
     * waits on behalf of the hop (the waiter checks {@link #isCancelled()} under the same lock as it
     * waits, so that a cancel between its check and its wait is not missed). Runs once, on the
     * cancelling thread; it must not block.
     */
    public void whenCancelled(Runnable wake) {
        synchronized (this) {
            if (!cancelled) {
                if (onCancel == null) {
                    onCancel = new ArrayList<>(1);
                }
                onCancel.add(wake);
                return;
            }
        }
        wake.run();
    }

    /**
     * The current thread works for this hop until the scope closes; it is interrupted at once if the
     * hop is already cancelled. Closing the scope clears an interrupt that the cancel may have left.
     */
    public ChainContext.Scope enter() {
        Thread current = Thread.currentThread();
        synchronized (this) {
            threads.add(current);
            if (cancelled) {
                current.interrupt();
            }
        }
        return () -> {
            synchronized (this) {
                threads.remove(current);
            }
            if (cancelled && !threads(current)) {
                Thread.interrupted(); // the cancel's interrupt must not outlive the work it was meant for
            }
        };
    }

    private synchronized boolean threads(Thread t) {
        return threads.contains(t);
    }
}
